import DatebookCore
import DatebookICal
import Foundation

/// Recurring events in the agenda: one strategy on both databases, so the same SQL answers the
/// same questions (and another program reading the database sees the occurrences).
///
/// Design: when a recurring event is saved, its occurrences inside `recurrenceHorizon` (the CLI
/// sets now − 7 days … now + 92 days) are materialised into `occurrences(event_id, start_key)`,
/// and `recurrence_spans` records which key range that covers. A listing then reads the
/// materialised rows with one indexed range query, and expands on the fly (bounded by
/// `RecurrenceExpander.cap` per event) only for events whose span does not cover the window
/// asked for. Non-recurring events keep their own fast path in `forEachOccurrence`; the two
/// streams are merged in chronological order. An open-ended window lists each series once beyond
/// the near periods (`SeriesReach`): Future at its next occurrence, Past, beyond `SeriesReach.openEndedReach`,
/// at its last.
extension Store {
    /// The materialisation window of a store whose `recurrenceHorizon` is `horizon`; with no
    /// horizon, the first 92 days from the event's start.
    static func horizonKeys(for event: borrowing Event, horizon: DateInterval?) -> Range<Int64> {
        if let horizon {
            return Int64(horizon.start.timeIntervalSince1970) - EventStart.allDayLatest
                ..< Int64(horizon.end.timeIntervalSince1970) + EventStart.allDayEarliest
        }
        let start = event.start.occurrenceKey
        return start ..< start + 92 * 86_400
    }

    /// The `recurrence_spans` row of `event`, whose occurrences in `window` are `keys`.
    ///
    /// The span covers the whole window even when the keys stop at `RecurrenceExpander.cap`: the
    /// event is then truncated (`recurrenceLimit(of:)`), and no later command expands it again.
    /// A span ending at the last key made every listing, `add` and `tick` re-expand such a rule.
    static func spanRow(_ event: Event, window: Range<Int64>, keys: [Int64], into row: inout some RowSink) {
        // A span starting at or before the event's first start covers everything before it too.
        let startKey = event.start.occurrenceKey
        row.text(event.id)
        row.integer(window.lowerBound <= startKey ? Int64.min : window.lowerBound)
        row.integer(window.upperBound)
    }
}

/// Stops a `run` whose rows past this one are not needed (caught by the caller that threw it).
struct EnoughRows: Error {}

extension SQLStore {
    /// Default materialisation window when no horizon is set: the first 92 days from the start.
    func horizonKeys(for event: borrowing Event) -> Range<Int64> {
        Store.horizonKeys(for: event, horizon: recurrenceHorizon)
    }

    /// Replaces the materialised occurrences of `event` (none when it does not recur). `expanded`:
    /// its keys for `horizonKeys(for:)`, when a bulk load expanded them already.
    func writeOccurrences(_ event: Event, expanded: [Int64]? = nil) throws {
        // Take the state out while changing it, so the set is not copied on every insert.
        var rows = try occurrenceRows ?? OccurrenceRows(before: first("SELECT 1 FROM recurrence_spans LIMIT 1") { _ in true } ?? false)
        occurrenceRows = nil
        defer { occurrenceRows = rows }
        if event.recurrence == nil, !rows.before, !rows.written.contains(event.id) { return }
        if event.recurrence != nil { rows.written.insert(event.id) }
        try run("DELETE FROM occurrences WHERE event_id = $1", .text(event.id))
        try run("DELETE FROM recurrence_spans WHERE event_id = $1", .text(event.id))
        guard let recurrence = event.recurrence else { return }
        let window = horizonKeys(for: event)
        let keys = expanded ?? RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone,
                                                       recurrence: recurrence, window: window).keys
        for key in keys {
            try run("INSERT INTO occurrences (event_id, start_key) VALUES ($1, $2) ON CONFLICT DO NOTHING", .text(event.id), .integer(key))
        }
        var span = ValueList()
        Store.spanRow(event, window: window, keys: keys, into: &span)
        try run("INSERT INTO recurrence_spans (event_id, from_key, to_key) VALUES ($1, $2, $3)", span.values, row: { _ in })
    }

    /// Re-materialises every recurring event for the current `recurrenceHorizon` (one transaction);
    /// the scheduler may call this once a day so listings stay on the fast path.
    public func rematerializeRecurrences() throws {
        var recurring: [Event] = []
        try stream(where: "e.recurrence IS NOT NULL", [], order: "e.id") { recurring.append($0) }
        try transaction { for event in recurring { try writeOccurrences(event) } }
    }

    /// Re-materialises the recurring events whose span ends within 30 days of the horizon's end, so
    /// listings of the coming weeks stay on the fast path as time passes, and materialises those
    /// that have none (a PostgreSQL store upgraded from schema 11 had no occurrence rows), and
    /// those whose rules an older datebook expanded differently (`expansionChanges`). Cheap when
    /// nothing is stale (one scan of `recurrence_spans`, two counts, one `meta` row); the CLI calls
    /// it whenever it opens the store for writing.
    @discardableResult
    public func extendRecurrenceHorizon() throws -> Int {
        guard let horizon = recurrenceHorizon else { return 0 }
        let limit = Int64(horizon.end.timeIntervalSince1970) - 30 * 86_400
        let stale = try first("SELECT 1 FROM recurrence_spans WHERE to_key < $1 LIMIT 1", [.integer(limit)]) { _ in true } ?? false
        let expanded = try first("SELECT value FROM meta WHERE name = 'expansion'") { $0.int64(0) } ?? 1
        let changed = Self.expansionChanges.filter { $0.version > expanded }.map { "(\($0.rules))" }
        guard try stale || !changed.isEmpty || spanCount() != recurringCount() else { return 0 }
        var events: [Event] = []
        try stream(where: "e.recurrence IS NOT NULL AND (e.id IN (SELECT event_id FROM recurrence_spans WHERE to_key < $1) "
                   + "OR NOT EXISTS (SELECT 1 FROM recurrence_spans s WHERE s.event_id = e.id)"
                   + changed.map { " OR " + $0 }.joined() + ")",
                   [.integer(limit)], order: "e.id") { events.append($0) }
        try transaction {
            for event in events { try writeOccurrences(event) }
            guard let latest = Self.expansionChanges.last?.version, latest > expanded else { return }
            // Occurrences may have come or gone: a pass looks back for their alerts, as after an edit.
            try run(ChangedEventsSQL.queue, shared: [], events.map(\.id), values: { [.text($0)] })
            try run("INSERT INTO meta (name, value) VALUES ('expansion', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                    .integer(latest))
        }
        return events.count
    }

    /// The rules whose expansion a datebook release changed (an SQL condition on `e.recurrence`,
    /// matching them and perhaps a few others), by the expansion version that changed them. A store
    /// records in `meta` the version it was last materialised by (none: 1).
    static var expansionChanges: [(version: Int64, rules: String)] {
        // 2: BYSETPOS, a negative BYMONTHDAY and a WEEKLY rule's INTERVAL, applied by datebook where
        // libical 3.0 got them wrong (`RuleLimits`).
        // 3: a YEARLY rule's BYWEEKNO, and its BYYEARDAY beside BYMONTH or BYMONTHDAY (the same); BYDAY
        // ordinals of a DAILY or HOURLY rule, dropped as RFC 5545 forbids them (`withoutForbiddenOrdinals`).
        [(2, "upper(e.recurrence) LIKE '%BYSETPOS=%' OR upper(e.recurrence) LIKE '%BYMONTHDAY=%-%' "
            + "OR (upper(e.recurrence) LIKE '%WEEKLY%' AND upper(e.recurrence) LIKE '%INTERVAL=%')"),
         (3, "upper(e.recurrence) LIKE '%BYWEEKNO=%' OR upper(e.recurrence) LIKE '%BYYEARDAY=%' "
            + "OR (upper(e.recurrence) LIKE '%BYDAY=%' AND (upper(e.recurrence) LIKE '%DAILY%' OR upper(e.recurrence) LIKE '%HOURLY%'))")]
    }

    /// The number of materialised spans: one per recurring event once all are materialised (a save
    /// deletes an event's span before writing a new one, and deleting the event cascades).
    func spanCount() throws -> Int64 {
        try first(Self.spanCountSQL) { $0.int64(0) } ?? 0
    }

    static var spanCountSQL: String { "SELECT count(*) FROM recurrence_spans" }

    func recurringCount() throws -> Int64 {
        try first("SELECT count(*) FROM events e\(dialect.recurringListing) WHERE e.recurrence IS NOT NULL") { $0.int64(0) } ?? 0
    }

    /// The end keys of all materialised spans (tests).
    func spanEnds() throws -> [Int64] {
        try rows("SELECT to_key FROM recurrence_spans ORDER BY event_id\(dialect.byteOrder)") { $0.int64(0) }
    }

    /// Occurrences of recurring events starting in `[from, to)`, sorted chronologically.
    func recurringOccurrences(from: Date?, to: Date?, calendar: Calendar) throws -> SortedOccurrences<Event> {
        try sortedRecurring(from: from, to: to, calendar: calendar, materialised: materialisedEvents) { body in
            try stream(where: "e.recurrence IS NOT NULL", [], order: "e.id") { try body($0, $0.timeZone, $0.recurrence ?? "") }
        }
    }

    /// Like `recurringOccurrences`, as listing summaries (task counts, no tasks).
    func recurringSummaries(from: Date?, to: Date?, calendar: Calendar) throws -> SortedOccurrences<EventSummary> {
        try sortedRecurring(from: from, to: to, calendar: calendar, materialised: materialisedSummaries) { body in
            // The summary's columns and the two expansion needs, no tasks: reading whole events
            // (10k series with their tasks) was most of the digest's Future besides the expansions.
            try run("SELECT \(SummaryColumn.selectList), e.time_zone, e.recurrence FROM events e\(dialect.recurringListing) "
                    + "WHERE e.recurrence IS NOT NULL", []) { row in
                try body(Store.summary(from: row), row.text(SummaryColumn.after(0)), row.text(SummaryColumn.after(1)))
            }
        }
    }

    /// `series`: passes every recurring event to its body as the listing item, its zone and its
    /// recurrence (for the open-ended periods, which look at each series once).
    private func sortedRecurring<Item: StoredListing>(
        from: Date?, to: Date?, calendar: Calendar, materialised: (Int64, Int64) throws -> RecurringFound<Item>,
        series: ((Item, String, String) throws -> Void) throws -> Void
    ) throws -> SortedOccurrences<Item> {
        // Future: each series once, at its first occurrence however far (`SeriesReach`).
        if let from, to == nil {
            var found = RecurringFound<Item>()
            var once: [(start: Date, index: Int)] = []
            let near = try nextMaterialised(atOrAfter: from, calendar: calendar)
            try series { event, timeZone, rule in
                guard let start = near[event.id] ?? SeriesReach.first(start: event.start, timeZone: timeZone, recurrence: rule,
                                                                       atOrAfter: from, calendar: calendar) else { return }
                let index = found.remember(event)
                found.rules[index] = rule
                once.append((start, index))
            }
            return Store.sorted(found, once)
        }
        let fromKey = from.map { EventStart.lowestKey(from: $0) }
        let toKey = to.map { EventStart.keyBound(to: $0) }
        let lower = fromKey ?? toKey.map { $0 - SeriesReach.openEndedReach } ?? Int64.min
        let upper = toKey ?? fromKey.map { $0 + SeriesReach.openEndedReach } ?? Int64.max
        var found = try materialised(lower, upper)
        try expandUncovered(into: &found, lower, upper)
        var starts: [(start: Date, index: Int)] = []
        starts.reserveCapacity(found.keys.count)
        for (index, key) in found.keys {
            let start = EventStart(key: key, like: found.events[index].start).resolved(in: calendar)
            if let from, start < from { continue }
            if let to, start >= to { continue }
            starts.append((start, index))
        }
        // Past: a series with no occurrence in the last year shows its last one, however long ago.
        if from == nil, let to {
            let earlier = Date(timeIntervalSince1970: TimeInterval(lower))
            let listed = Set(starts.map { found.events[$0.index].id })
            try series { event, timeZone, rule in
                guard !listed.contains(event.id),
                      let start = SeriesReach.last(start: event.start, timeZone: timeZone, recurrence: rule,
                                                   before: min(earlier, to), calendar: calendar) else { return }
                let index = found.remember(event)
                found.rules[index] = rule
                starts.append((start, index))
            }
        }
        return Store.sorted(found, starts)
    }

    /// Each recurring event's first start at or after `from`, where its materialised rows answer
    /// it: its span begins before any key that can start at or after `from`, and it holds one. The
    /// others (a series ended before, or next occurring past its span) are left to `SeriesReach`.
    ///
    /// One index probe per span instead of an expansion per series: the digest's Future rows
    /// expanded every series and were 69 % of a digest's time (issue 33).
    func nextMaterialised(atOrAfter from: Date, calendar: Calendar) throws -> [String: Date] {
        let lower = EventStart.lowestKey(from: from)
        var found: [String: Date] = [:]
        try run("""
            SELECT s.event_id, e.all_day, (SELECT min(o.start_key) FROM occurrences o WHERE o.event_id = s.event_id AND o.start_key >= $1)
            FROM recurrence_spans s JOIN events e ON e.id = s.event_id WHERE s.from_key <= $1
            """, [.integer(lower)]) { row in
            guard !row.isNull(2) else { return }
            // Keys below `lower` start before `from`; of the others the least starts first.
            let start = EventStart(key: row.int64(2), kind: row.int(1)).resolved(in: calendar)
            if start >= from { found[row.text(0)] = start }
        }
        return found
    }

    /// Fully loaded recurring events with materialised occurrences in `[lower, upper)`, and the
    /// events whose span does not cover that window (or that have none yet).
    private func materialisedEvents(_ lower: Int64, _ upper: Int64) throws -> RecurringFound<Event> {
        var found = RecurringFound<Event>()
        let ids = try rows("SELECT event_id, start_key FROM occurrences WHERE start_key >= $1 AND start_key < $2",
                           [.integer(lower), .integer(upper)]) { ($0.text(0), $0.int64(1)) }
        if !ids.isEmpty {
            try stream(where: "e.recurrence IS NOT NULL AND e.id IN (SELECT event_id FROM occurrences WHERE start_key >= $1 AND start_key < $2)",
                       [.integer(lower), .integer(upper)], order: "e.id") { found.remember($0) }
        }
        for (id, key) in ids { if let index = found.slot[id] { found.keys.append((index, key)) } }
        try run("""
            SELECT e.id, s.from_key, s.to_key FROM events e LEFT JOIN recurrence_spans s ON s.event_id = e.id
            WHERE e.recurrence IS NOT NULL AND (s.event_id IS NULL OR s.from_key > $1 OR s.to_key < $2)
            """, [.integer(lower), .integer(upper)]) { row in
            let covered = row.isNull(1) ? (Int64.max, Int64.max) : (row.int64(1), row.int64(2))
            found.uncovered.append((row.text(0), covered.0, covered.1))
        }
        return found
    }

    /// The listing path: summaries of the recurring events with materialised occurrences in
    /// `[lower, upper)`. One range scan of `occurrences_by_start` collects the keys by event id,
    /// kept as bytes; one pass over the covering index of recurring events then matches them. Both
    /// are sequential reads, and no id becomes a String unless its event occurs.
    private func materialisedSummaries(_ lower: Int64, _ upper: Int64) throws -> RecurringFound<EventSummary> {
        var found = RecurringFound<EventSummary>()
        var byID = KeysByID()
        // Recurring events, counted by the pass below when it runs.
        var recurringCount: Int64?
        let window: [SQLValue] = [.integer(lower), .integer(upper)]
        let occurrences = "SELECT event_id, start_key FROM occurrences WHERE start_key >= $1 AND start_key < $2"
        let summaries = "SELECT \(SummaryColumn.selectList) FROM events e\(dialect.recurringListing) WHERE e.recurrence IS NOT NULL"
        // Spans that fall short of the window: usually none, so the database filters them.
        let short = "SELECT event_id, from_key, to_key FROM recurrence_spans WHERE from_key > $1 OR to_key < $2"
        sendAhead([(occurrences, window), (summaries, []), (short, window), (Self.spanCountSQL, [])])
        try run(occurrences, window) { row in
            let key = row.int64(1)
            row.withTextBytes(0) { byID.add(key, id: $0) }
        }
        if !byID.isEmpty {
            found.keys.reserveCapacity(byID.count)
            recurringCount = 0
            try run(summaries, []) { row in
                recurringCount? += 1
                guard let first = row.withTextBytes(SummaryColumn.id.index, { byID.first(id: $0) }) else { return }
                found.events.append(Store.summary(from: row))
                let index = found.events.count - 1
                row.withTextBytes(SummaryColumn.id.index) { id in byID.forEachKey(id: id, from: first) { found.keys.append((index, $0)) } }
            }
        }
        try run(short, window) { found.uncovered.append(($0.text(0), $0.int64(1), $0.int64(2))) }
        // Equal counts mean every recurring event has a span (see `spanCount`).
        guard try spanCount() != (recurringCount ?? self.recurringCount()) else { return found }
        // Some recurring events have no span yet (never materialised): find them.
        try run("""
            SELECT e.id FROM events e WHERE e.recurrence IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM recurrence_spans s WHERE s.event_id = e.id)
            """, []) { found.uncovered.append(($0.text(0), Int64.max, Int64.max)) }
        return found
    }

    /// Expands, in their own zones, the events whose materialised span does not cover the window,
    /// adding the occurrences the span does not hold.
    private func expandUncovered<Item: StoredListing>(into found: inout RecurringFound<Item>, _ lower: Int64, _ upper: Int64) throws {
        guard !found.uncovered.isEmpty else { return }
        if found.slot.isEmpty {
            for (index, event) in found.events.enumerated() { found.slot[event.id] = index }
        }
        for (id, coveredFrom, coveredTo) in found.uncovered {
            // Expansion needs the rule and zone, which a listing summary does not carry.
            let cached = found.slot[id].flatMap { found.events[$0] as? Event }
            guard let event = try cached ?? self.event(id: id), let recurrence = event.recurrence else { continue }
            let (keys, _) = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone,
                                                    recurrence: recurrence, window: lower..<upper)
            let index = found.remember(Item(listing: event))
            for key in keys where !(key >= coveredFrom && key < coveredTo) { found.keys.append((index, key)) }
        }
    }
}

extension Store {
    /// Sorts light (start, event index) pairs; occurrences are built one at a time as they are
    /// emitted: sorting or collecting Occurrence values copies whole events around.
    fileprivate static func sorted<Item: StoredListing>(_ found: RecurringFound<Item>, _ starts: [(start: Date, index: Int)])
        -> SortedOccurrences<Item> {
        let list = found.events
        var starts = starts
        starts.sort { a, b in
            if a.start != b.start { return a.start < b.start }
            if a.index == b.index { return false }
            let x = list[a.index], y = list[b.index]
            return x.title != y.title ? x.title < y.title : x.id < y.id
        }
        return SortedOccurrences(events: list, starts: starts, rules: found.rules)
    }
}

/// Recurring events found for a window: each event once, its occurrences by index.
fileprivate struct RecurringFound<Item: EventListing> {
    var events: [Item] = []
    var keys: [(index: Int, key: Int64)] = []
    /// id → index in `events`; filled only where lookups by id are needed.
    var slot: [String: Int] = [:]
    var uncovered: [(id: String, from: Int64, to: Int64)] = []
    /// Rules of the events listed once for their whole series, by index.
    var rules: [Int: String] = [:]

    @discardableResult
    mutating func remember(_ event: Item) -> Int {
        if let index = slot[event.id] {
            events[index] = event
            return index
        }
        slot[event.id] = events.count
        events.append(event)
        return events.count - 1
    }
}
