import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

extension Scheduler {
    /// Sends claimed deliveries and records each outcome. Outcomes are committed in small batches
    /// as they arrive (only accepted or finally decided ones), so a slow channel never holds up the
    /// record of the others.
    func deliver(_ claimed: [LedgerEntry], _ prepared: [PreparedDelivery], now: Date, report: inout TickReport) throws {
        var sendable: [(entry: LedgerEntry, step: DeliveryStep)] = []
        var settled: [(LedgerEntry, LedgerEntry.State, String?, Date?)] = []
        for (entry, prepared) in zip(claimed, prepared) {
            switch prepared {
            case .ready(_, let step): sendable.append((entry, step))
            case .unavailable(_, let reason): settled.append((entry, .failed, reason, nil))
            case .obsolete(let reason): settled.append((entry, .cancelled, reason, nil))
            }
        }
        try record(settled, now: now, report: &report)
        settled.removeAll()
        var failure: Error?
        var lastCommit = ContinuousClock.now
        deliverer.deliver(sendable.map(\.step)) { index, outcome in
            let entry = sendable[index].entry
            settled.append(decide(entry, outcome, now: now))
            guard settled.count >= options.commitBatch || ContinuousClock.now - lastCommit > .milliseconds(50) else { return }
            do { try record(settled, now: now, report: &report) } catch { failure = failure ?? error }
            settled.removeAll()
            lastCommit = ContinuousClock.now
        }
        try record(settled, now: now, report: &report)
        if let failure { throw failure }
    }

    /// The ledger state an attempt's outcome leads to, through the retry policy.
    func decide(_ entry: LedgerEntry, _ outcome: DeliveryOutcome, now: Date) -> (LedgerEntry, LedgerEntry.State, String?, Date?) {
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

    /// Commits outcomes in one transaction and logs one line for each.
    func record(_ outcomes: [(LedgerEntry, LedgerEntry.State, String?, Date?)], now: Date, report: inout TickReport) throws {
        guard !outcomes.isEmpty else { return }
        try store.transaction {
            for (entry, state, reason, next) in outcomes {
                try store.settle(key: entry.key, claimant: claimant, as: state, reason: reason, nextAttempt: next, now: now)
            }
        }
        for (entry, state, reason, _) in outcomes {
            if state == .pending { report.retried += 1 } else { report.count(state) }
            log(Self.logLine(entry, state, reason))
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
