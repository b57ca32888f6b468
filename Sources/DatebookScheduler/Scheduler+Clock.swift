import DatebookCore
import DatebookStore
import Foundation

/// A clock that was wrong (issue 27): a pass at a time far ahead of the real one (a `tick --now`
/// in the future, a VM restored from a snapshot, a mistaken NTP step) skips as too late what falls
/// between, and sends early what falls within its lateness; once the clock is right again, the
/// skipped deliveries whose due time is still within reach are planned again, and the early ones
/// are sent again at their due time. A pass far after the last one says so before it skips anything.
extension Scheduler {
    /// The names of the marks a pass leaves when it meets a clock jump, read by `status`.
    public enum ClockMark {
        /// The last pass's time when the jump was met.
        public static let from = "clock_jump_from"
        /// The time of the pass that met it.
        public static let at = "clock_jump_at"
    }

    /// Looks at `now` against the last pass (inside the pass's transaction): a clock that went
    /// back re-plans what the wrong pass skipped and whose due time is within the lateness of now
    /// or ahead; a clock far ahead is recorded as a jump. The line to log, or nil.
    func reviewClock(now: Date, last: Date?) throws -> String? {
        guard let last else { return nil }
        let gap = now.timeIntervalSince(last)
        if -gap > options.clockTolerance {
            let replanned = try store.replanSkippedAsLate(dueAfter: now.addingTimeInterval(-config.alerts.lateness), now: now)
            // Sent more than the lateness early: as worthless as one more than the lateness late.
            let ahead = try store.replanWrittenAhead(now: now, writtenAfter: now.addingTimeInterval(options.clockTolerance),
                                                     dueAfter: now.addingTimeInterval(config.alerts.lateness),
                                                     leaseEnd: now.addingTimeInterval(options.lease), reason: Self.sentEarlyReason)
            try store.setSchedulerMark(ClockMark.from, last)
            try store.setSchedulerMark(ClockMark.at, now)
            func deliveries(_ n: Int) -> String { "\(n) \(n == 1 ? "delivery" : "deliveries")" }
            return "warning: the clock went back \(Self.duration(-gap)): the last pass was at \(ISOInstant.format(last)), "
                + "now is \(ISOInstant.format(now)); "
                + (replanned == 0 ? "nothing it skipped needs planning again"
                                  : "\(deliveries(replanned)) it skipped as too late planned again")
                + (ahead.resent == 0 ? "" : "; \(deliveries(ahead.resent)) it sent early sent again at \(ahead.resent == 1 ? "its" : "their") due time")
                + (ahead.retries == 0 ? "" : "; the retries of \(deliveries(ahead.retries)) start over from \(ahead.retries == 1 ? "its" : "their") due time")
        }
        if gap > config.alerts.clockJump {
            try store.setSchedulerMark(ClockMark.from, last)
            try store.setSchedulerMark(ClockMark.at, now)
            return "warning: \(Self.duration(gap)) since the last pass (at \(ISOInstant.format(last))): the machine was off "
                + "or its clock jumped ahead; what is over the lateness of \(Self.duration(config.alerts.lateness)) is skipped "
                + "and planned again if the clock comes back"
        }
        return nil
    }
}

extension Scheduler {
    /// How the reason of a delivery starts that a pass at a wrong, later time sent before its due
    /// time and that is sent again at it (`status` lists them).
    public static let sentEarlyPrefix = "clock jump: "
    static let sentEarlyReason = sentEarlyPrefix + "sent more than the lateness early by a pass at a wrong, later time; "
        + "sent again at its due time"
}

/// The last clock jump a pass met, for `status`.
public struct ClockJump: Sendable, Equatable {
    /// The last pass before the jump.
    public var from: Date
    /// The pass that met it.
    public var at: Date

    public var isBackward: Bool { at < from }

    public init(from: Date, at: Date) {
        self.from = from
        self.at = at
    }

    /// The last jump recorded in `store`, or nil.
    public static func last(in store: any PlannerStore) throws -> ClockJump? {
        guard let from = try store.schedulerMark(Scheduler.ClockMark.from),
              let at = try store.schedulerMark(Scheduler.ClockMark.at) else { return nil }
        return ClockJump(from: from, at: at)
    }
}
