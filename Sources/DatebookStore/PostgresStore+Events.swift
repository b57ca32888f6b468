import DatebookCore
import Foundation

/// Events, tasks and their listings on PostgreSQL. Rows are written by the SQLite store's
/// `Store.eventRow`/`Store.taskRow` and read by `Store.event(from:)`/`Store.summary(from:)`, so a
/// new `EventColumn` reaches both backends at once.
extension PostgresStore {
    /// `$1, $2, …, $n` for `count` values starting after `offset`.
    static func placeholders(_ count: Int, from offset: Int = 0) -> String {
        (1...count).map { "$\(offset + $0)" }.joined(separator: ", ")
    }

    static let upsertSQL = EventColumn.insertHead + " (" + placeholders(EventColumn.allCases.count) + ") " + EventColumn.upsertTail

    /// Inserts or replaces events with their tasks in one transaction: `copyThreshold` or more
    /// through COPY (PostgresStore+Copy.swift), fewer row by row with `progress(done)` every 1,000.
    public func save(_ events: [Event], progress: (Int) -> Void) throws {
        try transaction {
            guard events.count < Self.copyThreshold else { return try writeInBulk(events) }
            for (index, event) in events.enumerated() {
                try write(event)
                if (index + 1) % 1_000 == 0 { progress(index + 1) }
            }
        }
        progress(events.count)
    }

    public func save(_ event: Event) throws { try save([event], progress: { _ in }) }

    /// Upserts the events row, then replaces its tasks with one multi-row insert.
    func write(_ event: Event) throws {
        var row = PostgresValues()
        Store.eventRow(event, into: &row)
        try query(Self.upsertSQL, row.values)
        try query("DELETE FROM tasks WHERE event_id = $1", [event.id])
        guard !event.tasks.isEmpty else { return }
        var tasks = PostgresValues()
        for (position, task) in event.tasks.enumerated() { Store.taskRow(event.id, position, task, into: &tasks) }
        let width = TaskColumn.allCases.count
        let rows = (0..<event.tasks.count).map { "(" + Self.placeholders(width, from: $0 * width) + ")" }
        try query(TaskColumn.insertHead + " " + rows.joined(separator: ", "), tasks.values)
    }

    @discardableResult
    public func delete(id: String) throws -> Bool {
        try transaction { try query("DELETE FROM events WHERE id = $1", [id]).changed > 0 }
    }

    public func event(id: String) throws -> Event? {
        var found: Event?
        try stream(where: "e.id = $1", [id], order: "e.id") { found = $0 }
        return found
    }

    /// One query for all of them: read one by one, the passes of 3 replicas delivering 10,000 alerts
    /// looked events up about 10 times per delivery (15.4 s in all; 5.6 s with this, loaded machine).
    public func events(ids: [String]) throws -> [String: Event] {
        guard !ids.isEmpty else { return [:] }
        var found: [String: Event] = [:]
        try stream(where: "e.id = ANY($1::text[])", [Self.arrayLiteral(Array(Set(ids)))], order: "e.id") { found[$0.id] = $0 }
        return found
    }

    public func events(idPrefix prefix: String, limit: Int) throws -> [Event] {
        var found: [Event] = []
        try stream(where: "starts_with(e.id, $1)", [prefix.lowercased()], order: "e.id") {
            if found.count < limit { found.append($0) }
        }
        return found
    }

    /// Exact title first; else the same title ignoring case.
    public func events(titled title: String) throws -> [Event] {
        var found: [Event] = []
        try stream(where: "e.title = $1", [title], order: "e.start_key, e.id") { found.append($0) }
        if found.isEmpty {
            try stream(where: "lower(e.title) = lower($1)", [title], order: "e.start_key, e.id") { found.append($0) }
        }
        return found
    }

    public func forEachEvent(_ body: (Event) throws -> Void) throws {
        try stream(where: "TRUE", [], order: "e.start_key, e.id", body)
    }

    public func forEachEvent(withTaskIn statuses: Set<TaskStatus>, _ body: (Event) throws -> Void) throws {
        guard !statuses.isEmpty else { return }
        let names = statuses.map(\.rawValue).sorted()
        try stream(where: "EXISTS (SELECT 1 FROM tasks x WHERE x.event_id = e.id AND x.status = ANY($1::text[]))",
                   ["{" + names.joined(separator: ",") + "}"], order: "e.start_key, e.id", body)
    }

    public func eventCount() throws -> Int {
        try query("SELECT count(*) FROM events").int(0, 0)
    }

    /// Titles starting with `prefix` (byte order, as SQLite compares), then ids for a hex prefix.
    public func eventNames(prefix: String, limit: Int) throws -> [EventName] {
        func names(_ rows: PostgresRows) -> [EventName] {
            rows.all.map { EventName(shortID: String($0.text(0).prefix(EventID.shortLength)), title: $0.text(1)) }
        }
        var found = names(try query("SELECT id, title FROM events WHERE starts_with(title, $1) ORDER BY title COLLATE \"C\", id LIMIT $2",
                                    [prefix, String(limit)]))
        let lowered = prefix.lowercased()
        if !lowered.isEmpty, lowered.allSatisfy(\.isHexDigit), found.count < limit {
            found += names(try query("SELECT id, title FROM events WHERE starts_with(id, $1) ORDER BY id LIMIT $2",
                                     [lowered, String(limit - found.count)]))
        }
        return found
    }

    /// Events LEFT JOIN tasks in one query, consecutive rows grouped into events (tasks in position order).
    func stream(where condition: String, _ values: [String?], order: String, _ body: (Event) throws -> Void) throws {
        let rows = try query(Store.selectSQL(where: condition, order: order + ", t.position"), values)
        var current: Event?
        for row in rows.all {
            if current?.id != row.text(EventColumn.id.index) {
                if let done = current { try body(done) }
                current = Store.event(from: row)
            }
            if !row.isNull(TaskColumn.position.joinedIndex) { current?.tasks.append(Store.task(from: row)) }
        }
        if let done = current { try body(done) }
    }
}

/// Occurrences: single events by an indexed range on `start_key` (widened by the span of UTC
/// offsets, then filtered exactly), recurring events expanded here over the window, all sorted
/// chronologically (`OccurrenceOf.chronological`, as the SQLite store emits them).
extension PostgresStore {
    public func forEachOccurrence(from: Date?, to: Date?, calendar: Calendar, _ body: (Occurrence) throws -> Void) throws {
        try occurrences(from: from, to: to, calendar: calendar, read: stream).forEach(body)
    }

    /// Listing summaries in one round trip: the single events in the window and every recurring
    /// event (expanded here) come from one query, which the agenda's latency is mostly made of.
    public func forEachOccurrenceSummary(from: Date?, to: Date?, calendar: Calendar,
                                         _ body: (OccurrenceSummary) throws -> Void) throws {
        let (singles, values) = Self.singlesCondition(from: from, to: to)
        let rows = try query("""
            SELECT \(SummaryColumn.selectList), e.time_zone, e.recurrence FROM events e
            WHERE (\(singles)) OR e.recurrence IS NOT NULL ORDER BY e.start_key, e.id
            """, values)
        let window = Self.expansionWindow(from: from, to: to)
        var found: [OccurrenceSummary] = []
        for row in rows.all {
            let summary = Store.summary(from: row)
            guard let recurrence = row.optionalText(SummaryColumn.after(1)) else {
                let occurrence = OccurrenceSummary(event: summary, calendar: calendar)
                if Self.starts(occurrence.start, from: from, to: to) { found.append(occurrence) }
                continue
            }
            for (start, series) in Self.listed(summary.start, timeZone: row.text(SummaryColumn.after(0)), recurrence: recurrence,
                                               window: window, from: from, to: to, calendar: calendar) {
                found.append(OccurrenceSummary(event: summary, start: start, series: series))
            }
        }
        try found.sorted(by: OccurrenceOf.chronological).forEach(body)
    }

    private func occurrences<Item: StoredListing>(
        from: Date?, to: Date?, calendar: Calendar,
        read: (String, [String?], String, (Item) throws -> Void) throws -> Void
    ) throws -> [OccurrenceOf<Item>] {
        let (condition, values) = Self.singlesCondition(from: from, to: to)
        var found: [OccurrenceOf<Item>] = []
        try read(condition, values, "e.start_key, e.id") { event in
            let occurrence = OccurrenceOf(event: event, calendar: calendar)
            if Self.starts(occurrence.start, from: from, to: to) { found.append(occurrence) }
        }
        try expandRecurring(from: from, to: to, calendar: calendar) { event, start, series in
            found.append(OccurrenceOf(event: Item(listing: event), start: start, series: series))
        }
        return found.sorted(by: OccurrenceOf.chronological)
    }

    /// Single events whose start key may fall in `[from, to)` (widened by the span of UTC offsets),
    /// with its parameters.
    static func singlesCondition(from: Date?, to: Date?) -> (String, [String?]) {
        var conditions = ["e.recurrence IS NULL"]
        var values: [String?] = []
        if let from {
            values.append(String(Int64(from.timeIntervalSince1970.rounded(.down)) - Store.allDayLatest))
            conditions.append("e.start_key >= $\(values.count)")
        }
        if let to {
            values.append(String(Int64(to.timeIntervalSince1970.rounded(.up)) + Store.allDayEarliest))
            conditions.append("e.start_key < $\(values.count)")
        }
        return (conditions.joined(separator: " AND "), values)
    }

    static func starts(_ start: Date, from: Date?, to: Date?) -> Bool {
        (from.map { start >= $0 } ?? true) && (to.map { start < $0 } ?? true)
    }

    /// The start keys recurring events are expanded over for `[from, to)`: an open bound reaches
    /// `Store.openEndedReach` past the other.
    static func expansionWindow(from: Date?, to: Date?) -> Range<Int64> {
        let fromKey = from.map { Int64($0.timeIntervalSince1970.rounded(.down)) - Store.allDayLatest }
        let toKey = to.map { Int64($0.timeIntervalSince1970.rounded(.up)) + Store.allDayEarliest }
        let lower = fromKey ?? toKey.map { $0 - Store.openEndedReach } ?? Int64.min
        let upper = toKey ?? fromKey.map { $0 + Store.openEndedReach } ?? Int64.max
        return lower..<upper
    }

    /// The starts in `[from, to)` of a recurring event starting at `start`.
    static func starts(of start: EventStart, timeZone: String, recurrence: String, window: Range<Int64>,
                       from: Date?, to: Date?, calendar: Calendar) -> [Date] {
        RecurrenceExpander.keys(start: start, timeZone: timeZone, recurrence: recurrence, window: window).keys
            .map { Store.start(key: $0, like: start).resolved(in: calendar) }
            .filter { Self.starts($0, from: from, to: to) }
    }

    /// What a recurring event contributes to a listing of `[from, to)` (see `SeriesReach`): every
    /// start in a bounded window; with an open end its next start; with an open start every start of
    /// the reach before `to`, or its last before that. A start listed for its series carries the rule.
    static func listed(_ start: EventStart, timeZone: String, recurrence: String, window: Range<Int64>,
                       from: Date?, to: Date?, calendar: Calendar) -> [(start: Date, series: String?)] {
        if let once = SeriesReach.once(start: start, timeZone: timeZone, recurrence: recurrence, from: from, to: to, calendar: calendar) {
            return [(once, recurrence)]
        }
        if from != nil, to == nil { return [] }
        let starts = Self.starts(of: start, timeZone: timeZone, recurrence: recurrence, window: window,
                                 from: from, to: to, calendar: calendar)
        guard starts.isEmpty, from == nil, let to else { return starts.map { ($0, nil) } }
        let earlier = min(Date(timeIntervalSince1970: TimeInterval(window.lowerBound)), to)
        return SeriesReach.last(start: start, timeZone: timeZone, recurrence: recurrence, before: earlier, calendar: calendar)
            .map { [($0, recurrence)] } ?? []
    }

    /// Every occurrence of a recurring event starting in `[from, to)` (an open bound as `listed`
    /// reads it), unsorted: the event, the start, and the rule when the start stands for its series.
    func expandRecurring(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool = false,
                         _ body: (Event, Date, String?) throws -> Void) throws {
        let window = Self.expansionWindow(from: from, to: to)
        try stream(where: "e.recurrence IS NOT NULL" + (onlyOpen ? " AND e.open_count > 0" : ""), [], order: "e.id") { event in
            guard let recurrence = event.recurrence else { return }
            for (start, series) in Self.listed(event.start, timeZone: event.timeZone, recurrence: recurrence, window: window,
                                               from: from, to: to, calendar: calendar) {
                try body(event, start, series)
            }
        }
    }

    /// Nothing is materialised on PostgreSQL: recurring events are expanded when read.
    @discardableResult
    public func extendRecurrenceHorizon() throws -> Int { 0 }

    public func hasRecurringEvents() throws -> Bool {
        try query("SELECT EXISTS (SELECT 1 FROM events WHERE recurrence IS NOT NULL)").text(0, 0) == "t"
    }

    public func forEachRecurringOccurrence(from: Date, to: Date?, calendar: Calendar,
                                           _ body: (OccurrenceSummary) throws -> Void) throws {
        var found: [OccurrenceSummary] = []
        try expandRecurring(from: from, to: to, calendar: calendar) { event, start, series in
            found.append(OccurrenceSummary(event: EventSummary(event), start: start, series: series))
        }
        try found.sorted(by: OccurrenceOf.chronological).forEach(body)
    }

    public func expandRecurringEvents(from: Date, to: Date, calendar: Calendar, onlyOpen: Bool,
                                      include: (EventSummary) -> Bool, _ body: (EventSummary, [Date]) throws -> Bool) throws {
        guard from < to else { return }
        var events: [(EventSummary, [Date])] = []
        var index: [String: Int] = [:]
        try stream(where: "e.recurrence IS NOT NULL" + (onlyOpen ? " AND e.open_count > 0" : ""), [], order: "e.id") { event in
            let summary = EventSummary(event)
            guard include(summary) else { return }
            index[event.id] = events.count
            events.append((summary, []))
        }
        try expandRecurring(from: from, to: to, calendar: calendar, onlyOpen: onlyOpen) { event, start, _ in
            if let slot = index[event.id] { events[slot].1.append(start) }
        }
        for (summary, starts) in events { guard try body(summary, starts.sorted()) else { return } }
    }

    /// The digest's bounded queries, answered from the window's occurrences.
    public func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                                 onlyOpen: Bool, singleOnly: Bool, newest: Bool) throws -> [Occurrence] {
        guard limit > 0 else { return [] }
        var found: [Occurrence] = []
        try forEachOccurrence(from: from, to: to, calendar: calendar) { occurrence in
            if onlyOpen, occurrence.event.badge == 0 { return }
            if singleOnly, occurrence.event.recurrence != nil { return }
            found.append(occurrence)
        }
        return Array(newest ? found.suffix(limit) : found.prefix(limit))
    }

    /// Single events: the SQLite store's SQL (`ExactWindow.cappedOpenCounts`, the same rows in the
    /// same order under the same cap); with recurring ones, the window's occurrences in order.
    public func totals(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool, singleOnly: Bool, cap: Int) throws -> WindowTotals {
        let limit = min(cap, Int(Int64.max - 1)) + 1
        var counts: [Int] = []
        if singleOnly {
            let window = ExactWindow(from: from, to: to, calendar: calendar)
            let sql = ExactWindow.numbered(ExactWindow.cappedOpenCounts(window.condition, onlyOpen: onlyOpen, singleOnly: true,
                                                                         limit: "?", binaryOrder: " COLLATE \"C\""))
            let rows = try query(sql, window.keys.map(String.init) + [String(limit)])
            counts = (0..<rows.count).map { rows.int($0, 0) }
        } else {
            try forEachOccurrence(from: from, to: to, calendar: calendar) { occurrence in
                guard counts.count < limit, !onlyOpen || occurrence.event.badge > 0 else { return }
                counts.append(occurrence.event.badge)
            }
        }
        return WindowTotals(capping: counts, cap: cap)
    }

    public func hasOccurrence(from: Date?, to: Date?, calendar: Calendar, singleOnly: Bool) throws -> Bool {
        try totals(from: from, to: to, calendar: calendar, onlyOpen: false, singleOnly: singleOnly, cap: 1).events > 0
    }
}

/// Recurrence limits, found by expanding over the horizon as the SQLite store materialises it.
extension PostgresStore {
    public func recurrenceLimit(of event: Event) throws -> RecurrenceLimit? {
        guard let recurrence = event.recurrence else { return nil }
        if let refusal = RecurrenceExpander.problem(rule: recurrence) {
            return RecurrenceLimit(eventID: event.id, title: event.title, lastKept: nil, refusal: refusal)
        }
        let keys = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                                           window: Store.horizonKeys(for: event, horizon: recurrenceHorizon)).keys
        guard keys.count >= RecurrenceExpander.cap, let last = keys.last else { return nil }
        return RecurrenceLimit(eventID: event.id, title: event.title, lastKept: Store.start(key: last, like: event.start), refusal: nil)
    }

    public func truncatedRecurrences() throws -> [RecurrenceLimit] {
        try recurrenceLimits().filter { $0.refusal == nil }
    }

    public func recurrenceLimits() throws -> [RecurrenceLimit] {
        var limits: [RecurrenceLimit] = []
        try stream(where: "e.recurrence IS NOT NULL", [], order: "e.id") { event in
            if let limit = try recurrenceLimit(of: event) { limits.append(limit) }
        }
        return limits.sorted { ($0.title, $0.eventID) < ($1.title, $1.eventID) }
    }

    public func timedEventZones() throws -> [String] {
        try query("SELECT DISTINCT time_zone FROM events WHERE all_day = 0").all.map { $0.text(0) }
    }
}
