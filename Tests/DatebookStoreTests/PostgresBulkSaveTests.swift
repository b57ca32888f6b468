@testable import DatebookStore
import DatebookCore
import DatebookTestSupport
import Foundation
import Testing

/// A save through COPY (`writeInBulk`) leaves the same store as one written event by event.
struct PostgresBulkSaveTests {
    static func event(_ n: Int, title: String, tasks: Int) -> Event {
        var event = Event(id: String(format: "%016x", n), title: title,
                          start: .instant(Date(timeIntervalSince1970: 1_796_000_000 + TimeInterval(n) * 3_600)),
                          timeZone: "Europe/Berlin", symbol: n % 2 == 0 ? .house : .ticket, color: n % 3 == 0 ? .red : .mint)
        event.notes = n % 3 == 0 ? "line\twith tab\nand \\ backslash" : ""
        event.location = n % 4 == 0 ? "Room \(n)" : ""
        event.recurrence = n % 10 == 0 ? "FREQ=WEEKLY;COUNT=4" : nil
        event.alerts = n % 5 == 0 ? [LeadTime(seconds: 900)] : []
        event.tasks = (0..<tasks).map { EventTask(id: "t\($0)", text: "Task \($0) of \(title)", status: $0 % 2 == 0 ? .todo : .done) }
        return event
    }

    /// 150 events, then 100 again (50 known with other titles and fewer or more tasks, 50 new,
    /// one id twice in the batch), then 100 of those once more: 80 the same, 20 with a task done.
    static let batches: [[Event]] = [
        (1...150).map { event($0, title: "First \($0)", tasks: $0 % 4) },
        (100...199).map { event($0, title: "Second \($0)", tasks: ($0 + 1) % 3) } + [event(120, title: "Last of two", tasks: 2)],
        (100...199).map { n in
            var same = n == 120 ? event(120, title: "Last of two", tasks: 2) : event(n, title: "Second \(n)", tasks: (n + 1) % 3)
            if n >= 180 { same.tasks = same.tasks.map { EventTask(id: $0.id, text: $0.text, status: .done) } }
            return same
        },
    ]

    func contents(_ store: PostgresStore) throws -> [String] {
        var events: [String] = []
        try store.forEachEvent { events.append("\($0)") }
        let tasks = try store.query("SELECT event_id, position, id, text, status FROM tasks ORDER BY event_id, position").all
            .map { row in (0..<5).map { row.text(Int32($0)) }.joined(separator: "|") }
        return events + tasks + ["\(try store.sourceUIDs().sorted { $0.key < $1.key })"]
    }

    /// The schema's indexes and constraints, with its name taken out.
    func definitions(_ store: PostgresStore) throws -> [String] {
        let indexes = try store.query("SELECT indexname, replace(indexdef, $1, '') FROM pg_indexes WHERE schemaname = $2 ORDER BY 1",
                                      [store.schema + ".", store.schema]).all
        let constraints = try store.query("""
            SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE n.nspname = $1 ORDER BY 1
            """, [store.schema]).all
        return (indexes + constraints).map { $0.text(0) + " " + $0.text(1) }
    }

    @Test func copyAndRowPathsGiveTheSameStore() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let rows = try PostgresStore(url: url + "?schema=rows"), bulk = try PostgresStore(url: url + "?schema=bulk")
        for batch in Self.batches {
            let uids = Dictionary(batch.map { ($0.id, "uid-\($0.title)") }, uniquingKeysWith: { $1 })
            try rows.transaction {
                for event in batch { try rows.write(event) }
                for event in batch {
                    try rows.query("INSERT INTO event_sources VALUES ($1, 'import', $2) ON CONFLICT (event_id) DO UPDATE SET uid = excluded.uid",
                                   [event.id, uids[event.id]])
                }
            }
            try bulk.saveImport(ICSImport(events: batch, uids: uids, warnings: []), calendar: "import")
        }
        let expected = try contents(rows)
        #expect(expected.count > 250)
        #expect(expected.contains { $0.contains("Last of two") })
        #expect(expected.contains { $0.hasPrefix("00000000000000b4|0|t0|Task 0 of Second 180|done") }, "\(expected.suffix(5))")
        #expect(try contents(bulk) == expected)
        #expect(try bulk.eventCount() == 199)
        // The first batch went into an empty store without its foreign keys and indexes: all are back.
        let schema = try definitions(rows)
        #expect(schema.contains("tasks_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE"), "\(schema)")
        #expect(schema.contains { $0.hasPrefix("events_by_start CREATE INDEX") })
        #expect(try definitions(bulk) == schema)
    }
}
