import Foundation

/// HTTP dates (RFC 9110 section 5.6.7) read by hand, without a `DateFormatter`: a calendar app's
/// `If-Modified-Since` is read on every poll, and a formatter made per request cost more than the
/// rest of a 304. The fields become a date through one shared GMT calendar.
///
/// Reads the three forms a recipient must accept: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's asctime
/// (`Sun Nov  6 08:49:37 1994`). `HTTPDateTests` checks them against Foundation's formatter.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let gmt: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? .gmt
        return calendar
    }()

    /// The date `text` names (spaces and tabs around it ignored), or nil when it is none of the three
    /// forms or names no real time. An RFC 850 two-digit year is in `now`'s century unless that
    /// is more than 50 years after `now`, then in the one before (RFC 9110's rule).
    static func parse(_ text: String, now: Date) -> Date? {
        let bytes = Array(HeaderText.trimmed(text).utf8)
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else { return asctime(bytes) }
        let rest = Array(bytes[(comma + 1)...])
        guard comma >= 3, days.contains(String(decoding: bytes[0..<3], as: UTF8.self)) else { return nil }
        if comma == 3, rest.count == 25 { return fixdate(rest) }
        if comma >= 6 { return rfc850(rest, now: now) }
        return nil
    }

    /// ` 06 Nov 1994 08:49:37 GMT` (after the day name's comma).
    private static func fixdate(_ b: [UInt8]) -> Date? {
        guard b[0] == 32, b[3] == 32, b[7] == 32, b[12] == 32, b[21] == 32, Array(b[22...]) == Array("GMT".utf8),
              let day = number(b[1..<3]), let month = month(b[4..<7]), let year = number(b[8..<12]) else { return nil }
        return date(year, month, day, time: b[13..<21])
    }

    /// ` 06-Nov-94 08:49:37 GMT` (after the day name's comma).
    private static func rfc850(_ b: [UInt8], now: Date) -> Date? {
        guard b.count == 23, b[0] == 32, b[3] == 45, b[7] == 45, b[10] == 32, b[19] == 32, Array(b[20...]) == Array("GMT".utf8),
              let day = number(b[1..<3]), let month = month(b[4..<7]), let short = number(b[8..<10]) else { return nil }
        let century = gmt.component(.year, from: now) / 100 * 100
        guard let candidate = date(century + short, month, day, time: b[11..<19]) else { return nil }
        guard let limit = gmt.date(byAdding: .year, value: 50, to: now), candidate > limit else { return candidate }
        return date(century + short - 100, month, day, time: b[11..<19])
    }

    /// `Sun Nov  6 08:49:37 1994`.
    private static func asctime(_ b: [UInt8]) -> Date? {
        guard b.count == 24, b[3] == 32, b[7] == 32, b[10] == 32, b[19] == 32, days.contains(String(decoding: b[0..<3], as: UTF8.self)),
              let month = month(b[4..<7]), let year = number(b[20..<24]) else { return nil }
        let day = b[8] == 32 ? number(b[9..<10]) : number(b[8..<10])
        guard let day else { return nil }
        return date(year, month, day, time: b[11..<19])
    }

    /// The time from `year`-`month`-`day` and `HH:MM:SS`; nil when a field is out of range.
    private static func date(_ year: Int, _ month: Int, _ day: Int, time: ArraySlice<UInt8>) -> Date? {
        let t = time.startIndex
        guard time[t + 2] == 58, time[t + 5] == 58, let hour = number(time[t..<t + 2]), let minute = number(time[t + 3..<t + 5]),
              let second = number(time[t + 6..<t + 8]), hour < 24, minute < 60, second <= 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard day >= 1, day <= length else { return nil }
        return gmt.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard digit >= 48, digit <= 57 else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }

    private static func month(_ name: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: String(decoding: name, as: UTF8.self)).map { $0 + 1 }
    }
}
