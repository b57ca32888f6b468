import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

/// One delivery as `preview`, `status` and `tick --dry-run` show it; nothing is sent or written.
public struct ScheduledDelivery {
    /// The ledger row (or the row a pass would write), with its time and state.
    public var entry: LedgerEntry
    /// `alert 'Dentist' (1h before)` or `digest 'morning' 2026-12-01`.
    public var summary: String
    /// The message and channel step, when asked for.
    public var prepared: PreparedDelivery?

    /// What will happen instead of a send, for `preview` and `status`: `will be cancelled: all
    /// tasks done`, `will fail: …`; nil when it will be sent.
    public var outcome: String? {
        switch (entry.state, prepared) {
        case (.cancelled, _): "will be cancelled: " + (entry.reason ?? "no longer due")
        case (.failed, _): "will fail: " + (entry.reason ?? "channel unavailable")
        case (_, .obsolete(let reason)?): "will be cancelled: " + reason
        case (_, .unavailable(_, let reason)?): "will fail: " + reason
        default: nil
        }
    }
}

extension Scheduler {
    /// What `tick(now:)` would do: the new items since the last pass, then pending ones now due.
    public func dryRun(now: Date) throws -> [ScheduledDelivery] {
        var found: [ScheduledDelivery] = []
        for planned in try plannedSinceLastPass(now: now, last: try store.lastPass()) where try store.delivery(key: planned.key) == nil {
            let entry = classify(planned, now: now)
            found.append(ScheduledDelivery(entry: entry, summary: planned.summary,
                                           prepared: entry.state == .pending ? try prepare(entry, now: now) : nil))
        }
        for entry in try store.openDeliveries() where entry.state == .pending && entry.nextAttemptAt <= now {
            // A pass reviews open rows first (`obsoleteOpenDeliveries`): show what it will make of them.
            let prepared: PreparedDelivery
            switch try obsolete(entry) {
            case (.failed, let reason)?: prepared = .unavailable(nil, reason: reason)
            case (_, let reason)?: prepared = .obsolete(reason: reason)
            case nil: prepared = try prepare(entry, now: now)
            }
            found.append(ScheduledDelivery(entry: entry, summary: describe(entry), prepared: prepared))
        }
        return found
    }

    /// Everything scheduled in `(now, until]` plus pending ledger rows (retries, quiet-hours
    /// deferrals), by the time each will go out. With `render` the message and step are built too.
    ///
    /// Each entry's state is what a pass will make of it as the store stands now: `cancelled` (with
    /// the reason) for an alert whose tasks are all done under `alerts.cancelWhenDone`, or whose
    /// event was deleted or moved, exactly as `tick` decides it; such an entry is not rendered.
    ///
    /// The entries to render are prepared together, as a pass prepares a batch: their events read
    /// in one query and the messages built on all cores. One at a time, the event reads alone were
    /// 39 % of `preview --days 30` on the 20k bench planner (perf).
    public func upcoming(now: Date, until: Date, render: Bool) throws -> [ScheduledDelivery] {
        var found: [ScheduledDelivery] = []
        var keys = Set<String>()
        /// Positions in `found` of the entries still to be prepared.
        var waiting: [Int] = []
        func add(_ entry: LedgerEntry, _ summary: String) {
            var prepared: PreparedDelivery?
            if entry.state == .cancelled || entry.state == .failed {
                prepared = .obsolete(reason: entry.reason ?? entry.state.rawValue)
            } else if render {
                waiting.append(found.count)
            }
            found.append(ScheduledDelivery(entry: entry, summary: summary, prepared: prepared))
        }
        for var entry in try store.openDeliveries() {
            keys.insert(entry.key)
            if entry.state == .pending, let (state, reason) = try obsolete(entry) {
                (entry.state, entry.reason) = (state, reason)
            }
            add(entry, describe(entry))
        }
        for planned in try planner.deliveries(from: now, through: until) where !keys.contains(planned.key) {
            guard try store.delivery(key: planned.key) == nil else { continue }
            add(classify(planned, now: now), planned.summary)
        }
        let prepared = try prepare(waiting.map { found[$0].entry }, now: now, makingKey: false)
        for (position, delivery) in zip(waiting, prepared) { found[position].prepared = delivery }
        return found.sorted { ($0.entry.nextAttemptAt, $0.entry.key) < ($1.entry.nextAttemptAt, $1.entry.key) }
    }

    /// `alert 'Dentist' (1h before)` from the ledger row and the event's current title (its id when deleted).
    ///
    /// `events`: events already read (a pass's batch), looked up there before the store is asked.
    public func describe(_ entry: LedgerEntry, events: [String: Event] = [:]) -> String {
        guard entry.kind == .alert, let id = entry.eventID, let event = events[id] ?? (try? store.event(id: id)) else {
            return Self.summary(of: entry)
        }
        return "alert '\(TextWidth.clean(event.title))' (\(entry.lead.map { $0 + " before" } ?? "snoozed"))"
    }

    /// A description of a ledger row without reading the event: kind, lead or digest date.
    public static func summary(of entry: LedgerEntry) -> String {
        switch entry.kind {
        case .alert: "alert for event \(entry.eventID ?? "?") (\(entry.lead.map { $0 + " before" } ?? "snoozed"))"
        case .digest: "digest '\(entry.digest ?? "?")' \(entry.digestDate ?? "")"
        }
    }
}
