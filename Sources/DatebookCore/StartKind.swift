import Foundation

/// How a start was given, as an events row's `all_day` (and `end_all_day`) column holds it since
/// schema 9: with `EventStart.occurrenceKey`, a start written as two integers and read back whole.
public enum StartKind: Int, Sendable {
    case instant = 0, allDay = 1, floating = 2
}

extension EventStart {
    /// How far an all-day event's real start can lie from its key (midnight UTC), or a floating
    /// event's from its key (its wall clock read as UTC): zones span UTC−12…UTC+14.
    public static let allDayEarliest: Int64 = 14 * 3600
    public static let allDayLatest: Int64 = 12 * 3600

    /// The lowest key a start at or after `date` can have, in whichever zone it is read.
    public static func lowestKey(from date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) - allDayLatest
    }

    /// A key above that of every start before `date`, in whichever zone it is read.
    public static func keyBound(to date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.up)) + allDayEarliest
    }

    public var kind: StartKind { isAllDay ? .allDay : isFloating ? .floating : .instant }

    /// The start whose `occurrenceKey` is `key` and whose kind is `kind` (`StartKind.rawValue`;
    /// anything else reads as an instant).
    public init(key: Int64, kind: Int) {
        switch StartKind(rawValue: kind) {
        case .allDay: self = .allDay(CalendarDate(dayNumber: Int(key / 86_400)))
        case .floating: self = .floating(FloatingTime(wallSeconds: key))
        case .instant, nil: self = .instant(Date(timeIntervalSince1970: TimeInterval(key)))
        }
    }

    /// An occurrence key of an event that starts as `first` (all its occurrences are of one kind).
    public init(key: Int64, like first: EventStart) {
        self.init(key: key, kind: first.kind.rawValue)
    }
}
