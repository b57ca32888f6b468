import Foundation

/// The dates datebook keeps: years 1 through 3000 of the proleptic Gregorian calendar.
///
/// Every way in (WHEN on the command line, planner JSON, iCalendar files and feeds, and the
/// durations and lead times added to a start) refuses what falls outside, so whatever is stored
/// can be listed, exported and imported again. Dates before 1970 are ordinary dates and keep
/// their value. The last year is libical's (`icaltime_is_valid_time` takes none after 3000), so
/// an iCalendar backup of anything stored reads back; `Limits.years` and the planner's
/// `EventValidation` use the same range.
public enum RepresentableDates {
    public static let years: ClosedRange<Int> = 1...3000
    /// 0001-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    /// 3000-12-31T23:59:59Z.
    public static let latest = Date(timeIntervalSince1970: 32_535_215_999)
    /// `1-3000`, as messages name the range.
    public static let rangeText = "\(years.lowerBound)-\(years.upperBound)"

    /// True for an instant in `earliest … latest`; false for NaN (compared as Doubles: Date's
    /// `>=` is `!(<)`, which NaN passes).
    public static func contains(_ instant: Date) -> Bool {
        let seconds = instant.timeIntervalSince1970
        return seconds >= earliest.timeIntervalSince1970 && seconds <= latest.timeIntervalSince1970
    }

    /// Why these wall-clock fields name no representable date and time, or nil when they do:
    /// `month 13 does not exist`, `2023-02 has no day 29`, `year 0 is outside 1-3000`.
    public static func problem(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> String? {
        guard years.contains(year) else { return "year \(year) is outside \(rangeText)" }
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
