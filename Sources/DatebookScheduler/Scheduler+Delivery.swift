import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

extension Scheduler {
    /// Sends claimed deliveries and records each outcome as it arrives: each group of outcomes is
    /// committed before the connections that produced them start another transfer, so a crash can
    /// send again only what was in flight (at most `deliverer.maxInFlight`).
    ///
    /// Those commits skip the fsync (`Store.withDeferredSync`): a process crash loses none of them,
    /// a power failure at most the last 50 ms (a lost record means a duplicate, never a lost delivery).
    func deliver(_ claimed: [LedgerEntry], _ prepared: [PreparedDelivery], now: Date, report: inout TickReport) throws {
        var sendable: [(entry: LedgerEntry, step: DeliveryStep)] = []
        var settled: [Outcome] = []
        for (entry, prepared) in zip(claimed, prepared) {
            switch prepared {
            case .ready(_, let step): sendable.append((entry, step))
            case .unavailable(_, let reason): settled.append((entry, .failed, reason, nil))
            case .obsolete(let reason): settled.append((entry, .cancelled, reason, nil))
            }
        }
        try record(settled, now: now, report: &report)
        var failure: Error?
        try store.withDeferredSync {
            deliverer.deliver(sendable.map(\.step)) { group in
                do {
                    try recordPatiently(group.map { decide(sendable[$0.index].entry, $0.outcome, now: now) }, now: now,
                                        report: &report)
                } catch { failure = failure ?? error }
            }
        }
        if let failure { throw failure }
    }

    /// `record`, tried again while another process holds the store's write lock or the connection
    /// to PostgreSQL is lost (for up to `options.recordPatience`): the connections that produced these outcomes wait meanwhile, so a
    /// long `import` cannot leave a pass sending on with nothing recorded (each unrecorded delivery
    /// would go out again once this process is gone).
    func recordPatiently(_ outcomes: [Outcome], now: Date, report: inout TickReport) throws {
        let deadline = ContinuousClock.now + .seconds(options.recordPatience)
        while true {
            do {
                return try record(outcomes, now: now, report: &report)
            } catch StoreError.busy(_) where ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            } catch StoreError.connectionLost(_, _) where ContinuousClock.now < deadline {
                // PostgreSQL restarting: the store connects again on the next try; the claims still hold.
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// The ledger state an attempt's outcome leads to, through the retry policy.
    func decide(_ entry: LedgerEntry, _ outcome: DeliveryOutcome, now: Date) -> Outcome {
        let started = entry.firstAttemptAt ?? now
        switch retryPolicy.decide(attempt: entry.attempts, outcome: outcome, firstAttempt: started, now: now, random: random) {
        case .delivered:
            let lateBy = now.timeIntervalSince(entry.dueAt)
            return lateBy > options.lateAfter
                ? (entry, .sentLate, "sent \(Self.duration(lateBy)) after due", nil)
                : (entry, .sent, nil, nil)
        case .retry(let at):
            return (entry, .pending, "attempt \(entry.attempts) failed: \(Self.describe(outcome)); retrying", at)
        case .failed(let reason):
            return (entry, .failed, reason, nil)
        }
    }

    /// A claimed delivery's new state, reason and next attempt.
    typealias Outcome = (LedgerEntry, LedgerEntry.State, String?, Date?)

    /// Commits outcomes at once (`settle` of a batch is all or none) and logs one line for each.
    func record(_ outcomes: [Outcome], now: Date, report: inout TickReport) throws {
        guard !outcomes.isEmpty else { return }
        try store.settle(outcomes.map { Settlement(key: $0.0.key, state: $0.1, reason: $0.2, nextAttempt: $0.3) },
                         claimant: claimant, now: now)
        for (entry, state, reason, _) in outcomes {
            if state == .pending { report.retried += 1 } else { report.count(state) }
            log(logLine(entry, state, reason))
        }
    }

    /// A short, secret-free description of a failed attempt.
    static func describe(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .http(let response): "HTTP \(response.status)"
        case .transport(let error): error.description
        case .command(let result): result.timedOut ? "command timed out" : "command \(result.termination)"
        case .accepted: "accepted"
        }
    }
}
