import Foundation

/// The bucket an occurrence falls in, relative to now (DESIGN.md, "Periods").
public enum Period: String, Sendable, Hashable, CaseIterable {
    case next7, next30, future, past

    /// Header shown above the period's rows.
    public var title: String {
        switch self {
        case .next7: "Next 7 Days"
        case .next30: "Next 30 Days"
        case .future: "Future"
        case .past: "Past"
        }
    }
}

/// The instants that separate the periods for one `now`, computed once with calendar-day arithmetic.
public struct PeriodBoundaries: Sendable, Equatable {
    public let now: Date
    /// `now + 7 calendar days` in the user's zone (168 ± 1 hours across a DST change).
    public let sevenDays: Date
    /// `now + 30 calendar days` in the user's zone.
    public let thirtyDays: Date

    public init(now: Date, calendar: Calendar) {
        self.now = now
        sevenDays = calendar.date(byAdding: .day, value: 7, to: now) ?? now.addingTimeInterval(7 * 86_400)
        thirtyDays = calendar.date(byAdding: .day, value: 30, to: now) ?? now.addingTimeInterval(30 * 86_400)
    }

    /// The period of an occurrence starting at `start`.
    public func period(of start: Date) -> Period {
        if start < now { return .past }
        if start < sevenDays { return .next7 }
        if start < thirtyDays { return .next30 }
        return .future
    }

    /// The half-open range of start instants a period covers (nil bounds are open).
    public func range(of period: Period) -> (from: Date?, to: Date?) {
        switch period {
        case .past: (nil, now)
        case .next7: (now, sevenDays)
        case .next30: (sevenDays, thirtyDays)
        case .future: (thirtyDays, nil)
        }
    }
}
