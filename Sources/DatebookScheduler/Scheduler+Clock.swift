import DatebookCore
import DatebookStore
import Foundation

/// A clock that was wrong (issue 27): a pass at a time far ahead of the real one (a `tick --now`
/// in the future, a VM restored from a snapshot, a mistaken NTP step) skips as too late what falls
/// between; once the clock is right again, those deliveries whose due time is still within reach
/// are planned again. A pass far after the last one says so before it skips anything.
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
            try store.setSchedulerMark(ClockMark.from, last)
            try store.setSchedulerMark(ClockMark.at, now)
            return "warning: the clock went back \(Self.duration(-gap)): the last pass was at \(ISOInstant.format(last)), "
                + "now is \(ISOInstant.format(now)); "
                + (replanned == 0 ? "nothing it skipped needs planning again"
                                  : "\(replanned) \(replanned == 1 ? "delivery" : "deliveries") it skipped as too late planned again")
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
