import DatebookCore
import Foundation
import Testing

/// Every way in keeps to years 1-3000 and refuses what lies outside, instead of trapping or
/// silently moving the date; valid dates before 1970 keep their value.
struct RepresentableDatesTests {
    /// now = 2026-11-30 09:15 UTC.
    static let parser: WhenParser = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return WhenParser(now: Date(timeIntervalSince1970: 1_795_943_700), calendar: calendar)
    }()

    @Test(arguments: [
        ("0000-01-01", "\"0000-01-01\" is not a time in the years 1-3000"),
        ("0000-12-31 09:00", "\"0000-12-31 09:00\" is not a time in the years 1-3000"),
        ("+1000000d", "\"+1000000d\" is not a time in the years 1-3000"),
        ("+1095726d", "\"+1095726d\" is not a time in the years 1-3000"),
        ("3000-12-31T23:59:59-01:00", "\"3000-12-31T23:59:59-01:00\" is not a time in the years 1-3000"),
        ("4000-01-01", "\"4000-01-01\" is not a time in the years 1-3000"),
        ("0001-01-01T00:00:00+01:00", "\"0001-01-01T00:00:00+01:00\" is not a time in the years 1-3000"),
    ])
    func whenOutsideTheRangeIsRefused(text: String, message: String) {
        let error = #expect(throws: WhenError.self) { try Self.parser.parse(text) }
        #expect(error?.description == "cannot read time \"\(text)\": " + message)
    }

    @Test(arguments: [
        ("1900-01-01T00:00Z", -2_208_988_800),
        ("0001-01-01T00:00:00Z", -62_135_596_800),
        ("3000-12-31T23:59:59Z", 32_535_215_999),
        ("1969-12-31T23:59:59Z", -1),
    ])
    func whenInsideTheRangeKeepsItsValue(text: String, seconds: Int) throws {
        #expect(try Self.parser.parse(text) == .instant(Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    @Test func leadTimesStopAtTheSpanOfTheRange() {
        #expect(LeadTime("1095726d") == LeadTime(days: 1_095_726))
        #expect(LeadTime("1095727d") == nil)
        #expect(LeadTime("999999w") == nil)
        #expect(LeadTime("999999d999999d999999d999999d") == nil)
        #expect(LeadTime("999999h") == LeadTime(seconds: 999_999 * 3600))
    }

    /// ISO text is read as written (an impossible date is none); the range is the caller's to
    /// check, so it can name it (`WhenParser`, `EventValidation`).
    @Test func isoTextIsReadAsWrittenAndTheRangeIsTheCallers() {
        #expect(CalendarDate(iso: "2023-02-29") == nil)
        #expect(CalendarDate(iso: "0000-01-01") == CalendarDate(year: 0, month: 1, day: 1))
        #expect(CalendarDate(iso: "0001-01-01") == CalendarDate(year: 1, month: 1, day: 1))
        #expect(ISOInstant.parse("0001-01-01T00:00:00+01:00").map(RepresentableDates.contains) == false)
        #expect(ISOInstant.parse("0001-01-01T00:00:00Z") == RepresentableDates.earliest)
        #expect(ISOInstant.parse("1900-01-01T00:00:00Z") == Date(timeIntervalSince1970: -2_208_988_800))
    }

    @Test(arguments: [
        (2024, 13, 45, 0, "month 13 does not exist"),
        (2023, 2, 29, 0, "2023-02 has no day 29"),
        (0, 1, 1, 0, "year 0 is outside 1-3000"),
        (3001, 1, 1, 0, "year 3001 is outside 1-3000"),
        (2024, 1, 1, 25, "25:00:00 is not a time of day"),
    ])
    func fieldsNameTheirProblem(year: Int, month: Int, day: Int, hour: Int, problem: String) {
        #expect(RepresentableDates.problem(year: year, month: month, day: day, hour: hour) == problem)
    }

    @Test func theBoundsAreTheFirstAndLastSecondOfTheRange() {
        #expect(ISOInstant.format(RepresentableDates.earliest) == "0001-01-01T00:00:00Z")
        #expect(ISOInstant.format(RepresentableDates.latest) == "3000-12-31T23:59:59Z")
        #expect(RepresentableDates.contains(RepresentableDates.latest))
        #expect(!RepresentableDates.contains(RepresentableDates.latest.addingTimeInterval(1)))
        // Outside #expect: Swift Testing would print the Date, and Date.description traps on NaN.
        let keepsNaN = RepresentableDates.contains(Date(timeIntervalSince1970: .nan))
        #expect(!keepsNaN)
    }
}
