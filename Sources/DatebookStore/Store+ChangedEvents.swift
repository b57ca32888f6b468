import Foundation

/// Events whose alert times may have changed since the last pass (docs/scheduler.md, "Late
/// changes"): `changed_events` holds their ids, written by triggers on `events` in the transaction
/// of the write itself, and a pass takes them in its own transaction. An insert queues the event;
/// an update queues it only when a column alert times derive from changed (start, kind, zone,
/// lead times, recurrence), so renaming an event or ticking off a task queues nothing.
extension Store {
    /// The columns an update must change for the event to be queued.
    static let alertTimeColumns = ["start_key", "all_day", "time_zone", "alerts", "recurrence"]

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

    public func changedEvents(taking: Bool) throws -> Set<String> {
        try wrap {
            var ids = Set<String>()
            let query = try statement(literal: "SELECT event_id FROM changed_events").bind()
            while try query.step() { ids.insert(query.text(0)) }
            // Only a queue that holds ids is written to: an idle pass stays a read.
            if taking, !ids.isEmpty { try statement(literal: "DELETE FROM changed_events").bind().run() }
            return ids
        }
    }

    /// Replaces the queue with `ids` (`store copy`: the target's queue is the source's).
    func replaceChangedEvents(with ids: Set<String>) throws {
        try wrap { try db.execute("DELETE FROM changed_events") }
        try queueChanged(ids, allEvents: false)
    }
}

/// A replace of a source's events (a feed refresh, a CalDAV calendar's sync) deletes them and
/// writes them all again, so the insert trigger queues every one. Their alert times are kept aside
/// first (`remember`); afterwards (`forget`) the events written back with the same alert times,
/// and not queued before, leave the queue: an unchanged event of a changed feed gets no look back.
/// The calendar is `$1` of the first statements.
enum KeptAlertTimes {
    static let remember: [String] = {
        let columns = Store.alertTimeColumns
        return [
            "CREATE TEMP TABLE IF NOT EXISTS kept_alert_times (id TEXT PRIMARY KEY, start_key BIGINT, all_day INTEGER, "
                + "time_zone TEXT, alerts TEXT, recurrence TEXT)",
            "DELETE FROM kept_alert_times",
            "INSERT INTO kept_alert_times (id, \(columns.joined(separator: ", "))) SELECT e.id, "
                + columns.map { "e." + $0 }.joined(separator: ", ")
                + " FROM events e JOIN event_sources s ON s.event_id = e.id WHERE s.calendar = $1"
                + " AND NOT EXISTS (SELECT 1 FROM changed_events c WHERE c.event_id = e.id)",
        ]
    }()

    static let forget: [String] = {
        let unchanged = Store.alertTimeColumns.map { "e.\($0) IS NOT DISTINCT FROM k.\($0)" }.joined(separator: " AND ")
        return [
            "DELETE FROM changed_events WHERE event_id IN (SELECT k.id FROM kept_alert_times k JOIN events e ON e.id = k.id WHERE \(unchanged))",
            "DELETE FROM kept_alert_times",
        ]
    }()
}
