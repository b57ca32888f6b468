import Foundation

/// A point in time given on the command line: an instant, or a whole day (all-day).
public enum When: Sendable, Hashable {
    case instant(Date)
    case date(CalendarDate)

    public var eventStart: EventStart {
        switch self {
        case .instant(let date): .instant(date)
        case .date(let day): .allDay(day)
        }
    }
}

/// A WHEN that could not be read; names the token.
public struct WhenError: Error, Equatable, CustomStringConvertible {
    public var input: String
    public var token: String
    public var expected: String
    public var suggestion: String?

    public var description: String {
        var text = "cannot read time \"\(input)\": \"\(token)\" is not \(expected)"
        if let suggestion { text += " (did you mean '\(suggestion)'?)" }
        return text
    }
}

/// Parses the WHEN forms of the command line, relative to an injected `now` and calendar.
///
/// Accepted: `2026-12-03`, `2026-12-03 09:00`, `2026-12-03T09:00+01:00`, `2026-12-03T08:00Z`,
/// `today`, `tomorrow 9am`, `yesterday 18:30`, `18:00`, `noon`, `+2d`, `+90m`, `+1h30m`,
/// `mon 10:00`, `next fri`, `friday 5pm`.
public struct WhenParser: Sendable {
    public let now: Date
    public let calendar: Calendar

    public init(now: Date, calendar: Calendar) {
        self.now = now
        self.calendar = calendar
    }

    static let weekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2,
        "wed": 3, "wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4,
        "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]
    static let dayWords = ["today", "tomorrow", "yesterday", "next", "noon", "midnight"] + weekdays.keys.sorted()

    /// Parses `input`; a WHEN outside ``RepresentableDates`` (`+999999w999999w`) is refused.
    public func parse(_ input: String) throws -> When {
        let when = try parseAnyYear(input)
        let kept = switch when {
        case .instant(let date): RepresentableDates.contains(date)
        case .date(let day): RepresentableDates.problem(year: day.year, month: day.month, day: day.day) == nil
        }
        guard kept else {
            throw WhenError(input: input, token: input, expected: "a time in the years " + RepresentableDates.rangeText, suggestion: nil)
        }
        return when
    }

    private func parseAnyYear(_ input: String) throws -> When {
        let text = input.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            throw WhenError(input: input, token: "", expected: "a date or time", suggestion: nil)
        }
        if text.hasPrefix("+") { return .instant(try relative(text, input: input)) }
        if let first = text.first, first.isNumber, text.count >= 10,
           CalendarDate(iso: text.prefix(10)) != nil || text.dropFirst(4).first == "-" {
            return try iso(text, input: input)
        }
        var tokens = text.lowercased().split(separator: " ").map(String.init)
        let day = try dayWord(&tokens, input: input)
        guard !tokens.isEmpty else {
            guard let day else { throw WhenError(input: input, token: text, expected: "a date or time", suggestion: nil) }
            return .date(day)
        }
        let clock = try timeOfDay(tokens.joined(), input: input)
        let base = day ?? CalendarDate(now, in: calendar.timeZone)
        return .instant(try instant(base, clock, input: input))
    }

    private func dayWord(_ tokens: inout [String], input: String) throws -> CalendarDate? {
        guard let word = tokens.first else { return nil }
        let today = LocalTime(now, in: calendar.timeZone)
        switch word {
        case "today": tokens.removeFirst(); return today.date
        case "tomorrow": tokens.removeFirst(); return CalendarDate(dayNumber: today.dayNumber + 1)
        case "yesterday": tokens.removeFirst(); return CalendarDate(dayNumber: today.dayNumber - 1)
        case "next":
            tokens.removeFirst()
            guard let name = tokens.first else {
                throw WhenError(input: input, token: "next", expected: "followed by a weekday", suggestion: nil)
            }
            guard let target = Self.weekdays[name] else {
                throw WhenError(input: input, token: name, expected: "a weekday",
                                suggestion: Suggestion.nearest(to: name, in: Self.weekdays.keys.sorted()))
            }
            tokens.removeFirst()
            let ahead = (target - today.weekday + 7) % 7
            return CalendarDate(dayNumber: today.dayNumber + (ahead == 0 ? 7 : ahead))
        default:
            if let target = Self.weekdays[word] {
                tokens.removeFirst()
                return CalendarDate(dayNumber: today.dayNumber + (target - today.weekday + 7) % 7)
            }
            if word.first?.isNumber == true || word == "noon" || word == "midnight" { return nil }
            throw WhenError(input: input, token: word, expected: "a date, time or day word",
                            suggestion: Suggestion.nearest(to: word, in: Self.dayWords))
        }
    }

    /// `9`, `9am`, `9:30pm`, `18:00`, `18:00:30`, `noon`, `midnight` → seconds after midnight.
    private func timeOfDay(_ raw: String, input: String) throws -> (hour: Int, minute: Int, second: Int) {
        let bad = WhenError(input: input, token: raw, expected: "a time like 18:00 or 9am", suggestion: nil)
        if raw == "noon" { return (12, 0, 0) }
        if raw == "midnight" { return (0, 0, 0) }
        var body = Substring(raw)
        var meridiem: String?
        if body.hasSuffix("am") || body.hasSuffix("pm") {
            meridiem = String(body.suffix(2))
            body = body.dropLast(2)
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
              let h = Int(parts[0]), let m = parts.count > 1 ? Int(parts[1]) : 0,
              let s = parts.count > 2 ? Int(parts[2]) : 0, (0...59).contains(m), (0...59).contains(s)
        else { throw bad }
        if parts.count == 1, meridiem == nil { throw bad }
        if let meridiem {
            guard (1...12).contains(h) else { throw bad }
            return ((h % 12) + (meridiem == "pm" ? 12 : 0), m, s)
        }
        guard (0...23).contains(h) else { throw bad }
        return (h, m, s)
    }

    private func instant(_ day: CalendarDate, _ clock: (hour: Int, minute: Int, second: Int), input: String) throws -> Date {
        let parts = DateComponents(year: day.year, month: day.month, day: day.day,
                                   hour: clock.hour, minute: clock.minute, second: clock.second)
        guard let date = calendar.date(from: parts) else {
            throw WhenError(input: input, token: input, expected: "a valid date", suggestion: nil)
        }
        return date
    }

    private func relative(_ text: String, input: String) throws -> Date {
        guard let lead = LeadTime(String(text.dropFirst())) else {
            throw WhenError(input: input, token: text, expected: "a relative time like +2d, +90m or +1h30m", suggestion: nil)
        }
        guard let shifted = calendar.date(byAdding: .day, value: lead.days, to: now) else {
            throw WhenError(input: input, token: text, expected: "a time in the years " + RepresentableDates.rangeText, suggestion: nil)
        }
        return shifted.addingTimeInterval(TimeInterval(lead.seconds))
    }

    private func iso(_ text: String, input: String) throws -> When {
        let datePart = text.prefix(10)
        guard let day = CalendarDate(iso: datePart) else {
            throw WhenError(input: input, token: String(datePart), expected: "a date like 2026-12-03", suggestion: nil)
        }
        var rest = text.dropFirst(10)
        if rest.isEmpty { return .date(day) }
        guard rest.first == "T" || rest.first == " " || rest.first == "t" else {
            throw WhenError(input: input, token: String(rest), expected: "a time after the date", suggestion: nil)
        }
        rest = rest.dropFirst().drop(while: { $0 == " " })
        var offset: Int?
        if rest.hasSuffix("Z") || rest.hasSuffix("z") {
            offset = 0
            rest = rest.dropLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = rest[rest.index(after: sign)...].replacingOccurrences(of: ":", with: "")
            guard zone.count == 4 || zone.count == 2, let value = Int(zone) else {
                throw WhenError(input: input, token: String(rest[sign...]), expected: "a UTC offset like +01:00", suggestion: nil)
            }
            let minutes = zone.count == 4 ? value / 100 * 60 + value % 100 : value * 60
            offset = (rest[sign] == "-" ? -1 : 1) * minutes * 60
            rest = rest[..<sign]
        }
        let clock = try timeOfDay(String(rest).lowercased(), input: input)
        guard let offset else { return .instant(try instant(day, clock, input: input)) }
        let seconds = day.dayNumber * 86_400 + clock.hour * 3600 + clock.minute * 60 + clock.second - offset
        return .instant(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
