import Foundation

/// The queue of events whose alert times changed since the last pass, on PostgreSQL (the SQLite
/// one is in Store+ChangedEvents.swift). Statement triggers with transition tables fill it, one
/// statement per write however many rows it touched, so a COPY-based bulk save pays one
/// `INSERT … SELECT` for its whole batch. A pass takes the ids with `DELETE … RETURNING`: two
/// schedulers taking at once each get the rows the other did not (the second waits for the
/// first's row locks, then finds them gone), and a pass that rolls back leaves them queued.
extension PostgresStore {
    public func changedEvents(taking: Bool) throws -> Set<String> {
        // A look first: an empty queue is only read, so an idle pass writes nothing.
        guard try query("SELECT 1 FROM changed_events LIMIT 1").count > 0 else { return [] }
        let sql = taking ? "DELETE FROM changed_events RETURNING event_id" : "SELECT event_id FROM changed_events"
        let rows = try query(sql)
        return Set((0..<rows.count).map { rows.text($0, 0) })
    }

    /// Replaces the queue with `ids` (`store copy`: the target's queue is the source's).
    func replaceChangedEvents(with ids: Set<String>) throws {
        try query("DELETE FROM changed_events")
        try wrap { try connection.copy(into: "changed_events", columns: ["event_id"], rows: ids.sorted().map { [$0] }) }
    }
}
