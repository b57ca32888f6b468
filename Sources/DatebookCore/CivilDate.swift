import Foundation

/// Proleptic Gregorian date arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's `days_from_civil`; used where Calendar would be too slow (listing 100k rows).
enum CivilDate {
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 0 = Sunday … 6 = Saturday.
    static func weekday(days: Int) -> Int { ((days % 7) + 11) % 7 }

    static func pad2(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }
    static func pad4(_ n: Int) -> String {
        let s = String(n)
        return s.count >= 4 ? s : String(repeating: "0", count: 4 - s.count) + s
    }
}

/// Wall-clock fields of an instant in a zone, computed without Calendar for speed.
public struct LocalTime: Sendable, Equatable {
    public let year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// 0 = Sunday … 6 = Saturday.
    public let weekday: Int
    public let dayNumber: Int

    public init(_ instant: Date, in timeZone: TimeZone) {
        self.init(instant, offset: timeZone.secondsFromGMT(for: instant))
    }

    /// The wall time of `instant` in a zone whose offset `offsets` remembers (many instants in order).
    public init(_ instant: Date, in offsets: inout ZoneOffsets) {
        self.init(instant, offset: offsets.secondsFromGMT(for: instant))
    }

    init(_ instant: Date, offset: Int) {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let civil = CivilDate.civil(fromDays: days)
        year = civil.year
        month = civil.month
        day = civil.day
        hour = rest / 3600
        minute = rest % 3600 / 60
        second = rest % 60
        weekday = CivilDate.weekday(days: days)
        dayNumber = days
    }

    public var date: CalendarDate { CalendarDate(year: year, month: month, day: day) }

    public static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Thu 2026-12-03 09:00`: the fixed, locale-free form used by `list`.
    public var listFormat: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendListFormat(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `listFormat`'s bytes (a listing writes one per row straight into its output buffer).
    public func appendListFormat(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.weekdayNames[weekday].utf8)
        func digits(_ n: Int, _ count: Int) {
            var divisor = count == 4 ? 1000 : 10
            while divisor > 0 {
                bytes.append(UInt8(48 + (n / divisor) % 10))
                divisor /= 10
            }
        }
        bytes.append(32)
        digits(year, 4); bytes.append(45); digits(month, 2); bytes.append(45); digits(day, 2)
        bytes.append(32)
        digits(hour, 2); bytes.append(58); digits(minute, 2)
    }
}

/// A zone's UTC offset, remembered until the zone's next transition. Each lookup through
/// Foundation takes a lock and asks ICU; a listing converts thousands of instants, in order, that
/// mostly share one offset.
public struct ZoneOffsets {
    public let timeZone: TimeZone
    private var valid: Range<Date>?
    private var offset = 0

    public init(_ timeZone: TimeZone) { self.timeZone = timeZone }

    public mutating func secondsFromGMT(for instant: Date) -> Int {
        if let valid, valid.contains(instant) { return offset }
        offset = timeZone.secondsFromGMT(for: instant)
        // No transition lies in [instant, next): the offset holds for all of it.
        let next = timeZone.nextDaylightSavingTimeTransition(after: instant) ?? .distantFuture
        valid = next > instant ? instant ..< next : nil
        return offset
    }
}
