import Foundation

/// The dates datebook keeps: years 1 through 9999 of the proleptic Gregorian calendar.
///
/// Every way in (WHEN on the command line, planner JSON, iCalendar files and feeds, and the
/// durations and lead times added to a start) refuses what falls outside, so whatever is stored
/// can be listed, exported with four-digit years and imported again. Dates before 1970 are
/// ordinary dates and keep their value.
public enum RepresentableDates {
    public static let years: ClosedRange<Int> = 1...9999
    /// 0001-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    /// 9999-12-31T23:59:59Z.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// True for an instant in `earliest … latest`; false for NaN (compared as Doubles: Date's
    /// `>=` is `!(<)`, which NaN passes).
    public static func contains(_ instant: Date) -> Bool {
        let seconds = instant.timeIntervalSince1970
        return seconds >= earliest.timeIntervalSince1970 && seconds <= latest.timeIntervalSince1970
    }

    /// Why these wall-clock fields name no representable date and time, or nil when they do:
    /// `month 13 does not exist`, `2023-02 has no day 29`, `year 0 is outside 1-9999`.
    public static func problem(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> String? {
        guard years.contains(year) else { return "year \(year) is outside \(years.lowerBound)-\(years.upperBound)" }
        guard (1...12).contains(month) else { return "month \(month) does not exist" }
        guard (1...CivilDate.daysInMonth(year: year, month: month)).contains(day) else {
            return "\(CivilDate.pad4(year))-\(CivilDate.pad2(month)) has no day \(day)"
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            return "\(CivilDate.pad2(hour)):\(CivilDate.pad2(minute)):\(CivilDate.pad2(second)) is not a time of day"
        }
        return nil
    }

    /// Seconds since 1970-01-01T00:00:00 of wall-clock fields read as UTC (fields checked by `problem`).
    public static func secondsSince1970(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }
}
