import DatebookCore
import DatebookICal
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

    /// The totals of the first `cap` of `openCounts` (each occurrence's open tasks, in the window's
    /// order; at most `cap + 1` of them): both backends count this way, so a capped digest says the
    /// same on both (`500+ events, 1255+ open tasks`).
    public init(capping openCounts: [Int], cap: Int) {
        self.init(events: min(openCounts.count, cap), openTasks: openCounts.prefix(cap).reduce(0, +), capped: openCounts.count > cap)
    }
}

/// One occurrence a capped count took: when it starts and how many of its tasks are open.
public struct CountedOccurrence: Sendable, Equatable {
    public var start: Date
    public var openTasks: Int

    public init(start: Date, openTasks: Int) {
        self.start = start
        self.openTasks = openTasks
    }

    /// Two chronological lists as one (the first's first on equal starts), cut after `limit`: a
    /// window's single and recurring occurrences, each counted up to the cap, give the window's
    /// first `cap` of both kinds this way.
    public static func merged(_ a: [CountedOccurrence], _ b: [CountedOccurrence], limit: Int) -> [CountedOccurrence] {
        var result: [CountedOccurrence] = []
        result.reserveCapacity(min(limit, a.count + b.count))
        var i = a.startIndex, j = b.startIndex
        while result.count < limit, i < a.endIndex || j < b.endIndex {
            if j == b.endIndex || (i < a.endIndex && a[i].start <= b[j].start) {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result
    }
}

extension Store {
    /// The rows the scan of `firstOccurrences` asks for at first. Without a LIMIT PostgreSQL's
    /// planner expects the whole window: on 50k overdue events it sorted them all and sent every row
    /// (about 200 ms at a load of 16, its client stopping after some 600); with one it walks
    /// `events_by_start` (about 20 ms). SQLite streams either way.
    static let firstOccurrencesPage: Int64 = 1024
}

/// Bounded queries for the digest: the first few occurrences of a window and the window's
/// totals, so a digest costs the same on a store of 1k or 1M events.
extension SQLStore {
    /// Occurrences in `[from, to)` (open bounds when nil), at most `limit`, chronological: the
    /// first ones, or with `newest` the last ones (the digest's Overdue shows the most recent).
    ///
    /// - Parameter onlyOpen: only events with at least one task not done (the digest's Overdue).
    /// - Parameter singleOnly: leave recurring events out (their occurrences come from
    ///   `forEachRecurringOccurrence`; their own row stands only for the first). This also lets
    ///   SQLite answer from the covering partial index `events_agenda`, with no table row per
    ///   event looked at.
    ///
    /// One scan of the window in key order picks the rows (an all-day event starts up to 14 h
    /// before or 12 h after its key, so the scan goes on until no later row can start before the
    /// last one kept), then only those are loaded with their tasks. The rows read are the ones
    /// shown plus those of about a day, however many the window holds: with one query per
    /// `all_day` value, a window of 50k timed overdue events and no all-day one was read whole.
    public func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                                 onlyOpen: Bool = false, singleOnly: Bool = false, newest: Bool = false) throws -> [Occurrence] {
        try firstOccurrences(from: from, to: to, calendar: calendar, limit: limit, onlyOpen: onlyOpen, singleOnly: singleOnly,
                             newest: newest, page: Store.firstOccurrencesPage)
    }

    /// `firstOccurrences` with the scan asked for `page` rows at a time: a page that ends before
    /// the scan may stop is asked again eight times larger (`Int64.max`: the plain, unlimited scan
    /// the paged one is tested against).
    func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                          onlyOpen: Bool, singleOnly: Bool, newest: Bool, page first: Int64) throws -> [Occurrence] {
        guard limit > 0 else { return [] }
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        let order = newest ? "e.start_key DESC, e.id\(dialect.byteOrder) DESC" : "e.start_key, e.id\(dialect.byteOrder)"
        let sql = "SELECT e.id, e.start_key, e.all_day FROM events e WHERE " + window.condition
            + (onlyOpen ? " AND e.open_count > 0" : "") + (singleOnly ? " AND e.recurrence IS NULL" : "") + " ORDER BY " + order
            + " LIMIT $\(window.values.count + 1)"
        // The kept rows' starts, nearest the scan's beginning first; at most `limit`.
        var kept: [(start: Date, id: String)] = []
        func before(_ a: Date, _ b: Date) -> Bool { newest ? a > b : a < b }
        var page = max(1, first)
        while true {
            kept.removeAll(keepingCapacity: true)
            var read: Int64 = 0
            do {
                try run(sql, window.values + [.integer(page)]) { row in
                    read += 1
                    let key = row.int64(1)
                    if kept.count == limit, let last = kept.last {
                        // Every later row starts at or after key − 14 h (newest: at or before key + 12 h).
                        let bound = Date(timeIntervalSince1970: TimeInterval(newest ? key + EventStart.allDayLatest : key - EventStart.allDayEarliest))
                        if before(last.start, bound) { throw EnoughRows() }
                    }
                    let start = EventStart(key: key, kind: row.int(2)).resolved(in: calendar)
                    let index = kept.firstIndex { before(start, $0.start) } ?? kept.count
                    guard index < limit else { return }
                    kept.insert((start, row.text(0)), at: index)
                    if kept.count > limit { kept.removeLast() }
                }
            } catch is EnoughRows { break }
            // Fewer rows than asked for: the window ended.
            guard read == page, page < Int64.max else { break }
            page = page > Int64.max / 8 ? Int64.max : page * 8
        }
        guard !kept.isEmpty else { return [] }
        var result: [Occurrence] = []
        try stream(where: "e.id IN (" + kept.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")", kept.map { .text($0.id) },
                   order: "e.start_key, e.id") { result.append(Occurrence(event: $0, calendar: calendar)) }
        return result.sorted(by: Occurrence.chronological)
    }

    /// The occurrences in `[from, to)` a count capped at `cap` takes (at most `cap + 1`, so a
    /// caller sees that more exist), chronological: one indexed range scan over `events`, no tasks
    /// read. The rows are taken in key order and then by the ids' bytes, so both databases count
    /// the same ones.
    public func countedOccurrences(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool = false, singleOnly: Bool = false,
                                   cap: Int = Int.max) throws -> [CountedOccurrence] {
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        let counted = try rows("SELECT e.open_count, e.start_key, e.all_day FROM events e WHERE " + window.condition
                               + (onlyOpen ? " AND e.open_count > 0" : "") + (singleOnly ? " AND e.recurrence IS NULL" : "")
                               + " ORDER BY e.start_key, e.id\(dialect.byteOrder) LIMIT $9",
                               window.values + [.integer(Int64(min(cap, Int(Int64.max - 1))) + 1)]) { row in
            CountedOccurrence(start: EventStart(key: row.int64(1), kind: row.int(2)).resolved(in: calendar), openTasks: row.int(0))
        }
        // Key order is start order but for all-day and floating events near timed ones (the sort is stable).
        return counted.sorted { $0.start < $1.start }
    }

    /// The first `count` recurring series by their next occurrence at or after `from` (as
    /// `forEachRecurringOccurrence(from:to: nil)` lists them, each naming its rule), read from the
    /// materialised occurrences alone: one scan of `occurrences_by_start` from `from` that stops
    /// once no later row can come before the `count`th series, then their summaries by id.
    ///
    /// Nil when those rows cannot answer: no horizon, a recurring event with no span or a span
    /// that does not reach back to `from`, or fewer than `count` series before the spans end
    /// (the others may next occur past the horizon). The digest's Future takes its first 501
    /// series this way, where every series' next occurrence was 40 % of a digest on 100k events.
    public func firstSeries(atOrAfter from: Date, calendar: Calendar, count: Int) throws -> [OccurrenceSummary]? {
        guard count > 0, recurrenceHorizon != nil else { return nil }
        let lower = EventStart.lowestKey(from: from)
        guard let (latestFrom, end) = try first("SELECT max(from_key), min(to_key) FROM recurrence_spans", [], { row in
            row.isNull(0) ? nil : (row.int64(0), row.int64(1))
        }) ?? nil, latestFrom <= lower, lower < end, try spanCount() == recurringCount() else { return nil }
        // Each series' next start (its first row at or after `from`: its keys are of one kind), and
        // the `count` earliest of those starts, for when to stop.
        var next: [String: Date] = [:]
        var earliest: [Date] = []
        var page = Int64(count) * 2 + 64
        while true {
            next.removeAll(keepingCapacity: true)
            earliest.removeAll(keepingCapacity: true)
            var read: Int64 = 0, answered = false
            do {
                try run("""
                    SELECT o.event_id, o.start_key, e.all_day FROM occurrences o JOIN events e ON e.id = o.event_id
                    WHERE o.start_key >= $1 AND o.start_key < $2 ORDER BY o.start_key LIMIT $3
                    """, [.integer(lower), .integer(end), .integer(page)]) { row in
                    read += 1
                    let key = row.int64(1)
                    // Every later row starts at or after key − 14 h: done once the `count`th series starts before that.
                    if earliest.count == count, earliest[count - 1] < Date(timeIntervalSince1970: TimeInterval(key - EventStart.allDayEarliest)) {
                        answered = true
                        throw EnoughRows()
                    }
                    let id = row.text(0)
                    guard next[id] == nil else { return }
                    let start = EventStart(key: key, kind: row.int(2)).resolved(in: calendar)
                    guard start >= from else { return }
                    next[id] = start
                    let index = earliest.firstIndex { start < $0 } ?? earliest.count
                    guard index < count else { return }
                    earliest.insert(start, at: index)
                    if earliest.count > count { earliest.removeLast() }
                }
            } catch is EnoughRows {}
            if answered { break }
            // The spans ended first: a series may next occur past them.
            guard read == page else { return nil }
            page *= 8
        }
        // The `count`th start and every series tied with it; the listing's order (title, then id) picks among those.
        let last = earliest[count - 1]
        let ids = next.filter { $0.value <= last }.map(\.key)
        var found: [OccurrenceSummary] = []
        try run("SELECT \(SummaryColumn.selectList), e.recurrence FROM events e WHERE e.id IN ("
                + ids.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")", ids.map { .text($0) }) { row in
            let summary = Store.summary(from: row)
            if let start = next[summary.id] { found.append(OccurrenceSummary(event: summary, start: start, series: row.text(SummaryColumn.after(0)))) }
        }
        return Array(found.sorted(by: OccurrenceSummary.chronological).prefix(count))
    }

    /// Whether any occurrence starts in `[from, to)`: one index probe (the digest's calendar days).
    public func hasOccurrence(from: Date?, to: Date?, calendar: Calendar, singleOnly: Bool = false) throws -> Bool {
        let window = ExactWindow(from: from, to: to, calendar: calendar)
        return try first("SELECT 1 FROM events e WHERE " + window.condition + (singleOnly ? " AND e.recurrence IS NULL" : "") + " LIMIT 1",
                         window.values) { _ in true } ?? false
    }

    /// Whether any event recurs: one probe of the partial index `events_recurring_listing`.
    public func hasRecurringEvents() throws -> Bool {
        try first("SELECT 1 FROM events e\(dialect.recurringListing) WHERE e.recurrence IS NOT NULL LIMIT 1") { _ in true } ?? false
    }

    /// Every occurrence of the recurring events in `[from, to)`, chronological, as listing
    /// summaries (task counts, no tasks; `event(id:)` loads one whole), the way `list` reads them.
    /// Inside `recurrenceHorizon` this reads the materialised occurrences; outside it every
    /// recurring event is expanded, which on 10k weekly events costs seconds.
    public func forEachRecurringOccurrence(from: Date, to: Date?, calendar: Calendar,
                                           _ body: (OccurrenceSummary) throws -> Void) throws {
        let sorted = try recurringSummaries(from: from, to: to, calendar: calendar)
        for position in 0..<sorted.count { try body(sorted[position]) }
    }

    /// Expands recurring events one at a time over `[from, to)`, in id order, for the few a caller
    /// needs outside `recurrenceHorizon`: `include` picks them from their listing summary before
    /// any expansion, `body` gets each one's starts (chronological) and returns false to stop.
    ///
    /// - Parameter onlyOpen: only events with at least one task not done.
    public func expandRecurringEvents(from: Date, to: Date, calendar: Calendar, onlyOpen: Bool = false,
                                      include: (EventSummary) -> Bool, _ body: (EventSummary, [Date]) throws -> Bool) throws {
        guard from < to else { return }
        let window = EventStart.lowestKey(from: from) ..< EventStart.keyBound(to: to)
        do {
            try run("SELECT \(SummaryColumn.selectList), e.time_zone, e.recurrence FROM events e "
                    + "WHERE e.recurrence IS NOT NULL\(onlyOpen ? " AND e.open_count > 0" : "") ORDER BY e.id\(dialect.byteOrder)", []) { row in
                let event = Store.summary(from: row)
                guard include(event) else { return }
                let timeZone = row.text(SummaryColumn.after(0)), recurrence = row.text(SummaryColumn.after(1))
                // A series that certainly begins at its start has nothing before it (`SeriesStart`):
                // the digest's Overdue asked this of every series starting later (12 % of it on 100k).
                if let first = SeriesStart.certainFirstKey(start: event.start, timeZone: timeZone, recurrence: recurrence),
                   first >= window.upperBound {
                    guard try body(event, []) else { throw EnoughRows() }
                    return
                }
                let keys = RecurrenceExpander.keys(start: event.start, timeZone: timeZone, recurrence: recurrence, window: window).keys
                let starts = keys.map { EventStart(key: $0, like: event.start).resolved(in: calendar) }
                    .filter { $0 >= from && $0 < to }.sorted()
                guard try body(event, starts) else { throw EnoughRows() }
            }
        } catch is EnoughRows {}
    }
}

/// A `[from, to)` window as SQL on `start_key` that is exact for all-day and floating events too.
///
/// Timed events are keyed by their instant. An all-day event is keyed by its date's UTC
/// midnight but starts at midnight in the user's zone, so it is in the window when its date
/// lies between the first dates starting at or after `from` and `to`; a floating event is keyed
/// by its wall-clock time, in the window when that lies between the wall-clock times of `from`
/// and `to` in the user's zone. The outer range on `start_key` lets SQLite use the index; the
/// CASE makes it exact.
struct ExactWindow {
    let timedFrom: Int64, timedTo: Int64, dayFrom: Int64, dayTo: Int64
    let condition: String
    /// The values of `condition`'s placeholders, in order.
    let keys: [Int64]
    var values: [SQLValue] { keys.map { .integer($0) } }

    init(from: Date?, to: Date?, calendar: Calendar) {
        let timedFrom = from.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.min
        let timedTo = to.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.max
        let dayFrom = from.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.min
        let dayTo = to.map { Self.firstDayKey(atOrAfter: $0, calendar) } ?? Int64.max
        let wallFrom = from.map { Self.wallKey(atOrAfter: $0, calendar) } ?? Int64.min
        let wallTo = to.map { Self.wallKey(atOrAfter: $0, calendar) } ?? Int64.max
        (self.timedFrom, self.timedTo, self.dayFrom, self.dayTo) = (timedFrom, timedTo, dayFrom, dayTo)
        condition = "e.start_key >= $1 AND e.start_key < $2 AND CASE e.all_day WHEN 0 THEN e.start_key >= $3 AND e.start_key < $4 "
            + "WHEN 1 THEN e.start_key >= $5 AND e.start_key < $6 ELSE e.start_key >= $7 AND e.start_key < $8 END" + Store.notTaskList
        keys = [min(timedFrom, dayFrom, wallFrom), max(timedTo, dayTo, wallTo), timedFrom, timedTo, dayFrom, dayTo, wallFrom, wallTo]
    }

    /// The key of the first floating time whose instant (in `calendar`'s zone) is at or after `instant`.
    /// Exact but for the hours a DST change skips or repeats (a floating 02:30 on the day clocks
    /// skip 02:00–03:00 reads as 03:30, after a floating 03:00).
    static func wallKey(atOrAfter instant: Date, _ calendar: Calendar) -> Int64 {
        FloatingTime(Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.up)), in: calendar.timeZone).wallSeconds
    }

    /// The key of the first date whose start (in `calendar`'s zone) is at or after `instant`.
    static func firstDayKey(atOrAfter instant: Date, _ calendar: Calendar) -> Int64 {
        var day = CalendarDate(instant, in: calendar.timeZone)
        if day.start(in: calendar) < instant { day = CalendarDate(dayNumber: day.dayNumber + 1) }
        return Int64(day.dayNumber) * 86_400
    }
}
