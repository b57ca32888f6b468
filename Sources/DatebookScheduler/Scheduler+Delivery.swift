import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

/// A delivery turned into what would be sent, or the reason it cannot be.
public enum PreparedDelivery {
    case ready(OutgoingMessage, DeliveryStep)
    /// The message exists but the channel cannot be used (missing secret, unknown channel).
    case unavailable(OutgoingMessage?, reason: String)
    /// The item no longer exists (event deleted or moved, digest removed).
    case obsolete(reason: String)

    public var message: OutgoingMessage? {
        switch self {
        case .ready(let message, _): message
        case .unavailable(let message, _): message
        case .obsolete: nil
        }
    }
}

extension Scheduler {
    /// Builds the message and the channel step for a ledger row; never sends.
    public func prepare(_ entry: LedgerEntry, now: Date) throws -> PreparedDelivery {
        let message: OutgoingMessage
        switch entry.kind {
        case .alert:
            guard let id = entry.eventID, let event = try store.event(id: id) else { return .obsolete(reason: "event deleted") }
            let occurrence = Occurrence(event: event, calendar: calendar)
            guard occurrence.start == entry.occurrenceStart else { return .obsolete(reason: "event moved") }
            message = AlertMessage.make(occurrence, lead: entry.lead.flatMap(LeadTime.init), channel: entry.channel, calendar: calendar)
        case .digest:
            guard let schedule = config.digests.first(where: { $0.name == entry.digest }),
                  let date = entry.digestDate.flatMap({ CalendarDate(iso: $0) }) else {
                return .obsolete(reason: "digest '\(entry.digest ?? "")' is no longer in the config")
            }
            let boundaries = PeriodBoundaries(now: entry.dueAt, calendar: calendar)
            let agenda = try store.agenda(boundaries: boundaries, calendar: calendar, periods: [.next7])
            message = try digestRenderer.render(DigestRequest(schedule: schedule, date: date, channel: entry.channel, agenda: agenda,
                                                              now: entry.dueAt, calendar: calendar, key: entry.key))
        }
        guard let channel = config.channel(named: entry.channel) else {
            return .unavailable(message, reason: "channel '\(entry.channel)' is no longer in the config")
        }
        do {
            let dispatcher = Dispatcher(environment: environment, now: now, timeZone: calendar.timeZone, host: host)
            return .ready(message, try dispatcher.prepare(message, for: channel))
        } catch let error as ChannelError {
            return .unavailable(message, reason: "channel unavailable: \(error)")
        }
    }

    /// Sends claimed deliveries and records each outcome. Outcomes are committed in small batches
    /// as they arrive (only accepted or finally decided ones), so a slow channel never holds up the
    /// record of the others.
    func deliver(_ claimed: [LedgerEntry], now: Date, report: inout TickReport) throws {
        var sendable: [(entry: LedgerEntry, step: DeliveryStep)] = []
        var settled: [(LedgerEntry, LedgerEntry.State, String?, Date?)] = []
        for entry in claimed {
            switch try prepare(entry, now: now) {
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
