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
    /// Timed and all-day events are each in start order by key, so each is one indexed query
    /// that stops after `limit` events; the two short lists are then merged. At most
    /// `2 × limit` events are read, however many the window holds.
    public func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                                 onlyOpen: Bool = false) throws -> [Occurrence] {
        guard limit > 0 else { return [] }
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        var result: [Occurrence] = []
        for (allDay, low, high) in [(0, window.timedFrom, window.timedTo), (1, window.dayFrom, window.dayTo)] {
            let first = "SELECT x.rowid FROM events x WHERE x.all_day = ? AND x.start_key >= ? AND x.start_key < ?"
                + (onlyOpen ? " AND x.open_count > 0" : "") + " ORDER BY x.start_key, x.id LIMIT ?"
            try stream(where: "e.rowid IN (" + first + ")",
                       [.integer(Int64(allDay)), .integer(low), .integer(high), .integer(Int64(limit))],
                       order: "e.start_key, e.id") { event in
                result.append(Occurrence(event: event, calendar: calendar))
            }
        }
        return Array(result.sorted(by: Occurrence.chronological).prefix(limit))
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

/// A `[from, to)` window as SQL on `start_key` that is exact for all-day events too.
///
/// Timed events are keyed by their instant. An all-day event is keyed by its date's UTC
/// midnight but starts at midnight in the user's zone, so it is in the window when its date
/// lies between the first dates starting at or after `from` and `to`. The outer range on
/// `start_key` lets SQLite use the index; the CASE makes it exact.
struct ExactWindow {
    let timedFrom: Int64, timedTo: Int64, dayFrom: Int64, dayTo: Int64
    let condition: String
    let values: [SQLiteValue]

    init(from: Date?, to: Date?, calendar: Calendar) {
        let timedFrom = from.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.min
        let timedTo = to.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.max
        let dayFrom = from.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.min
        let dayTo = to.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.max
        (self.timedFrom, self.timedTo, self.dayFrom, self.dayTo) = (timedFrom, timedTo, dayFrom, dayTo)
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
