import Foundation

/// Events whose alert times may have changed since the last pass (docs/scheduler.md, "Late
/// changes"): `changed_events` holds their ids, written by triggers on `events` in the transaction
/// of the write itself, and a pass takes them in its own transaction. An insert queues the event;
/// an update queues it only when a column alert times derive from changed (`alertTimeColumns`),
/// so renaming an event or ticking off a task queues nothing. SQLite's triggers run per row
/// (Store+ChangedEvents.swift has what a bulk load does instead); PostgreSQL's per statement, with
/// transition tables, so a COPY-based bulk save pays one `INSERT … SELECT` for its whole batch.
extension SQLStore {
    /// The queued ids; `taking` empties the queue with `DELETE … RETURNING`: two schedulers taking
    /// at once each get the rows the other did not (PostgreSQL: the second waits for the first's
    /// row locks, then finds them gone), and a pass that rolls back leaves them queued.
    public func changedEvents(taking: Bool) throws -> Set<String> {
        // A look first: an empty queue is only read, so an idle pass writes nothing.
        guard try first("SELECT 1 FROM changed_events LIMIT 1", [], { _ in true }) != nil else { return [] }
        let sql = taking ? "DELETE FROM changed_events RETURNING event_id" : "SELECT event_id FROM changed_events"
        return Set(try rows(sql) { $0.text(0) })
    }

    /// Replaces the queue with `ids` (`store copy`: the target's queue is the source's).
    func replaceChangedEvents(with ids: Set<String>) throws {
        try transaction {
            try run("DELETE FROM changed_events")
            try run(ChangedEventsSQL.queue, shared: [], ids.sorted(), values: { [.text($0)] })
        }
    }
}

enum ChangedEventsSQL {
    /// The columns an update must change for the event to be queued.
    static let alertTimeColumns = ["start_key", "all_day", "time_zone", "alerts", "recurrence"]

    /// Queues each row's event id.
    static let queue = SQLBatch(shared: 0, columns: [.value]) {
        "INSERT INTO changed_events (event_id) \($0) ON CONFLICT (event_id) DO NOTHING"
    }
}

/// A replace of a source's events (a feed refresh, a CalDAV calendar's sync) deletes them and
/// writes them all again, so the insert trigger queues every one. Their alert times are kept aside
/// first (`remember`); afterwards (`forget`) the events written back with the same alert times,
/// and not queued before, leave the queue: an unchanged event of a changed feed gets no look back.
/// The calendar is `$1` of the first statements.
enum KeptAlertTimes {
    static let remember: [String] = {
        let columns = ChangedEventsSQL.alertTimeColumns
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
        let unchanged = ChangedEventsSQL.alertTimeColumns.map { "e.\($0) IS NOT DISTINCT FROM k.\($0)" }.joined(separator: " AND ")
        return [
            "DELETE FROM changed_events WHERE event_id IN (SELECT k.id FROM kept_alert_times k JOIN events e ON e.id = k.id WHERE \(unchanged))",
            "DELETE FROM kept_alert_times",
        ]
    }()
}
