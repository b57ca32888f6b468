import DatebookCore
import Foundation

/// How PostgreSQL writes events: row by row, or through COPY (PostgresStore+Copy.swift). Rows are
/// made by `Store.eventRow`/`Store.taskRow`, so a new `EventColumn` reaches both backends at once;
/// everything else about events is written once (SQLStore+Events.swift).
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
            let before = try calDAVEditBase(events)
            for (index, event) in events.enumerated() {
                try write(event)
                if (index + 1) % 1_000 == 0 { progress(index + 1) }
            }
            try recordCalDAVEdits(events, replacing: before)
        }
        progress(events.count)
    }

    /// Upserts the events row, then replaces its tasks with one multi-row insert.
    func writeRows(_ event: Event) throws {
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
}
