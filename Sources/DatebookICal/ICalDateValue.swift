import DatebookCore
import Foundation
import Synchronization

/// A wall-clock date and time with no zone attached (RFC 5545 "floating" time).
public struct ICalLocalDateTime: Sendable, Equatable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// A planner's floating time, as the same wall clock.
    public init(_ time: FloatingTime) {
        self.init(year: time.date.year, month: time.date.month, day: time.date.day, hour: time.hour, minute: time.minute,
                  second: time.second)
    }

    /// The instant this wall-clock time names in `timeZone`.
    ///
    /// A time inside a spring-forward gap moves forward by the gap (02:30 → 03:30), as RFC 5545 asks.
    public func instant(in timeZone: TimeZone) -> Date {
        ICalCalendars.calendar(for: timeZone).date(from: dateComponents) ?? Date(timeIntervalSince1970: 0)
    }

    /// The wall-clock time of `instant` in `timeZone`.
    public static func of(_ instant: Date, in timeZone: TimeZone) -> ICalLocalDateTime {
        let c = ICalCalendars.calendar(for: timeZone)
            .dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        return ICalLocalDateTime(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1,
                                 hour: c.hour ?? 0, minute: c.minute ?? 0, second: c.second ?? 0)
    }

    var dateComponents: DateComponents {
        DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}

/// The value of a DTSTART-like property, keeping the distinction RFC 5545 makes.
///
/// All-day dates and floating times have no instant of their own: the caller decides the zone
/// (normally the user's) through ``resolve(in:)``.
public enum ICalDateValue: Sendable, Equatable, Hashable {
    /// An all-day date (`VALUE=DATE`).
    case date(year: Int, month: Int, day: Int)
    /// A time with a `TZID`; `tzid` is an IANA name (Windows and prefixed names are mapped).
    case zoned(Date, tzid: String)
    /// A UTC time (`…Z`).
    case utc(Date)
    /// A wall-clock time to be read in the user's zone.
    case floating(ICalLocalDateTime)

    /// The instant; all-day dates are midnight and floating times are read in `timeZone`.
    public func resolve(in timeZone: TimeZone) -> Date {
        switch self {
        case let .date(year, month, day):
            return ICalLocalDateTime(year: year, month: month, day: day).instant(in: timeZone)
        case let .zoned(instant, _), let .utc(instant):
            return instant
        case let .floating(local):
            return local.instant(in: timeZone)
        }
    }

    /// True when the value lies in ``RepresentableDates`` (dates and floating times by their fields).
    public var isRepresentable: Bool {
        switch self {
        case let .date(year, month, day):
            return RepresentableDates.problem(year: year, month: month, day: day) == nil
        case let .floating(local):
            return RepresentableDates.problem(year: local.year, month: local.month, day: local.day,
                                              hour: local.hour, minute: local.minute, second: local.second) == nil
        case let .zoned(instant, _), let .utc(instant):
            return RepresentableDates.contains(instant)
        }
    }

    /// True for an all-day date.
    public var isAllDay: Bool {
        if case .date = self { return true }
        return false
    }

    /// The zone this value is expressed in: its own TZID, UTC, or `fallback` for dates and floating times.
    public func timeZone(fallback: TimeZone) -> TimeZone {
        switch self {
        case let .zoned(_, tzid):
            return TimeZone(identifier: tzid) ?? fallback
        case .utc:
            return TimeZone(identifier: "UTC") ?? fallback
        case .date, .floating:
            return fallback
        }
    }

    /// The day this value names in its own zone (a date is itself). A RECURRENCE-ID of an all-day
    /// series means a day even when it is written as a time: Outlook writes
    /// `RECURRENCE-ID;TZID=W. Europe Standard Time:20261214T000000` for the instance of 14 December.
    public func day(fallback: TimeZone) -> ICalDateValue {
        let local = local(fallback: fallback)
        return .date(year: local.year, month: local.month, day: local.day)
    }

    /// The wall-clock reading of this value in its own zone (`fallback` for dates/floating).
    func local(fallback: TimeZone) -> ICalLocalDateTime {
        switch self {
        case let .date(year, month, day):
            return ICalLocalDateTime(year: year, month: month, day: day)
        case let .floating(local):
            return local
        case .zoned, .utc:
            return ICalLocalDateTime.of(resolve(in: fallback), in: timeZone(fallback: fallback))
        }
    }
}

/// Gregorian calendars per zone, cached: building a `Calendar` dominates when parsing 100k events.
enum ICalCalendars {
    /// UTC, for walks in elapsed time.
    static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    private static let cache = Mutex<[String: Calendar]>([:])

    static func calendar(for timeZone: TimeZone) -> Calendar {
        cache.withLock { calendars in
            if let cached = calendars[timeZone.identifier] { return cached }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            calendars[timeZone.identifier] = calendar
            return calendar
        }
    }
}
