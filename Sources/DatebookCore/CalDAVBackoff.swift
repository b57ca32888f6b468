import Foundation

/// Where a failing CalDAV account stands (issue 31): how many syncs in a row failed, when the next
/// one may start, and whether the server refused the login. A pure value: the scheduler asks it
/// before each sync and replaces it after one, so a wrong password or a server that is down costs
/// a few requests an hour instead of one every two seconds (enough for a server's brute-force
/// protection to lock the user out).
public struct CalDAVBackoff: Sendable, Equatable {
    /// The longest wait between two attempts of a failing account (an account whose `every` is
    /// longer waits its `every`).
    public static let cap: TimeInterval = 3600

    /// What kind of failure a sync met.
    public enum Failure: Sendable, Equatable {
        /// 401/403: the same password would be refused again; no retry until the settings change.
        case loginRefused
        /// Anything else (server down, a 404, a 5xx, a write refused): retried after a growing wait.
        case other
    }

    /// Syncs in a row that failed; 0: the account is healthy.
    public var failures: Int
    /// When the next sync may start; nil after a refused login (none until the settings change).
    public var nextAttempt: Date?
    public var loginRefused: Bool
    /// The account's settings (`CalDAVScheduling.fingerprint`) when the last failure was met: when
    /// they change (a new password, URL, calendars…), the backoff is over.
    public var fingerprint: String?

    public init(failures: Int = 0, nextAttempt: Date? = nil, loginRefused: Bool = false, fingerprint: String? = nil) {
        self.failures = failures
        self.nextAttempt = nextAttempt
        self.loginRefused = loginRefused
        self.fingerprint = fingerprint
    }

    /// A healthy account: what a successful sync leaves.
    public static let healthy = CalDAVBackoff()

    public var isFailing: Bool { failures > 0 }

    /// The wait after the `failures`-th failure in a row: `every` doubled for each failure after
    /// the first, at most `cap` (or `every` when that is longer). `jitter` (0..<1) adds up to a
    /// tenth, within the same bound, so accounts on one server do not retry in step.
    public static func delay(failures: Int, every: TimeInterval, cap: TimeInterval = cap, jitter: Double) -> TimeInterval {
        let base = max(1, every)
        let bound = max(cap, base)
        let doubled = base * pow(2, Double(min(max(0, failures - 1), 40)))
        return min(bound, min(bound, doubled) * (1 + 0.1 * min(max(0, jitter), 1)))
    }

    /// The state after a failed sync at `now` with the settings `fingerprint`: one more failure
    /// (the first when the settings changed since the last one) and the wait that follows it.
    public func failed(_ failure: Failure, at now: Date, every: TimeInterval, fingerprint: String, jitter: Double,
                       cap: TimeInterval = cap) -> CalDAVBackoff {
        let count = (self.fingerprint == fingerprint ? failures : 0) + 1
        guard failure == .other else { return CalDAVBackoff(failures: count, loginRefused: true, fingerprint: fingerprint) }
        let wait = Self.delay(failures: count, every: every, cap: cap, jitter: jitter)
        return CalDAVBackoff(failures: count, nextAttempt: now.addingTimeInterval(wait), fingerprint: fingerprint)
    }

    /// True when the backoff lets a sync start at `now` with the settings `fingerprint`: healthy,
    /// settings changed since the failure, or (not after a refused login) the wait is over.
    public func allowsAttempt(at now: Date, fingerprint: String) -> Bool {
        guard isFailing, settingsUnchanged(fingerprint) else { return true }
        guard !loginRefused, let nextAttempt else { return false }
        return now >= nextAttempt
    }

    /// True when the failure was met with these settings (a change ends the backoff at once).
    public func settingsUnchanged(_ fingerprint: String) -> Bool { self.fingerprint == fingerprint }
}
