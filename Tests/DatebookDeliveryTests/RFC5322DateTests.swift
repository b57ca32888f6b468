import Foundation
import Testing

@testable import DatebookDelivery

/// The arithmetic Date header must read exactly as the `DateFormatter` it replaced.
@Suite struct RFC5322DateTests {
    static func formatterReference(_ date: Date, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    @Test(arguments: ["UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kolkata", "Pacific/Marquesas", "Pacific/Kiritimati"])
    func matchesDateFormatterAcrossDSTLeapDaysAndYearEnds(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let instants: [TimeInterval] = [
            0, -1, -86_400.5, 951_782_400, 1_709_164_799.9, 1_711_846_800, 1_729_990_800, 1_796_010_420,
            1_798_761_599, 1_798_761_600, 4_102_444_800, 1_234_567_890.75,
        ]
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(MIMEEncoding.rfc5322Date(date, timeZone: timeZone) == Self.formatterReference(date, timeZone), "\(seconds)")
        }
    }

    /// Local mean time offsets have seconds; the formatter then writes `-033052`, which RFC 5322
    /// forbids, while the header keeps whole minutes.
    @Test func localMeanTimeOffsetKeepsWholeMinutes() throws {
        let stJohns = try #require(TimeZone(identifier: "America/St_Johns"))
        let date = Date(timeIntervalSince1970: -2_208_988_800)
        #expect(MIMEEncoding.rfc5322Date(date, timeZone: stJohns) == "Sun, 31 Dec 1899 20:29:08 -0330")
    }

    @Test func everyDayOfFourYearsMatchesTheFormatter() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        for day in stride(from: 19_000, to: 20_461, by: 1) {
            let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400 + 3_599)
            #expect(MIMEEncoding.rfc5322Date(date, timeZone: berlin) == Self.formatterReference(date, berlin))
        }
    }
}
