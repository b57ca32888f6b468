import Foundation

/// The queue of events whose alert times changed since the last pass, on PostgreSQL (the SQLite
/// one is in Store+ChangedEvents.swift). Statement triggers with transition tables fill it, one
/// statement per write however many rows it touched, so a COPY-based bulk save pays one
/// `INSERT … SELECT` for its whole batch. A pass takes the ids with `DELETE … RETURNING`: two
/// schedulers taking at once each get the rows the other did not (the second waits for the
/// first's row locks, then finds them gone), and a pass that rolls back leaves them queued.
extension PostgresStore {
    static let changedEventsMigration = """
        CREATE TABLE changed_events (event_id TEXT PRIMARY KEY);
        CREATE FUNCTION queue_inserted_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            INSERT INTO changed_events (event_id) SELECT id FROM inserted_events ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$;
        CREATE FUNCTION queue_moved_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            INSERT INTO changed_events (event_id) SELECT n.id FROM updated_events n JOIN previous_events o ON o.id = n.id
                WHERE (\(Store.alertTimeColumns.map { "n." + $0 }.joined(separator: ", ")))
                    IS DISTINCT FROM (\(Store.alertTimeColumns.map { "o." + $0 }.joined(separator: ", ")))
                ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$;
        CREATE TRIGGER events_queue_insert AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
            FOR EACH STATEMENT EXECUTE FUNCTION queue_inserted_events();
        CREATE TRIGGER events_queue_update AFTER UPDATE ON events
            REFERENCING OLD TABLE AS previous_events NEW TABLE AS updated_events
            FOR EACH STATEMENT EXECUTE FUNCTION queue_moved_events();
        """

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
