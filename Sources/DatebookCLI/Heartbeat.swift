import DatebookScheduler
import DatebookStore
import Foundation

/// Keeps the daemon's row in the store's `schedulers` table fresh, so `datebook status` lists it
/// as alive: written at start and at each pass, refreshed at least every `interval`, removed on a
/// clean exit. A store that cannot be written at the moment just misses a beat.
struct Heartbeat {
    static let interval: TimeInterval = 30

    private var instance: SchedulerInstance
    private var last: Date?

    init(started: Date) {
        instance = SchedulerInstance(host: Scheduler.hostName, pid: Int(getpid()), version: Datebook.version,
                                     started: started, lastSeen: started)
    }

    func isDue(now: Date) -> Bool { nextBeat(now: now) <= 0 }

    /// Seconds until the next beat is due (0: now).
    func nextBeat(now: Date) -> TimeInterval {
        guard let last else { return 0 }
        return max(0, Self.interval - now.timeIntervalSince(last))
    }

    /// Writes the row; a failure (the store unreachable) waits for the next beat like a success,
    /// so a store that is down never makes the daemon spin.
    mutating func beat(_ store: any PlannerStore, now: Date) {
        instance.lastSeen = now
        try? store.recordScheduler(instance)
        last = now
    }

    func remove(from store: any PlannerStore) {
        try? store.removeScheduler(host: instance.host, pid: instance.pid)
    }
}
