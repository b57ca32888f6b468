import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

extension Scheduler {
    /// Sends claimed deliveries and records their outcomes in groups (`GroupCommit`): outcomes are
    /// held until `options.outcomeHold` of them or `options.outcomeHoldTime` has passed, then
    /// written at the next `starting` call the deliverer makes (right after a group of outcomes,
    /// before it waits for anything, and at least every 200 ms while it waits), in one transaction
    /// with the fence of the transfers that start then and of the next claims. So a crash can send
    /// again what was in flight and what was held: at most `inFlightBound`.
    ///
    /// Those commits skip the fsync (`tick` runs the pass's batches in `Store.withDeferredSync`): a
    /// process crash loses none of them, a power failure at most the last 50 ms (a lost record
    /// means a duplicate, never a lost delivery).
    ///
    /// Before a delivery's first transfer its claim is fenced (`startSending`, at `passTime()`), no
    /// longer ago than `GroupCommit.fenceLife`: one whose lease ran out while this process was held
    /// up (SIGSTOP, a full disk, a paused VM), or that another process took over, is not sent (its
    /// new claimant sends it).
    ///
    /// `events`: the claimed rows' events, read once for the batch; the log lines name them from there.
    func deliver(_ claimed: [LedgerEntry], _ prepared: [PreparedDelivery], events: [String: Event] = [:], now: Date,
                 passTime: () -> Date, report: inout TickReport) throws {
        var sendable: [(entry: LedgerEntry, step: DeliveryStep)] = []
        var settled: [Outcome] = []
        for (entry, prepared) in zip(claimed, prepared) {
            switch prepared {
            // A retry sends only what the channel has not accepted yet (later parts, other recipients).
            case .ready(_, let step): sendable.append((entry, step.remaining(after: DeliveryProgress(text: entry.progress))))
            case .unavailable(_, let reason): settled.append((entry, .failed, reason, nil))
            case .obsolete(let reason): settled.append((entry, .cancelled, reason, nil))
            }
        }
        try record(settled, now: now, report: &report, events: events)
        var failure: Error?
        // Outcomes accepted but not written yet: written at a later `starting` (`groups` says
        // which), with the fence of the transfers that start then, in one transaction.
        var unrecorded: (outcomes: [Outcome], progress: [DeliveryProgressRecord]) = ([], [])
        var groups = groupCommit(claims: sendable.count)
        // Each claim with its fencing token: the lease its last fence gave it.
        var claims = sendable.map(\.entry)
        func commit(fencing indices: [Int]) throws -> Set<Int> {
            let (outcomes, progress) = unrecorded
            guard !indices.isEmpty || !outcomes.isEmpty || !progress.isEmpty else { return [] }
            let fence = indices.map { claims[$0] }
            let (started, at) = try patiently(Self.commitDescription(recording: outcomes.count + progress.count, starting: fence.count)) {
                try store.transaction { () -> (Set<String>, Date) in
                    // Progress first: what it records was accepted, whatever the settlement says.
                    try store.recordProgress(progress, claimant: claimant)
                    try settle(outcomes, now: now)
                    let at = passTime()
                    return (try store.startSending(fence, claimant: claimant, now: at, lease: options.lease), at)
                }
            }
            unrecorded = ([], [])
            let fenced = Set(indices.filter { started.contains(claims[$0].key) })
            for index in fenced { claims[index] = claims[index].fenced(at: at, lease: options.lease) }
            groups.written(fenced: indices, started: fenced, at: at)
            account(outcomes, report: &report, events: events)
            return fenced
        }
        deliverer.deliver(sendable.map(\.step), starting: { indices in
            do {
                // Again after a write: one held up (a locked store) may have let the fences of
                // those asked about, fresh when it began, grow old (StoreFaultTests).
                while let fence = groups.write(starting: indices, at: passTime(), mustWrite: !unrecorded.progress.isEmpty) {
                    _ = try commit(fencing: fence)
                }
                let allowed = groups.allowed(indices, at: passTime())
                for index in indices where !allowed.contains(index) {
                    log("not sent: \(describe(sendable[index].entry, events: events)) to \(sendable[index].entry.channel) — " + Self.claimLost)
                }
                return allowed
            } catch {
                failure = failure ?? error
                return []
            }
        }) { group in
            for (index, outcome) in group {
                let entry = sendable[index].entry
                if case .progressed(let done) = outcome {
                    // Reported relative to this attempt's step: after what earlier attempts sent.
                    let total = DeliveryProgress(text: entry.progress).followed(by: done)
                    unrecorded.progress.append(DeliveryProgressRecord(key: entry.key, progress: total.text ?? ""))
                } else {
                    unrecorded.outcomes.append(decide(entry, outcome, now: now))
                }
            }
            groups.hold(group.count, at: passTime())
        }
        do { _ = try commit(fencing: []) } catch { failure = failure ?? error }
        if let failure { throw failure }
    }

    /// The group commit of one batch of `claims` sendable deliveries, from the options: fenced
    /// twice the held outcomes ahead, so the writes the outcomes make keep the pool of fenced claims
    /// from running dry between them. A fence lets its transfer start for 1 s at most, and half the
    /// lease when that is shorter: far inside the lease it renewed, whatever other hosts' clocks say.
    func groupCommit(claims: Int) -> GroupCommit {
        GroupCommit(claims: claims, holdCount: options.outcomeHold, holdTime: options.outcomeHoldTime,
                    fenceAhead: 2 * options.outcomeHold, fenceLife: min(1, options.lease / 2))
    }

    /// The most deliveries one crash may send again: those in flight and the outcomes held.
    public var inFlightBound: Int {
        let (sum, overflow) = deliverer.maxInFlight.addingReportingOverflow(max(0, options.outcomeHold))
        return overflow ? .max : sum
    }

    /// `body` (a ledger write the next transfers wait for), tried again on any store error — a full
    /// disk, a write lock held by another program, a lost PostgreSQL connection — with backoff from
    /// 50 ms to 5 s for as long as the process lives; logged at once, then every
    /// `options.recordPatience`, as "cannot `what`". The connections and workers whose outcomes it
    /// writes wait meanwhile (the deliverer starts no transfer until it returns), so a process that
    /// ends here leaves unrecorded at most what it had in flight.
    func patiently<T>(_ what: String, _ body: () throws -> T) throws -> T {
        var delay = 0.05
        var nextLog = ContinuousClock.now
        while true {
            do {
                return try body()
            } catch let error as StoreError {
                if ContinuousClock.now >= nextLog {
                    log("cannot \(what): \(error); no further transfer starts until this is written (trying again, at least every 5 s)")
                    nextLog = ContinuousClock.now + .seconds(options.recordPatience)
                }
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 5)
            }
        }
    }

    /// What a commit that holds the next transfers back is doing, for `patiently`'s "cannot …" line.
    static func commitDescription(recording outcomes: Int, starting claims: Int) -> String {
        let record = "record \(outcomes) delivery \(outcomes == 1 ? "outcome" : "outcomes")"
        let start = "start \(claims) \(claims == 1 ? "delivery" : "deliveries")"
        if claims == 0 { return record }
        return outcomes == 0 ? start : record + " and " + start
    }

    /// Why a claimed delivery was not sent: its claim was gone when its transfer was to start.
    static let claimLost = "its claim was taken over by another process, or its lease ran out before its turn "
        + "(this process was held up, or its channels are slow); not sent from here: the pass that claims it next sends it"

    /// The ledger state an attempt's outcome leads to, through the retry policy.
    func decide(_ entry: LedgerEntry, _ outcome: DeliveryOutcome, now: Date) -> Outcome {
        let started = entry.firstAttemptAt ?? now
        switch retryPolicy.decide(attempt: entry.attempts, outcome: outcome, firstAttempt: started, now: now, random: random) {
        case .delivered:
            let lateBy = now.timeIntervalSince(entry.dueAt)
            return lateBy > options.lateAfter
                ? (entry, .sentLate, "sent \(Self.duration(lateBy)) after due", nil)
                : (entry, .sent, nil, nil)
        case .uncertain(let reason):
            return (entry, .sent, Self.uncertainPrefix + reason + "; not sent again (the server may have it): check that it arrived", nil)
        case .retry(let at):
            return (entry, .pending, "attempt \(entry.attempts) failed: \(Self.describe(outcome)); retrying", at)
        case .failed(let reason):
            return (entry, .failed, reason, nil)
        }
    }

    /// A claimed delivery's new state, reason and next attempt.
    typealias Outcome = (LedgerEntry, LedgerEntry.State, String?, Date?)

    /// Commits outcomes at once (`settle` of a batch is all or none) and logs one line for each.
    func record(_ outcomes: [Outcome], now: Date, report: inout TickReport, events: [String: Event] = [:]) throws {
        guard !outcomes.isEmpty else { return }
        try settle(outcomes, now: now)
        account(outcomes, report: &report, events: events)
    }

    /// Writes outcomes (in the caller's transaction, or in one of their own).
    func settle(_ outcomes: [Outcome], now: Date) throws {
        guard !outcomes.isEmpty else { return }
        try store.settle(outcomes.map { Settlement(key: $0.0.key, state: $0.1, reason: $0.2, nextAttempt: $0.3) },
                         claimant: claimant, now: now)
    }

    /// Counts and logs outcomes once they are committed.
    func account(_ outcomes: [Outcome], report: inout TickReport, events: [String: Event] = [:]) {
        for (entry, state, reason, _) in outcomes {
            if state == .pending { report.retried += 1 } else { report.count(state) }
            if state == .failed, entry.attempts > 1 || reason?.hasSuffix(Self.pastDeadline) == true { report.gaveUp += 1 }
            log(logLine(entry, state, reason, events: events))
        }
    }

    /// How the reason of a delivery starts whose arrival is unknown (`status` lists them).
    public static let uncertainPrefix = "uncertain: "

    /// How the retry policy ends the reason of a delivery it gave up on.
    static let pastDeadline = "next retry would pass the delivery deadline"

    /// A short, secret-free description of a failed attempt.
    static func describe(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .http(let response): "HTTP \(response.status)"
        case .transport(let error): error.description
        case .command(let result): result.timedOut ? "command timed out" : "command \(result.termination)"
        case .accepted: "accepted"
        case .progressed(let progress): progress.summary
        }
    }
}
