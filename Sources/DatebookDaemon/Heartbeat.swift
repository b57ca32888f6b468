import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// Keeps the daemon's row in the store's `schedulers` table fresh, so `datebook status` lists it
/// as alive: written at start and at each pass, refreshed at least every `interval`, removed on a
/// clean exit. A store that cannot be written at the moment just misses a beat.
public struct Heartbeat {
    public static let interval: TimeInterval = 30

    private var instance: SchedulerInstance
    private var last: Date?
    /// The row as last written, or nil before a beat was written.
    public private(set) var written: SchedulerInstance?

    /// `version`: datebook's, shown by `status` beside the instance.
    public init(started: Date, version: String) {
        instance = SchedulerInstance(host: Scheduler.hostName, pid: Int(getpid()), version: version,
                                     started: started, lastSeen: started)
    }

    public func isDue(now: Date) -> Bool { nextBeat(now: now) <= 0 }

    /// Seconds until the next beat is due (0: now).
    public func nextBeat(now: Date) -> TimeInterval {
        guard let last else { return 0 }
        return max(0, Self.interval - now.timeIntervalSince(last))
    }

    /// Writes the row; a failure (the store unreachable) waits for the next beat like a success,
    /// so a store that is down never makes the daemon spin.
    public mutating func beat(_ store: any PlannerStore, now: Date) {
        instance.lastSeen = now
        if (try? store.recordScheduler(instance)) != nil { written = instance }
        last = now
    }

    public mutating func remove(from store: any PlannerStore) {
        try? store.removeScheduler(host: instance.host, pid: instance.pid)
        written = nil
    }

    /// The store's content was replaced: what was written is not in it.
    public mutating func forgetWritten() { written = nil }

    /// True when the SQLite file at `path` no longer holds the last beat written: its content was
    /// replaced under the daemon (a file copied over it, `store restore`), though the path still
    /// names the same file. Read through a connection of its own, once the file has held still for a
    /// moment (a copy in progress is not judged half done); a file that cannot be read then counts
    /// as replaced too. False before a beat was written.
    public func isLost(inFile path: String) -> Bool {
        guard written != nil else { return false }
        StoreFile.waitUntilQuiet(path, quiet: 0.2)
        return !isHeld(inFile: path)
    }

    /// Whether the SQLite file at `path` holds the last beat written, read at once (true before a
    /// beat was written): asked before each beat, which writes through the daemon's connection, so
    /// that no beat goes into content copied over the file whose inotify events are not read yet.
    public func isHeld(inFile path: String) -> Bool {
        guard let written else { return true }
        return (try? Store.holds(written, inFile: path)) == true
    }
}
