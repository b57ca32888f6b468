import DatebookCore
import Foundation

/// How SQLite writes events: a large batch in bulk (Store+BulkLoad.swift), else row by row through
/// statements kept by their literal's address; everything else about events is written once
/// (SQLStore+Events.swift).
extension Store {
    /// Inserts or replaces events (with their tasks) in one transaction; `progress(done)` after each batch.
    public func save(_ events: [Event], progress: (Int) -> Void = { _ in }) throws {
        try bulkTransaction(count: events.count) {
            let before = try calDAVEditBase(events)
            try writeMany(events, progress: progress)
            try recordCalDAVEdits(events, replacing: before)
        }
        progress(events.count)
    }

    /// Upserts the events row, then replaces its tasks, one prepared statement per row.
    func writeRows(_ event: Event) throws {
        try wrap {
            try statement(literal: "DELETE FROM tasks WHERE event_id = ?").bind(.text(event.id)).run()
            try statement(key: "events.upsert", BulkRows.sql(EventColumn.insertHead, columns: EventColumn.allCases.count, rows: 1,
                                                           tail: EventColumn.upsertTail))
                .bind(Self.eventRow(event)).run()
            let insertTask = try statement(key: "tasks.insert", BulkRows.sql(TaskColumn.insertHead, columns: TaskColumn.allCases.count, rows: 1))
            for (position, task) in event.tasks.enumerated() {
                try insertTask.bind(Self.taskRow(event.id, position, task)).run()
            }
        }
    }
}
