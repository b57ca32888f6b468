import Foundation

/// RFC 3339 instants with whole seconds, formatted and parsed without DateFormatter (fast, locale-free).
public enum ISOInstant {
    /// `2026-12-03T08:00:00Z`.
    public static func format(_ date: Date) -> String {
        let local = LocalTime(date, in: utc)
        return local.date.description + "T" + CivilDate.pad2(local.hour) + ":" + CivilDate.pad2(local.minute)
            + ":" + CivilDate.pad2(local.second) + "Z"
    }

    /// `2026-12-03T09:00:00+01:00` in the given zone.
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        let local = LocalTime(date, in: zone)
        let offset = zone.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return local.date.description + "T" + CivilDate.pad2(local.hour) + ":" + CivilDate.pad2(local.minute)
            + ":" + CivilDate.pad2(local.second) + sign + CivilDate.pad2(minutes / 60) + ":" + CivilDate.pad2(minutes % 60)
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS][.fff](Z|±HH:MM)`; nil when the text has no explicit offset or is malformed.
    public static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        guard chars.count >= 17, let day = CalendarDate(iso: text.prefix(10)), chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: " ")
        else { return nil }
        func two(_ i: Int) -> Int? {
            guard i + 1 < chars.count, (48...57).contains(chars[i]), (48...57).contains(chars[i + 1]) else { return nil }
            return Int(chars[i] - 48) * 10 + Int(chars[i + 1] - 48)
        }
        guard let hour = two(11), chars[13] == UInt8(ascii: ":"), let minute = two(14), hour < 24, minute < 60 else { return nil }
        var i = 16
        var second = 0
        if i < chars.count, chars[i] == UInt8(ascii: ":") {
            guard let s = two(i + 1), s < 61 else { return nil }
            second = s
            i += 3
        }
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            i += 1
            while i < chars.count, (48...57).contains(chars[i]) { i += 1 }
        }
        guard i < chars.count else { return nil }
        var offset = 0
        if chars[i] == UInt8(ascii: "Z") || chars[i] == UInt8(ascii: "z") {
            i += 1
        } else if chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") {
            guard let oh = two(i + 1), i + 3 < chars.count, chars[i + 3] == UInt8(ascii: ":"), let om = two(i + 4) else { return nil }
            offset = (oh * 60 + om) * 60 * (chars[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == chars.count else { return nil }
        let seconds = day.dayNumber * 86_400 + hour * 3600 + minute * 60 + second - offset
        // Whether the instant is in `RepresentableDates` is for the caller, which can say so.
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.current
}
