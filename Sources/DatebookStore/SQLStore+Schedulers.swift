import DatebookCore
import Foundation

/// What the scheduler keeps beside the ledger, on both databases: the planning lock, the last pass
/// and other named instants (`meta`, times in milliseconds), the live instances (`schedulers`),
/// and the numbers that tell a daemon the store changed.
extension SQLStore {
    /// Inside a pass's transaction: PostgreSQL takes a transaction-level advisory lock keyed by the
    /// schema, so the passes of several schedulers plan one after another, each reading the
    /// `last_pass` the one before committed, instead of all planning the same window; SQLite's
    /// `BEGIN IMMEDIATE` already holds the only write lock (`dialect.planningLock`).
    public func lockPlanning() throws {
        if let lock = dialect.planningLock { try run(lock) }
    }

    /// When the scheduler last planned (`tick`), or nil before the first pass.
    public func lastPass() throws -> Date? { try schedulerMark("last_pass") }

    /// Records the planning pass; call inside the planning transaction.
    public func setLastPass(_ date: Date) throws { try setSchedulerMark("last_pass", date) }

    public func schedulerMark(_ name: String) throws -> Date? {
        try first("SELECT value FROM meta WHERE name = $1", [.text(name)]) { Store.date(millis: $0.int64(0)) }
    }

    public func setSchedulerMark(_ name: String, _ date: Date) throws {
        try run("INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                .text(name), .millis(date))
    }

    /// Writes one instance, or refreshes it (same host and pid).
    public func recordScheduler(_ instance: SchedulerInstance) throws {
        try run("""
            INSERT INTO schedulers (host, pid, version, started_at, last_seen) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (host, pid) DO UPDATE SET version = excluded.version, started_at = excluded.started_at,
                last_seen = excluded.last_seen
            """, .text(instance.host), .int(instance.pid), .text(instance.version), .millis(instance.started),
                .millis(instance.lastSeen))
    }

    public func removeScheduler(host: String, pid: Int) throws {
        try run("DELETE FROM schedulers WHERE host = $1 AND pid = $2", .text(host), .int(pid))
    }

    public func schedulers(seenSince: Date) throws -> [SchedulerInstance] {
        try rows("""
            SELECT host, pid, version, started_at, last_seen FROM schedulers WHERE last_seen >= $1 ORDER BY host\(dialect.byteOrder), pid
            """, [.millis(seenSince)]) { row in
            SchedulerInstance(host: row.text(0), pid: row.int(1), version: row.text(2), started: Store.date(millis: row.int64(3)),
                              lastSeen: Store.date(millis: row.int64(4)))
        }
    }

    /// Changes made by other connections since this one opened show up as a new value
    /// (`dialect.dataVersion`).
    public func dataVersion() throws -> Int {
        try first(dialect.dataVersion) { $0.int(0) } ?? 0
    }

    /// `ok`, or the database's list of problems (`dialect.integrityCheck`).
    public func integrityCheck() throws -> String {
        try rows(dialect.integrityCheck) { $0.text(0) }.joined(separator: "\n")
    }
}
