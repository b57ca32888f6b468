import Foundation

/// The RRULE text split into its parts, to vet it before libical sees it and to take UNTIL out.
///
/// UNTIL is applied here, not by libical: expansion runs on floating wall-clock times (so 09:00
/// stays 09:00 across DST), and libical would compare a UTC UNTIL against those as if both were UTC.
struct ICalRuleText: Equatable {
    var parts: [(key: String, value: String)]

    init(_ text: String) {
        parts = text.split(separator: ";", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1)
            let key = pieces.first.map { $0.trimmingWhitespace().uppercased() } ?? ""
            let value = pieces.count > 1 ? pieces[1].trimmingWhitespace() : ""
            return (key, value)
        }
    }

    static func == (lhs: ICalRuleText, rhs: ICalRuleText) -> Bool {
        lhs.parts.map(\.key) == rhs.parts.map(\.key) && lhs.parts.map(\.value) == rhs.parts.map(\.value)
    }

    subscript(key: String) -> String? { parts.first { $0.key == key }?.value }

    /// The rule as text without the parts named in `keys` (UNTIL and COUNT are applied by datebook).
    func without(_ keys: Set<String>) -> String {
        parts.filter { !keys.contains($0.key) }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
    }

    /// The rule as RRULE text, its parts in their order.
    var text: String { without([]) }

    /// FREQ=HOURLY with nothing but INTERVAL, COUNT, UNTIL and WKST: stepped in elapsed hours.
    var isPlainHourly: Bool {
        self["FREQ"]?.uppercased() == "HOURLY"
            && parts.allSatisfy { ["FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"].contains($0.key) }
    }

    /// Why this rule is refused as an RRULE (only DTSTART is then used), or nil when it may be expanded.
    var refusal: String? { problem.map { $0 + "; only DTSTART is used" } }

    /// Why this rule cannot be expanded, or nil.
    var problem: String? {
        guard let freq = self["FREQ"]?.uppercased() else { return "RRULE has no FREQ" }
        switch freq {
        case "SECONDLY", "MINUTELY":
            return "FREQ=\(freq) is refused (it can produce millions of occurrences)"
        case "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY":
            break
        default:
            return "FREQ=\(freq) is not a recurrence frequency"
        }
        if let interval = self["INTERVAL"] {
            guard let number = Int(interval), number >= 1 else {
                return "INTERVAL=\(interval) is refused (it must be a whole number of at least 1)"
            }
        }
        if let count = self["COUNT"] {
            guard let number = Int(count), number >= 1 else {
                return "COUNT=\(count) is refused (it must be at least 1)"
            }
        }
        if let problem = impossibility { return problem }
        if self["BYSETPOS"] != nil {
            // BYSETPOS picks from the whole expanded set, so these lists stay libical's, which builds
            // that set on every step: 60 ms a step for a second-by-second year (see `TimesOfDay`).
            let perDay = ["BYHOUR", "BYMINUTE", "BYSECOND"].map { numbers($0)?.count ?? 1 }.reduce(1, *)
            if perDay > 1_440 {
                return "BYSETPOS over \(perDay) times a day is refused (more than one a minute, like FREQ=MINUTELY)"
            }
        }
        if let unknown = parts.first(where: { !Self.knownParts.contains($0.key) }) {
            let guess = Self.knownParts.sorted().first { Self.isMisspelling(unknown.key, of: $0) }
            return "'\(unknown.key)=' is not an RRULE part" + (guess.map { " (did you mean \($0)=?)" } ?? "")
        }
        if self["UNTIL"] != nil && self["COUNT"] != nil {
            return "RRULE has both COUNT and UNTIL, which RFC 5545 forbids"
        }
        return forbiddenPart(freq)
    }

    /// A part RFC 5545 (3.3.10) forbids with this frequency (libical refuses the rule, which kept
    /// only DTSTART without a word): BYWEEKNO outside YEARLY, BYYEARDAY with DAILY, WEEKLY or
    /// MONTHLY, BYMONTHDAY with WEEKLY.
    private func forbiddenPart(_ freq: String) -> String? {
        let forbidden = [("BYWEEKNO", ["HOURLY", "DAILY", "WEEKLY", "MONTHLY"]), ("BYYEARDAY", ["DAILY", "WEEKLY", "MONTHLY"]),
                         ("BYMONTHDAY", ["WEEKLY"])]
        guard let (part, _) = forbidden.first(where: { self[$0.0] != nil && $0.1.contains(freq) }) else { return nil }
        return "RFC 5545 forbids \(part) with FREQ=\(freq)"
    }

    /// RFC 5545's rule parts, and RFC 7529's RSCALE and SKIP (libical reads them).
    static let knownParts: Set<String> = [
        "FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
        "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP",
    ]

    /// One letter left out, added or changed (`UNTL` for `UNTIL`, `BYDAYS` for `BYDAY`).
    static func isMisspelling(_ text: String, of known: String) -> Bool {
        let a = Array(text), b = Array(known)
        guard abs(a.count - b.count) <= 1 else { return false }
        var i = 0, j = 0, edits = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                i += 1
                j += 1
                continue
            }
            edits += 1
            if a.count > b.count { i += 1 } else if a.count < b.count { j += 1 } else { i += 1; j += 1 }
        }
        return edits + (a.count - i) + (b.count - j) <= 1
    }

    private static let ranges: [(String, ClosedRange<Int>, Bool)] = [
        ("BYSECOND", 0...60, false), ("BYMINUTE", 0...59, false), ("BYHOUR", 0...23, false),
        ("BYMONTHDAY", 1...31, true), ("BYYEARDAY", 1...366, true), ("BYWEEKNO", 1...53, true),
        ("BYMONTH", 1...12, false), ("BYSETPOS", 1...366, true),
    ]

    /// The comma-separated numbers of a part (Int.min for one that is not a number), or nil without it.
    func numbers(_ key: String) -> [Int]? {
        self[key].map { $0.split(separator: ",").map { Int($0.trimmingWhitespace()) ?? Int.min } }
    }

    /// Out-of-range BYxxx values, or BYMONTH/BYMONTHDAY that can never meet (Feb 30): libical
    /// would search such a rule for centuries inside one call (20 s for an HOURLY one).
    private var impossibility: String? {
        if let problem = nonGregorianMonthProblem { return problem }
        for (key, range, signed) in Self.ranges {
            // RFC 7529: with RSCALE, BYMONTH counts the months of that calendar (checked above).
            if key == "BYMONTH", self["RSCALE"] != nil { continue }
            guard let values = numbers(key) else { continue }
            for value in values where !(range.contains(value) || (signed && value != Int.min && range.contains(-value))) {
                return "\(key)=\(self[key] ?? "") is out of range (\(signed ? "±" : "")\(range.lowerBound)…\(range.upperBound))"
            }
        }
        if let problem = impossibleWeekday { return problem }
        if self["RSCALE"] == nil, let months = numbers("BYMONTH"), let days = numbers("BYMONTHDAY") {
            let longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            let possible = months.contains { month in days.contains { abs($0) <= longest[month - 1] } }
            if !possible {
                return "BYMONTH=\(self["BYMONTH"] ?? "") with BYMONTHDAY=\(self["BYMONTHDAY"] ?? "") can never match"
            }
        }
        return nil
    }

    /// BYMONTH under RSCALE (RFC 7529): months 1…13 (the Ethiopic and Coptic years' thirteenth, the Hebrew
    /// leap year's last), each optionally a leap month (`5L`, Hebrew Adar I); libical's ICU calendars place them.
    private var nonGregorianMonthProblem: String? {
        guard self["RSCALE"] != nil, let months = self["BYMONTH"] else { return nil }
        for month in months.split(separator: ",") {
            let text = month.trimmingWhitespace().uppercased()
            let number = Int(text.hasSuffix("L") ? String(text.dropLast()) : text)
            guard let number, (1...13).contains(number) else {
                return "BYMONTH=\(months) is out of range (1…13, a leap month as 5L)"
            }
        }
        return nil
    }

    /// A BYDAY ordinal beyond the weekdays of its period (`FREQ=MONTHLY;BYDAY=6MO`: no month has a
    /// sixth Monday; `+53MO` in a month, `54MO` in a year): libical searches for it for centuries.
    private var impossibleWeekday: String? {
        guard let days = self["BYDAY"] else { return nil }
        let frequency = self["FREQ"]?.uppercased()
        let inMonths = frequency == "MONTHLY" || (frequency == "YEARLY" && self["BYMONTH"] != nil)
        let inYears = frequency == "YEARLY" && !inMonths && self["BYWEEKNO"] == nil
        guard inMonths || inYears else { return nil }
        let most = inMonths ? 5 : 53
        for day in days.split(separator: ",") {
            let ordinal = day.trimmingWhitespace().prefix { $0 == "+" || $0 == "-" || $0.isNumber }
            guard !ordinal.isEmpty, let number = Int(ordinal), number == 0 || abs(number) > most else { continue }
            let period = inMonths ? "a month" : "a year"
            return "BYDAY=\(days) can never match (\(period) has at most \(most) of each weekday)"
        }
        return nil
    }

    /// The rule without a malformed COUNT or UNTIL when the other one is valid (`UNTIL=20270101T000000Z;COUNT=abc`),
    /// and the part left out; nil when there is nothing to drop. RFC 5545 allows only one of the two, so the valid
    /// one alone bounds the series as its author meant, where refusing the rule would keep only DTSTART.
    var withoutMalformedEnd: (rule: ICalRuleText, dropped: String)? {
        guard let count = self["COUNT"], let until = self["UNTIL"] else { return nil }
        let countIsValid = Int(count).map { $0 >= 1 } ?? false
        guard countIsValid != hasWellFormedUntil else { return nil }
        let key = countIsValid ? "UNTIL" : "COUNT"
        var kept = self
        kept.parts.removeAll { $0.key == key }
        return (kept, "\(key)=\(countIsValid ? until : count)")
    }

    /// The rule with its BYDAY ordinals dropped where RFC 5545 forbids them (a FREQ other than
    /// MONTHLY or YEARLY, or beside BYWEEKNO), read as dateutil and libical's WEEKLY read them
    /// (`DAILY;BYDAY=-1FR`: every Friday, where libical walked nothing and only DTSTART was kept);
    /// and the BYDAY as written. Nil when there are none to drop.
    var withoutForbiddenOrdinals: (rule: ICalRuleText, dropped: String)? {
        guard let days = self["BYDAY"], days.contains(where: \.isNumber) else { return nil }
        let frequency = self["FREQ"]?.uppercased() ?? ""
        guard !["MONTHLY", "YEARLY"].contains(frequency) || (frequency == "YEARLY" && self["BYWEEKNO"] != nil) else { return nil }
        var plain: [String] = []
        for day in days.split(separator: ",") {
            let name = String(day.trimmingWhitespace().drop { $0 == "+" || $0 == "-" || $0.isNumber }).uppercased()
            if !plain.contains(name) { plain.append(name) }
        }
        var kept = self
        if let at = kept.parts.firstIndex(where: { $0.key == "BYDAY" }) { kept.parts[at].value = plain.joined(separator: ",") }
        return (kept, "BYDAY=" + days)
    }

    /// Whether UNTIL is a DATE (`20270101`) or DATE-TIME (`20270101T000000Z`, or floating) with a real month and day.
    var hasWellFormedUntil: Bool {
        guard let text = self["UNTIL"] else { return false }
        let bytes = Array(text.utf8)
        let isDigit: (Int) -> Bool = { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }
        let shapeIsValid: Bool
        switch bytes.count {
        case 8: shapeIsValid = (0..<8).allSatisfy(isDigit)
        case 15, 16:
            shapeIsValid = (0..<8).allSatisfy(isDigit) && bytes[8] == UInt8(ascii: "T") && (9..<15).allSatisfy(isDigit)
                && (bytes.count == 15 || bytes[15] == UInt8(ascii: "Z"))
        default: shapeIsValid = false
        }
        guard shapeIsValid else { return false }
        let number: (Int, Int) -> Int = { from, length in Int(String(decoding: bytes[from..<from + length], as: UTF8.self)) ?? -1 }
        let timeIsValid = bytes.count == 8 || (number(9, 2) <= 23 && number(11, 2) <= 59 && number(13, 2) <= 60)
        return (1...12).contains(number(4, 2)) && (1...31).contains(number(6, 2)) && timeIsValid
    }

    /// UNTIL as a value: a date, a UTC time, or a floating time read in the event's zone.
    var until: ICalDateValue? {
        guard let text = self["UNTIL"] else { return nil }
        let digits = text.filter(\.isNumber)
        func number(_ from: Int, _ length: Int) -> Int? {
            let start = digits.index(digits.startIndex, offsetBy: from)
            let end = digits.index(start, offsetBy: length)
            return Int(digits[start..<end])
        }
        guard digits.count >= 8, let year = number(0, 4), let month = number(4, 2), let day = number(6, 2)
        else { return nil }
        guard digits.count >= 14, let hour = number(8, 2), let minute = number(10, 2), let second = number(12, 2)
        else { return .date(year: year, month: month, day: day) }
        let local = ICalLocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard text.uppercased().hasSuffix("Z"), let utc = TimeZone(identifier: "UTC") else { return .floating(local) }
        return .utc(local.instant(in: utc))
    }
}

extension ICalLocalDateTime: Comparable {
    public static func < (lhs: ICalLocalDateTime, rhs: ICalLocalDateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }
}

extension ICalRecurrence {
    /// Why an RRULE value would be refused (SECONDLY, MINUTELY, INTERVAL=0, impossible BYxxx…),
    /// or nil when it may be expanded. Cheap: no libical call.
    public static func refusal(rrule: String) -> String? {
        ICalRuleText(rrule).refusal
    }

    /// `rrule` with the BYDAY ordinals RFC 5545 forbids dropped (`DAILY;BYDAY=-1FR` read as
    /// `DAILY;BYDAY=FR`), and the BYDAY as written; nil when it has none.
    public static func withoutForbiddenOrdinals(rrule: String) -> (rule: String, dropped: String)? {
        ICalRuleText(rrule).withoutForbiddenOrdinals.map { ($0.rule.text, $0.dropped) }
    }

    /// Why an EXRULE value would not be used (it then removes nothing), or nil.
    public static func refusal(exrule: String) -> String? {
        ICalRuleText(exrule).problem.map { "EXRULE '\(exrule)' is not used: " + $0 }
    }
}

public extension StringProtocol {
    /// `trimmingCharacters(in: .whitespaces)`, with the common case (nothing to trim) answered from
    /// the first and last bytes: Foundation's CharacterSet path showed in import profiles.
    func trimmingWhitespace() -> String {
        let plain: (UInt8?) -> Bool = { $0.map { $0 < 0x80 && $0 != 0x20 && $0 != 0x09 } ?? false }
        let text = String(self)
        return plain(text.utf8.first) && plain(text.utf8.last) ? text : text.trimmingCharacters(in: .whitespaces)
    }
}
