@testable import DatebookICal
import Foundation
import Testing

/// Dates and durations outside years 1-3000, or not on the calendar, refuse their component with a
/// warning naming file, line and UID (never a trap, never a silently changed date); valid dates
/// before 1970 keep their value. Both the fast path and libical's path.
struct DateRangeTests {
    static let fixture = "out-of-range.ics"

    static func document(fastPaths: Bool) throws -> ICalDocument {
        try ICalParser.parse(data: TestSupport.data(fixture), fileName: fixture, defaultTimeZone: TestSupport.zone("UTC"),
                             workers: 1, fastPaths: fastPaths)
    }

    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0) -> Date {
        TestSupport.instant(y, mo, d, h, zone: "UTC")
    }

    @Test(arguments: [true, false])
    func outOfRangeComponentsAreSkippedWithAWarningAndTheRestImports(fastPaths: Bool) throws {
        let document = try Self.document(fastPaths: fastPaths)
        #expect(document.events.map(\.uid) == ["hours", "before-1970", "zoned-1900", "far-trigger", "good"])
        let warnings = document.warnings.map { "\($0.line) \($0.uid ?? "-"): \($0.message)" }
        #expect(warnings == [
            "4 weeks: DURATION P1000000000W ends after 3000-12-31, the last date datebook keeps; the event was skipped; fix the DURATION line",
            "16 days-all-day: DURATION P9999999D ends after 3000-12-31, the last date datebook keeps; the event was skipped; fix the DURATION line",
            "33 year-4000: DTSTART is not a date datebook can keep (year 4000 is outside 1-3000); the event was skipped; fix the DTSTART line",
            "38 month-13: DTSTART is not a date datebook can keep (month 13 does not exist); the event was skipped; fix the DTSTART line",
            "43 hour-25: DTSTART is not a date datebook can keep (month 13 does not exist); the event was skipped; fix the DTSTART line",
            "48 february-30: DTSTART is not a date datebook can keep (2024-02 has no day 30); the event was skipped; fix the DTSTART line",
            "53 year-0: DTSTART is not a date datebook can keep (year 0 is outside 1-3000); the event was skipped; fix the DTSTART line",
            "58 bad-end: DTEND is not a date datebook can keep (month 13 does not exist); the event was skipped; fix the DTEND line",
            "64 far-trigger: a VALARM TRIGGER falls outside years 1-3000; ignored",
        ])
    }

    @Test(arguments: [true, false])
    func validDatesKeepTheirValueBefore1970(fastPaths: Bool) throws {
        let events = Dictionary(try Self.document(fastPaths: fastPaths).events.map { ($0.uid, $0) }) { a, _ in a }
        #expect(events["before-1970"]?.start == .utc(Self.utc(1900, 1, 1)))
        #expect(events["before-1970"]?.end == .utc(Self.utc(1900, 1, 1, 1)))
        #expect(events["zoned-1900"]?.start == .zoned(TestSupport.instant(1900, 1, 1, 12, zone: "Europe/Berlin"), tzid: "Europe/Berlin"))
        // PT1193047H overflows 32 bits (libical's own sum gives 1904 s); 64-bit it is 136 years.
        #expect(events["hours"]?.end == .utc(Self.utc(2026, 12, 3, 9).addingTimeInterval(1_193_047 * 3600)))
        #expect(events["far-trigger"]?.alarms == [900])
    }
}
