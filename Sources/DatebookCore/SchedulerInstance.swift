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
