import Foundation

/// How long before an occurrence an alert is due, e.g. `1d`, `1h`, `10m`, `1h30m`.
///
/// Days and weeks are calendar days (an alert `1d` before a 09:00 event fires at 09:00 the day
/// before, even across a DST change); hours, minutes and seconds are exact durations.
public struct LeadTime: Sendable, Hashable, CustomStringConvertible {
    public var days: Int
    public var seconds: Int

    public init(days: Int = 0, seconds: Int = 0) {
        self.days = days
        self.seconds = seconds
    }

    /// The longest lead time: the days from 0001-01-01 to the last day of ``RepresentableDates``.
    public static let maxDays = CivilDate.days(year: RepresentableDates.years.upperBound, month: 12, day: 31)
        - CivilDate.days(year: 1, month: 1, day: 1)

    /// Parses `2w`, `1d`, `1h30m`, `90m`, `45s`, `0m`; nil for anything else and for leads longer than `maxDays`.
    public init?(_ text: String) {
        var days = 0, seconds = 0, number = 0, digits = 0, sawUnit = false
        for char in text.lowercased() {
            if let d = char.wholeNumberValue, char.isASCII {
                guard number < 1_000_000 else { return nil }
                number = number * 10 + d
                digits += 1
                continue
            }
            guard digits > 0 else { return nil }
            switch char {
            case "w": days += number * 7
            case "d": days += number
            case "h": seconds += number * 3600
            case "m": seconds += number * 60
            case "s": seconds += number
            default: return nil
            }
            number = 0
            digits = 0
            sawUnit = true
        }
        guard sawUnit, digits == 0, days + seconds / 86_400 <= Self.maxDays else { return nil }
        self.init(days: days, seconds: seconds)
    }

    /// Canonical text: `1d`, `1h30m`, `0m`.
    public var description: String {
        var out = ""
        if days > 0 { out += days % 7 == 0 ? "\(days / 7)w" : "\(days)d" }
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if s > 0 { out += "\(s)s" }
        return out.isEmpty ? "0m" : out
    }

    /// The instant an alert with this lead time is due for an occurrence starting at `start`.
    public func due(before start: Date, calendar: Calendar) -> Date {
        let dayShifted = days == 0 ? start : calendar.date(byAdding: .day, value: -days, to: start) ?? start
        return dayShifted.addingTimeInterval(TimeInterval(-seconds))
    }
}
