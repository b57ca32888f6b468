import Foundation

/// SQLite's side of the changed-events queue (SQLStore+ChangedEvents.swift): what a bulk load,
/// which suspends the row triggers on `events`, does instead of them.
extension Store {
    static let changedEventsTriggers: Set<String> = ["events_queue_insert", "events_queue_update"]

    /// What the `events_queue_*` triggers do for a bulk save that suspended them: every event of
    /// the batch is queued (`allEvents`: the store held none before, so the batch is the table).
    func queueChanged(_ ids: some Sequence<String>, allEvents: Bool) throws {
        try wrap {
            if allEvents {
                try db.execute("INSERT OR IGNORE INTO changed_events (event_id) SELECT id FROM events")
                return
            }
            let insert = try db.prepare("INSERT OR IGNORE INTO changed_events (event_id) VALUES (?)")
            for id in ids { try insert.bind(.text(id)).run() }
        }
    }
}
