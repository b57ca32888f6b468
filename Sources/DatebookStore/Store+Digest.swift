import DatebookCore
import Foundation

/// How many occurrences a window holds and how many of their tasks are open.
public struct WindowTotals: Sendable, Equatable {
    public var events: Int
    public var openTasks: Int
    /// Counting stopped at a cap: both numbers are lower bounds.
    public var capped: Bool

    public init(events: Int, openTasks: Int, capped: Bool = false) {
        self.events = events
        self.openTasks = openTasks
        self.capped = capped
    }
}

/// Bounded queries for the digest: the first few occurrences of a window and the window's
/// totals, so a digest costs the same on a store of 1k or 1M events.
extension Store {
    /// Occurrences in `[from, to)` (open bounds when nil), at most `limit`, chronological.
    ///
    /// - Parameter onlyOpen: only events with at least one task not done (the digest's Overdue).
    /// Streams like `forEachOccurrence` and stops reading as soon as `limit` are final.
    public func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                                 onlyOpen: Bool = false) throws -> [Occurrence] {
        guard limit > 0 else { return [] }
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        var result: [Occurrence] = []
        var buffer = ReorderBuffer()
        let collect: (Occurrence) throws -> Void = { occurrence in
            result.append(occurrence)
            if result.count >= limit { throw EnoughRows() }
        }
        do {
            try stream(where: window.condition + (onlyOpen ? " AND e.open_count > 0" : ""), window.values,
                       order: "e.start_key, e.id") { event in
                let occurrence = Occurrence(event: event, calendar: calendar)
                let (key, _) = Self.key(event.start)
                try buffer.emit(before: Date(timeIntervalSince1970: TimeInterval(key - Self.allDayEarliest)), collect)
                buffer.insert(occurrence)
            }
            try buffer.emit(before: nil, collect)
        } catch is EnoughRows {
            // The statement is reset by its next bind.
        }
        return result
    }

    /// The number of occurrences in `[from, to)` and the sum of their open tasks: one indexed
    /// range scan over `events`, no tasks read. Counting stops after `cap` rows (`capped` is then set).
    public func totals(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool = false, cap: Int = Int.max) throws -> WindowTotals {
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        let sql = "SELECT COUNT(*), COALESCE(SUM(open_count), 0) FROM (SELECT e.open_count FROM events e WHERE "
            + window.condition + (onlyOpen ? " AND e.open_count > 0" : "") + " LIMIT ?)"
        let query = try statement(sql)
        try wrap { try query.bind(window.values + [.integer(Int64(min(cap, Int(Int64.max - 1))) + 1)]) }
        guard try wrap({ try query.step() }) else { return WindowTotals(events: 0, openTasks: 0) }
        var totals = WindowTotals(events: query.int(0), openTasks: query.int(1))
        try wrap { try query.bind([]) }
        if totals.events > cap {
            totals.events = cap
            totals.capped = true
        }
        return totals
    }

    /// Reads the database through a memory map for the rest of this connection: a one-shot
    /// process then touches pages the OS already caches without a read call per page.
    public func useMemoryMap(bytes: Int = 1 << 30) throws {
        try wrap { try db.execute("PRAGMA mmap_size = \(bytes)") }
    }

    /// Whether any occurrence starts in `[from, to)`: one index probe (the digest's calendar days).
    public func hasOccurrence(from: Date?, to: Date?, calendar: Calendar) throws -> Bool {
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        let query = try statement("SELECT 1 FROM events e WHERE " + window.condition + " LIMIT 1")
        try wrap { try query.bind(window.values) }
        let found = try wrap { try query.step() }
        try wrap { try query.bind([]) }
        return found
    }
}

/// Thrown from a row callback to stop a stream early.
private struct EnoughRows: Error {}

/// A `[from, to)` window as SQL on `start_key` that is exact for all-day events too.
///
/// Timed events are keyed by their instant. An all-day event is keyed by its date's UTC
/// midnight but starts at midnight in the user's zone, so it is in the window when its date
/// lies between the first dates starting at or after `from` and `to`. The outer range on
/// `start_key` lets SQLite use the index; the CASE makes it exact.
struct ExactWindow {
    let condition: String
    let values: [SQLiteValue]

    init(from: Date?, to: Date?, calendar: Calendar) {
        let timedFrom = from.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.min
        let timedTo = to.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.max
        let dayFrom = from.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.min
        let dayTo = to.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.max
        condition = "e.start_key >= ? AND e.start_key < ? AND CASE WHEN e.all_day THEN e.start_key >= ? AND e.start_key < ? "
            + "ELSE e.start_key >= ? AND e.start_key < ? END"
        values = [.integer(min(timedFrom, dayFrom)), .integer(max(timedTo, dayTo)),
                  .integer(dayFrom), .integer(dayTo), .integer(timedFrom), .integer(timedTo)]
    }

    /// The key of the first date whose start (in `calendar`'s zone) is at or after `instant`.
    static func firstDayKey(atOrAfter instant: Date, _ calendar: Calendar) -> Int64 {
        var day = CalendarDate(instant, in: calendar.timeZone)
        if day.start(in: calendar) < instant { day = CalendarDate(dayNumber: day.dayNumber + 1) }
        return Int64(day.dayNumber) * 86_400
    }
}
