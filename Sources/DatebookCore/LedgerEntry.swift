import Foundation

/// One delivery in the ledger: an (alert or digest, channel) pair and where it stands.
///
/// `pending → sending (claimed with a lease) → sent | sent-late | skipped | cancelled | failed`;
/// a retry goes back to `pending` with a later `nextAttemptAt`.
public struct LedgerEntry: Sendable, Equatable {
    /// What the row delivers.
    public enum Kind: String, Sendable { case alert, digest }

    /// Where the delivery stands; the last five are end states.
    public enum State: String, Sendable, CaseIterable {
        case pending, sending, sent
        case sentLate = "sent-late"
        case skipped, cancelled, failed

        /// True for the five end states.
        public var isSettled: Bool { self != .pending && self != .sending }
    }

    public var key: String
    public var kind: Kind
    public var eventID: String?
    public var occurrenceStart: Date?
    /// Lead time text (`1d`) for alerts.
    public var lead: String?
    public var digest: String?
    /// `YYYY-MM-DD` in the configured zone, for digests.
    public var digestDate: String?
    public var channel: String
    /// When it is due (after a quiet-hours deferral); `sent-late` and `skipped` are measured from here.
    public var dueAt: Date
    public var state: State
    /// Why it was skipped, cancelled or failed, or the last retryable error.
    public var reason: String?
    public var attempts: Int
    public var nextAttemptAt: Date
    public var firstAttemptAt: Date?
    public var claimedUntil: Date?
    public var claimedBy: String?
    public var updatedAt: Date
    /// The scheduler (`host:pid`) that recorded the last outcome: who sent it, or failed to.
    public var settledBy: String?
    /// What the channel already accepted (the parts of a split message, email recipients), as
    /// `DeliveryProgress` writes it; nil when nothing yet. A retry sends only the rest.
    public var progress: String?

    public init(key: String, kind: Kind, eventID: String? = nil, occurrenceStart: Date? = nil, lead: String? = nil,
                digest: String? = nil, digestDate: String? = nil, channel: String, dueAt: Date, state: State = .pending,
                reason: String? = nil, attempts: Int = 0, nextAttemptAt: Date? = nil, firstAttemptAt: Date? = nil,
                claimedUntil: Date? = nil, claimedBy: String? = nil, updatedAt: Date? = nil, settledBy: String? = nil,
                progress: String? = nil) {
        self.key = key
        self.kind = kind
        self.eventID = eventID
        self.occurrenceStart = occurrenceStart
        self.lead = lead
        self.digest = digest
        self.digestDate = digestDate
        self.channel = channel
        self.dueAt = dueAt
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt ?? dueAt
        self.firstAttemptAt = firstAttemptAt
        self.claimedUntil = claimedUntil
        self.claimedBy = claimedBy
        self.updatedAt = updatedAt ?? dueAt
        self.settledBy = settledBy
        self.progress = progress
    }
}

/// What a channel accepted so far of one claimed delivery (`DeliveryProgress`'s text), for `recordProgress`.
public struct DeliveryProgressRecord: Sendable, Equatable {
    public var key: String
    public var progress: String

    public init(key: String, progress: String) {
        self.key = key
        self.progress = progress
    }
}

/// One claimed delivery's outcome, for `settle`: its new state, why, and when to try again.
public struct Settlement: Sendable, Equatable {
    public var key: String
    public var state: LedgerEntry.State
    public var reason: String?
    public var nextAttempt: Date?

    public init(key: String, state: LedgerEntry.State, reason: String? = nil, nextAttempt: Date? = nil) {
        self.key = key
        self.state = state
        self.reason = reason
        self.nextAttempt = nextAttempt
    }
}
