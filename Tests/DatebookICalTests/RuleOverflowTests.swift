@testable import DatebookICal
import Foundation
import Testing

/// Rule parts with numbers at or beyond Int's limits are refused or expanded, never trapped on.
struct RuleOverflowTests {
    static let start = ICalDateValue.utc(TestSupport.instant(2026, 1, 5, 9, zone: "UTC"))
    static let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2027, 1, 1, zone: "UTC"))

    func expand(_ rule: String) throws -> (starts: [Date], truncated: Bool, warning: String?) {
        try ICalRecurrence.occurrences(rrule: rule, rdates: [], exdates: [], start: Self.start, duration: 3600,
                                       timeZone: TestSupport.zone("UTC"), window: Self.window, cap: 100)
    }

    @Test(arguments: [
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-9223372036854775808", "BYSETPOS=-9223372036854775808 is out of range"),
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=x", "BYSETPOS=x is out of range"),
        ("FREQ=MONTHLY;BYMONTHDAY=-9223372036854775808", "BYMONTHDAY=-9223372036854775808 is out of range"),
        ("FREQ=YEARLY;BYWEEKNO=-99999999999999999999", "BYWEEKNO=-99999999999999999999 is out of range"),
        ("FREQ=DAILY;INTERVAL=99999999999999999999", "INTERVAL=99999999999999999999 is refused"),
        ("FREQ=DAILY;COUNT=-9223372036854775808", "COUNT=-9223372036854775808 is refused"),
    ])
    func extremeNumbersAreRefusedWithAWarning(rule: String, message: String) throws {
        let result = try expand(rule)
        #expect(result.starts == [TestSupport.instant(2026, 1, 5, 9, zone: "UTC")])
        #expect(result.warning?.contains(message) == true, "\(result.warning ?? "no warning")")
    }

    @Test(arguments: ["FREQ=DAILY;INTERVAL=9223372036854775807", "FREQ=DAILY;COUNT=9223372036854775807",
                      "FREQ=WEEKLY;INTERVAL=2147483648", "FREQ=DAILY;UNTIL=99991231T235959Z"])
    func largeButWholeNumbersExpandWithinTheCap(rule: String) throws {
        let result = try expand(rule)
        #expect(!result.starts.isEmpty)
        #expect(result.starts.count <= 100)
    }
}
