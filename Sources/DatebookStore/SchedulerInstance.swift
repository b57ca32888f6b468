import Foundation

/// One `datebook run` process as the store knows it: written when it starts, refreshed by its
/// heartbeat, removed when it exits cleanly. `datebook status` lists those seen within
/// `staleAfter` as alive; a killed one just stops being seen.
public struct SchedulerInstance: Sendable, Equatable {
    /// A scheduler not seen for this long is no longer listed (its heartbeat runs every 30 s).
    public static let staleAfter: TimeInterval = 120

    public var host: String
    public var pid: Int
    /// The datebook version it runs.
    public var version: String
    public var started: Date
    public var lastSeen: Date

    public init(host: String, pid: Int, version: String, started: Date, lastSeen: Date) {
        self.host = host
        self.pid = pid
        self.version = version
        self.started = started
        self.lastSeen = lastSeen
    }

    /// `host:pid`, as the ledger's claims name their scheduler.
    public var claimant: String { "\(host):\(pid)" }
}

extension Store {
    static let schedulerColumns = "host, pid, version, started_at, last_seen"
    /// Writes one instance, or refreshes it (same host and pid); `$1…$5` in `schedulerColumns`' order.
    static let schedulerUpsert = """
        INSERT INTO schedulers (host, pid, version, started_at, last_seen) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (host, pid) DO UPDATE SET version = excluded.version, started_at = excluded.started_at,
            last_seen = excluded.last_seen
        """

    static func schedulerInstance(from row: some ColumnReader) -> SchedulerInstance {
        SchedulerInstance(host: row.text(0), pid: row.int(1), version: row.text(2), started: date(millis: row.int64(3)),
                          lastSeen: date(millis: row.int64(4)))
    }

    public func recordScheduler(_ instance: SchedulerInstance) throws {
        try wrap {
            try statement(Self.schedulerUpsert)
                .bind(.text(instance.host), .int(instance.pid), .text(instance.version), .integer(Self.millis(instance.started)),
                      .integer(Self.millis(instance.lastSeen))).run()
        }
    }

    public func removeScheduler(host: String, pid: Int) throws {
        try wrap { try statement("DELETE FROM schedulers WHERE host = ? AND pid = ?").bind(.text(host), .int(pid)).run() }
    }

    public func schedulers(seenSince: Date) throws -> [SchedulerInstance] {
        try wrap {
            let query = try statement("SELECT \(Self.schedulerColumns) FROM schedulers WHERE last_seen >= ? ORDER BY host, pid")
                .bind(.integer(Self.millis(seenSince)))
            var found: [SchedulerInstance] = []
            while try query.step() { found.append(Self.schedulerInstance(from: query)) }
            return found
        }
    }
}

extension PostgresStore {
    public func recordScheduler(_ instance: SchedulerInstance) throws {
        try query(Store.schedulerUpsert, [instance.host, String(instance.pid), instance.version, Self.millis(instance.started),
                                          Self.millis(instance.lastSeen)])
    }

    public func removeScheduler(host: String, pid: Int) throws {
        try query("DELETE FROM schedulers WHERE host = $1 AND pid = $2", [host, String(pid)])
    }

    public func schedulers(seenSince: Date) throws -> [SchedulerInstance] {
        try query("SELECT \(Store.schedulerColumns) FROM schedulers WHERE last_seen >= $1 ORDER BY host COLLATE \"C\", pid",
                  [Self.millis(seenSince)]).all.map(Store.schedulerInstance(from:))
    }
}
