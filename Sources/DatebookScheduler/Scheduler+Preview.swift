import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

/// One delivery as `preview`, `status` and `tick --dry-run` show it; nothing is sent or written.
public struct ScheduledDelivery {
    public var entry: LedgerEntry
    public var summary: String
    public var prepared: PreparedDelivery?
}

extension Scheduler {
    /// What `tick(now:)` would do: the new items since the last pass, then pending ones now due.
    public func dryRun(now: Date) throws -> [ScheduledDelivery] {
        var found: [ScheduledDelivery] = []
        for planned in try plannedSinceLastPass(now: now) where try store.delivery(key: planned.key) == nil {
            let entry = classify(planned, now: now)
            found.append(ScheduledDelivery(entry: entry, summary: planned.summary,
                                           prepared: entry.state == .pending ? try prepare(entry, now: now) : nil))
        }
        for entry in try store.openDeliveries() where entry.state == .pending && entry.nextAttemptAt <= now {
            found.append(ScheduledDelivery(entry: entry, summary: Self.summary(of: entry), prepared: try prepare(entry, now: now)))
        }
        return found
    }

    /// Everything scheduled in `(now, until]` plus pending ledger rows (retries, quiet-hours
    /// deferrals), by the time each will go out. With `render` the message and step are built too.
    public func upcoming(now: Date, until: Date, render: Bool) throws -> [ScheduledDelivery] {
        var found: [ScheduledDelivery] = []
        var keys = Set<String>()
        for entry in try store.openDeliveries() {
            keys.insert(entry.key)
            found.append(ScheduledDelivery(entry: entry, summary: Self.summary(of: entry),
                                           prepared: render ? try prepare(entry, now: now) : nil))
        }
        for planned in try planner.deliveries(from: now, through: until) where !keys.contains(planned.key) {
            guard try store.delivery(key: planned.key) == nil else { continue }
            let entry = planned.entry(state: .pending)
            found.append(ScheduledDelivery(entry: entry, summary: planned.summary,
                                           prepared: render ? try prepare(entry, now: now) : nil))
        }
        return found.sorted { ($0.entry.nextAttemptAt, $0.entry.key) < ($1.entry.nextAttemptAt, $1.entry.key) }
    }

    /// A description of a ledger row without reading the event: kind, lead or digest date.
    public static func summary(of entry: LedgerEntry) -> String {
        switch entry.kind {
        case .alert: "alert for event \(entry.eventID ?? "?") (\(entry.lead ?? "?") before)"
        case .digest: "digest '\(entry.digest ?? "?")' \(entry.digestDate ?? "")"
        }
    }
}
