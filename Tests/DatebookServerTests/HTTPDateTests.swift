@testable import DatebookServer
import Foundation
import Testing

/// `HTTPDate` reads RFC 9110's three date forms, IMF-fixdate as Foundation's formatter does.
struct HTTPDateTests {
    static let now = Date(timeIntervalSince1970: 1_796_112_000)  // 2026-12-01T08:00:00Z
    static let rfcExample = Date(timeIntervalSince1970: 784_111_777)  // 1994-11-06T08:49:37Z, RFC 9110's example

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", rfcExample),  // IMF-fixdate
        ("Sunday, 06-Nov-94 08:49:37 GMT", rfcExample),  // obsolete RFC 850
        ("Sun Nov  6 08:49:37 1994", rfcExample),  // asctime
        ("  Sun, 06 Nov 1994 08:49:37 GMT\t", rfcExample),
        ("Thu, 01 Jan 1970 00:00:00 GMT", Date(timeIntervalSince1970: 0)),
        ("Tue, 29 Feb 2028 23:59:59 GMT", Date(timeIntervalSince1970: 1_835_481_599)),
        ("Tuesday, 31-Dec-75 12:00:00 GMT", Date(timeIntervalSince1970: 3_345_019_200)),  // 2075: within 50 years
        ("Tuesday, 01-Dec-76 07:00:00 GMT", Date(timeIntervalSince1970: 3_374_031_600)),  // 2076, just within 50 years
        ("Friday, 31-Dec-76 12:00:00 GMT", Date(timeIntervalSince1970: 220_881_600)),  // 2076 would be more than 50 years ahead: 1976
        ("Mon Dec 31 23:59:59 2029", Date(timeIntervalSince1970: 1_893_455_999)),
    ] as [(String, Date)])
    func readsTheThreeForms(_ text: String, _ date: Date) {
        #expect(HTTPDate.parse(text, now: Self.now) == date, "\(text)")
    }

    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMTx", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49 1994",
        "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:6a:37 GMT", "Sun Nov 06 08:49:37 1994 GMT",
    ])
    func refusesWhatIsNoneOfThem(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil, "\(text)")
    }

    /// Against Foundation's formatter (the one `Last-Modified` is written with), over dates from 1970
    /// to 2100 (leap days, year ends).
    @Test func agreesWithFoundationsFormatter() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        let edges: [TimeInterval] = [0, 951_782_399, 951_782_400, 951_868_799, 951_868_800, 1_704_067_199, 4_102_444_799]
        for seconds in edges + (0..<500).map({ _ in TimeInterval(Int.random(in: 0..<4_102_444_800, using: &generator)) }) {
            let date = Date(timeIntervalSince1970: seconds)
            let written = FeedDocument.httpDate(date)
            #expect(written == formatter.string(from: date))
            #expect(HTTPDate.parse(written, now: Self.now) == date, "\(written)")
        }
    }

    /// `If-Modified-Since` in each form gets the 304 at or after `Last-Modified`, not before it.
    @Test func ifModifiedSinceInEachFormComparesWithTheStamp() {
        let document = FeedDocument(placeholderBody: [], etag: "W/\"x\"", stamp: Self.rfcExample)
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(FeedDocument.notModified(document, ifNoneMatch: nil, ifModifiedSince: text, now: Self.now))
        }
        #expect(!FeedDocument.notModified(document, ifNoneMatch: nil, ifModifiedSince: "Sun, 06 Nov 1994 08:49:36 GMT", now: Self.now))
        #expect(!FeedDocument.notModified(document, ifNoneMatch: nil, ifModifiedSince: "not a date", now: Self.now))
    }
}
