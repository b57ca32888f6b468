import DatebookCore
import Foundation

/// Bulk writes on PostgreSQL through `COPY … FROM STDIN`.
///
/// A save of `copyThreshold` or more events (an import, a feed refresh, `store copy`) sends its
/// rows with COPY into temporary tables, then upserts them with one statement each: a few round
/// trips instead of three per event. It leaves the same store as writing each event with `write`:
/// events are upserted by id (the last of two with one id wins), their tasks replaced. The rows
/// come from `Store.eventRow`/`Store.taskRow`, so a new `EventColumn` reaches this path too.
extension PostgresStore {
    /// Saves of fewer events are written row by row (fewer statements for one `add`).
    static let copyThreshold = 64

    static let eventColumnList = EventColumn.allCases.map(\.name).joined(separator: ", ")
    static let taskColumnList = TaskColumn.allCases.map(\.name).joined(separator: ", ")

    /// COPYs `events` (each id once) into `eventsTable` and their tasks into `tasksTable`.
    ///
    /// Events go in by start (`start_key`, then id), so the rows an agenda range reads sit on few
    /// heap pages: a 30-day listing of 100k events read 50 pages in start order against 1,369 in id
    /// order (1.7 against 6.6 ms on the server). Tasks go in by event id (`Store.idOrder`), so their
    /// primary key grows at its right edge: 300k tasks took 0.6 s in id order, 1.6 s in start order.
    func copyRows(of events: [Event], events eventsTable: String, tasks tasksTable: String) throws {
        let starts = events.map { $0.start.occurrenceKey }
        let byStart = events.indices.sorted { (starts[$0], events[$0].id) < (starts[$1], events[$1].id) }
        try wrap {
            try connection.copy(into: eventsTable, columns: EventColumn.allCases.map(\.name), rows: byStart.lazy.map { index in
                var row = PostgresValues()
                Store.eventRow(events[index], into: &row)
                return row.values
            })
            try connection.copy(into: tasksTable, columns: TaskColumn.allCases.map(\.name),
                                rows: Store.idOrder(events).lazy.flatMap { index in
                let event = events[index]
                return event.tasks.enumerated().lazy.map { position, task in
                    var row = PostgresValues()
                    Store.taskRow(event.id, position, task, into: &row)
                    return row.values
                }
            })
        }
    }

    /// Upserts `events` and replaces their tasks through COPY, inside the caller's transaction.
    /// Into a store with no events the rows go straight into the tables (`withoutPlannerChecks`).
    func writeInBulk(_ events: [Event]) throws {
        let unique = Self.lastOfEachID(events)
        if try query("SELECT EXISTS (SELECT 1 FROM events)").text(0, 0) == "f" {
            try withoutPlannerChecks { try copyRows(of: unique, events: "events", tasks: "tasks") }
            return try copyOccurrences(of: unique, replacing: false)
        }
        try wrap {
            try connection.execute("""
                CREATE TEMP TABLE incoming_events (LIKE events INCLUDING DEFAULTS) ON COMMIT DROP;
                CREATE TEMP TABLE incoming_tasks (LIKE tasks INCLUDING DEFAULTS) ON COMMIT DROP
                """)
        }
        try copyRows(of: unique, events: "incoming_events", tasks: "incoming_tasks")
        try wrap { try connection.execute(Self.mergeIncomingSQL) }
        try copyOccurrences(of: unique, replacing: true)
    }

    /// The materialised occurrences and spans of `events` (each id once), as `writeOccurrences`
    /// writes them one event at a time (SQLStore+Occurrences.swift), through COPY; `replacing`:
    /// their old rows are deleted first.
    func copyOccurrences(of events: [Event], replacing: Bool) throws {
        if replacing {
            let ids = [Self.arrayLiteral(events.map(\.id))]
            try query("DELETE FROM occurrences WHERE event_id = ANY($1::text[])", ids)
            try query("DELETE FROM recurrence_spans WHERE event_id = ANY($1::text[])", ids)
        }
        let recurring = events.compactMap { event in
            OccurrenceExpansions.Job(event, horizon: recurrenceHorizon).map { (event, horizonKeys(for: event), $0.keys) }
        }
        occurrenceRows = nil
        guard !recurring.isEmpty else { return }
        try wrap {
            try connection.copy(into: "occurrences", columns: ["event_id", "start_key"], rows: recurring.lazy.flatMap { event, _, keys in
                Set(keys).lazy.map { [event.id, String($0)] }
            })
            try connection.copy(into: "recurrence_spans", columns: ["event_id", "from_key", "to_key"], rows: recurring.lazy.map { event, window, keys in
                var row = PostgresValues()
                Store.spanRow(event, window: window, keys: keys, into: &row)
                return row.values
            })
        }
    }

    /// Merges the incoming tables into the store, writing only what differs: an event row whose
    /// columns are all the same is not updated, a task row the same in both is neither deleted nor
    /// inserted again. The result is that of replacing every row; a re-import of 100k unchanged
    /// events took 1.4 s this way against 9.4 s (each new row version means an entry in every
    /// index, and each inserted task a foreign-key check).
    static let mergeIncomingSQL: String = {
        let updated = EventColumn.allCases.filter { $0 != .id }.map(\.name)
        let tasks = TaskColumn.allCases.map(\.name)
        func tuple(_ alias: String, _ names: [String]) -> String { "(" + names.map { alias + "." + $0 }.joined(separator: ", ") + ")" }
        return """
            INSERT INTO events (\(eventColumnList)) SELECT \(eventColumnList) FROM incoming_events \(EventColumn.upsertTail)
                WHERE \(tuple("events", updated)) IS DISTINCT FROM \(tuple("excluded", updated));
            DELETE FROM tasks t USING incoming_events i WHERE t.event_id = i.id
                AND NOT EXISTS (SELECT 1 FROM incoming_tasks n WHERE \(tuple("n", tasks)) = \(tuple("t", tasks)));
            INSERT INTO tasks (\(taskColumnList)) SELECT \(taskColumnList) FROM incoming_tasks n
                WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.event_id = n.event_id AND t.position = n.position);
            DROP TABLE incoming_events, incoming_tasks
            """
    }()

    /// Runs `body`, which fills the planner tables of an empty store, with their foreign keys and
    /// secondary indexes dropped, then re-creates each from its own definition, all in the caller's
    /// transaction (a failure rolls the drops back with the rows).
    ///
    /// A foreign key is checked by a trigger per inserted row (a lookup of the event): for 300k
    /// tasks that was 5.5 of a 100k-event copy's 8 s. Added back, it is checked by one join; an
    /// index built after the load is one sort. Only the tables' owner may alter them; for another
    /// role `body` runs with the checks in place.
    func withoutPlannerChecks<T>(_ body: () throws -> T) throws -> T {
        let tables = "('events'::regclass, 'tasks'::regclass, 'event_sources'::regclass)"
        let owner = try query("SELECT bool_and(pg_has_role(relowner, 'MEMBER')) FROM pg_class WHERE oid IN \(tables)")
        guard owner.count > 0, owner.text(0, 0) == "t" else { return try body() }
        let foreignKeys = try query("""
            SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname),
                   format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
            FROM pg_constraint WHERE contype = 'f' AND conrelid IN \(tables) ORDER BY conname
            """).all.map { ($0.text(0), $0.text(1)) }
        let indexes = try query("""
            SELECT format('DROP INDEX %s', indexrelid::regclass), pg_get_indexdef(indexrelid)
            FROM pg_index WHERE indrelid IN \(tables) AND NOT indisprimary AND NOT indisunique ORDER BY indexrelid
            """).all.map { ($0.text(0), $0.text(1)) }
        try wrap { try connection.execute((foreignKeys + indexes).map(\.0).joined(separator: ";\n")) }
        let result = try body()
        try wrap { try connection.execute((indexes + foreignKeys).map(\.1).joined(separator: ";\n")) }
        return result
    }

    /// Saves imported events and the iCalendar UID each came from, in one transaction.
    public func saveImport(_ result: ICSImport, calendar: String, progress: (Int) -> Void) throws {
        try transaction {
            try save(result.events, progress: progress)
            try saveSources(of: result.events, uids: result.uids, calendar: calendar)
        }
    }

    /// One transaction around the batches; each is saved as a whole import is (COPY into the
    /// tables while they are empty, then through the merge of `writeInBulk`).
    public func importTransaction<T>(expected: Int, _ body: () throws -> T) throws -> T {
        try transaction(body)
    }

    public func saveImportBatch(_ batch: ICSImport, calendar: String, rewritten: Set<String>, progress: (Int) -> Void) throws {
        try saveImport(batch, calendar: calendar, progress: progress)
    }

    /// Records the iCalendar UID each event came from (`uids` by event id), replacing older ones.
    func saveSources(of events: [Event], uids: [String: String], calendar: String) throws {
        let sourced = Self.lastOfEachID(events).filter { uids[$0.id] != nil }
        let upsert = "ON CONFLICT (event_id) DO UPDATE SET calendar = excluded.calendar, uid = excluded.uid"
        guard sourced.count >= Self.copyThreshold else {
            for event in sourced {
                try query("INSERT INTO event_sources (event_id, calendar, uid) VALUES ($1, $2, $3) " + upsert,
                          [event.id, calendar, uids[event.id]])
            }
            return
        }
        try wrap {
            try connection.execute("CREATE TEMP TABLE incoming_sources (LIKE event_sources) ON COMMIT DROP")
            try connection.copy(into: "incoming_sources", columns: ["event_id", "calendar", "uid"],
                                rows: sourced.lazy.map { [$0.id, calendar, uids[$0.id]] })
            try connection.execute("""
                INSERT INTO event_sources (event_id, calendar, uid) SELECT event_id, calendar, uid FROM incoming_sources \(upsert);
                DROP TABLE incoming_sources
                """)
        }
    }

    /// `events` with only the last of each id (an upsert statement may touch a row once).
    static func lastOfEachID(_ events: [Event]) -> [Event] {
        var seen = Set<String>(minimumCapacity: events.count)
        var kept: [Event] = []
        kept.reserveCapacity(events.count)
        for event in events.reversed() where seen.insert(event.id).inserted { kept.append(event) }
        return kept.count == events.count ? events : kept.reversed()
    }
}
