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

/// A WHEN that could not be read; names the word, quotes the input as given.
public struct WhenError: Error, Equatable, CustomStringConvertible {
    public var input: String
    public var token: String
    public var expected: String
    /// The nearest accepted word or form, when there is a plausible one.
    public var suggestion: String?
    /// The time is one the zone's clocks skip (`WhenParser.refusesSkippedTimes`).
    public var skippedTime = false

    public init(input: String, token: String, expected: String, suggestion: String?) {
        self.input = input
        self.token = token
        self.expected = expected
        self.suggestion = suggestion
    }

    public var description: String {
        var text = "cannot read time \"\(input)\": \"\(token)\" is not \(expected)"
        if let suggestion { text += " (did you mean '\(suggestion)'?)" }
        return text
    }
}

/// Parses the WHEN forms of the command line, relative to an injected `now`, calendar and locale.
///
/// The forms are listed, with what each means, in ``WhenForms/table``; month and weekday names
/// are English or the locale's (``WhenNames``), and `12/24` follows the locale's numeric order.
public struct WhenParser: Sendable {
    public let now: Date
    public let calendar: Calendar
    public let names: WhenNames
    /// Refuse a wall-clock time the zone skips that day (02:30 when the clocks go from 02:00 to
    /// 03:00), naming the gap, where the parser otherwise moves it on by the gap as RFC 5545 does:
    /// an event's start is never saved an hour off without a word.
    public var refusesSkippedTimes = false

    public init(now: Date, calendar: Calendar, locale: Locale = Locale(identifier: "en_US")) {
        self.now = now
        self.calendar = calendar
        self.names = WhenNames(locale: locale)
    }

    /// Parses `input`; a WHEN outside ``RepresentableDates`` (`+999999w999999w`) is refused.
    public func parse(_ input: String) throws -> When {
        let when: When
        do {
            when = try parseAnyYear(input)
        } catch var error as WhenError {
            // Words run together ("24dec18:00"): suggest them apart when that reads.
            if error.suggestion == nil, let spaced = Self.spacedOut(input), spaced != input,
               (try? parseAnyYear(spaced)) != nil {
                error.suggestion = spaced
            }
            throw error
        }
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
            throw WhenError(input: input, token: "", expected: "a date or time", suggestion: "tomorrow 9am")
        }
        if text.hasPrefix("+") { return .instant(try relative(text, input: input)) }
        if let first = text.first, first.isNumber, text.count >= 10,
           CalendarDate(iso: text.prefix(10)) != nil || text.dropFirst(4).first == "-" {
            return try iso(text, input: input)
        }
        return try words(text, input: input)
    }

    /// `24dec18:00` → `24 dec 18:00`: a space wherever digits and letters meet, except before the
    /// `am`/`pm` of a time (`tomorrow9am` → `tomorrow 9am`); nil when nothing was apart.
    static func spacedOut(_ input: String) -> String? {
        let chars = Array(input)
        var out = ""
        for (index, char) in chars.enumerated() {
            if index > 0 {
                let previous = chars[index - 1]
                let rest = String(chars[index...].prefix(3)).lowercased()
                let meridiem = (rest.hasPrefix("am") || rest.hasPrefix("pm")) && (rest.count == 2 || rest.last == " ")
                if (previous.isNumber && char.isLetter && !meridiem) || (previous.isLetter && char.isNumber) { out.append(" ") }
            }
            out.append(char)
        }
        return out == input ? nil : out
    }

    func instant(_ day: CalendarDate, _ clock: Clock, input: String) throws -> Date {
        let parts = DateComponents(year: day.year, month: day.month, day: day.day,
                                   hour: clock.hour, minute: clock.minute, second: clock.second)
        guard let date = calendar.date(from: parts) else {
            throw WhenError(input: input, token: input, expected: "a valid date", suggestion: nil)
        }
        if refusesSkippedTimes, let gap = skipped(day, clock, date, input: input) { throw gap }
        return date
    }

    /// The refusal of `clock` on `day` when the zone's clocks skip it (`date`: where Foundation put
    /// it, moved on by the gap), naming the gap and suggesting that moved time; nil when it exists.
    private func skipped(_ day: CalendarDate, _ clock: Clock, _ date: Date, input: String) -> WhenError? {
        let zone = calendar.timeZone
        let moved = LocalTime(date, in: zone)
        let shown = Clock(moved)
        guard shown != clock || moved.date != day else { return nil }
        // The first second of the new offset, bisected within the day before `date`.
        func offset(_ second: Int) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(second))) }
        var high = Int(date.timeIntervalSince1970.rounded(.down))
        var low = high - 86_400
        let before = offset(low)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == before { low = middle } else { high = middle }
        }
        let change = Date(timeIntervalSince1970: TimeInterval(high))
        let from = LocalTime(change, offset: before)
        let to = LocalTime(change, offset: offset(high))  // the next day's, where a whole day is skipped (Apia, 2011-12-30)
        var error = WhenError(input: input, token: clock.text,
                              expected: "a time on the clock in \(zone.identifier) on \(day): it goes from \(Clock(from).text) straight to "
                                  + Clock(to).text + (to.date == day ? "" : " on \(to.date)"),
                              suggestion: "\(moved.date) \(shown.text)")
        error.skippedTime = true
        return error
    }

    private func relative(_ text: String, input: String) throws -> Date {
        guard let lead = LeadTime(duration: String(text.dropFirst())) else {
            throw WhenError(input: input, token: text, expected: "a relative time like +2d, +90m or +1h30m", suggestion: nil)
        }
        return try shifted(days: lead.days, seconds: lead.seconds, token: text, input: input)
    }

    /// `now` moved by calendar days (in the zone: a DST day is 23 or 25 hours) and exact seconds.
    func shifted(days: Int, seconds: Int, token: String, input: String) throws -> Date {
        guard let moved = calendar.date(byAdding: .day, value: days, to: now) else {
            throw WhenError(input: input, token: token, expected: "a time in the years " + RepresentableDates.rangeText, suggestion: nil)
        }
        return moved.addingTimeInterval(TimeInterval(seconds))
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
        let clockText = String(rest).lowercased().replacingOccurrences(of: " ", with: "")
        guard let clock = Clock(clockText) else {
            throw WhenError(input: input, token: String(rest), expected: Clock.expected, suggestion: nil)
        }
        guard let offset else { return .instant(try instant(day, clock, input: input)) }
        let seconds = day.dayNumber * 86_400 + clock.hour * 3600 + clock.minute * 60 + clock.second - offset
        return .instant(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// A time of day: `9am`, `9:30pm`, `18:00`, `18:00:30`, `noon`, `midnight`.
struct Clock: Equatable {
    var hour: Int, minute: Int, second: Int

    static let expected = "a time like 18:00, 6am or 6:30 pm"

    init(hour: Int, minute: Int, second: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The time of day of `time`.
    init(_ time: LocalTime) {
        self.init(hour: time.hour, minute: time.minute, second: time.second)
    }

    /// Reads one word; `meridiem` is a separate `am`/`pm` word that followed it (`6:30 pm`).
    /// A bare number (`9`) is an hour only with `bareHour` (after `at`) or a meridiem.
    init?(_ raw: String, meridiem separate: String? = nil, bareHour: Bool = false) {
        if separate == nil, raw == "noon" { self.init(hour: 12, minute: 0, second: 0); return }
        if separate == nil, raw == "midnight" { self.init(hour: 0, minute: 0, second: 0); return }
        var body = Substring(raw)
        var meridiem = separate
        if meridiem == nil, body.hasSuffix("am") || body.hasSuffix("pm") {
            meridiem = String(body.suffix(2))
            body = body.dropLast(2)
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
              let h = Int(parts[0]), let m = parts.count > 1 ? Int(parts[1]) : 0,
              let s = parts.count > 2 ? Int(parts[2]) : 0, (0...59).contains(m), (0...59).contains(s)
        else { return nil }
        if parts.count == 1, meridiem == nil, !bareHour { return nil }
        if let meridiem {
            guard (1...12).contains(h) else { return nil }
            self.init(hour: (h % 12) + (meridiem == "pm" ? 12 : 0), minute: m, second: s)
            return
        }
        guard (0...23).contains(h) else { return nil }
        self.init(hour: h, minute: m, second: s)
    }

    /// `06:00`, `18:30:15`.
    var text: String {
        CivilDate.pad2(hour) + ":" + CivilDate.pad2(minute) + (second == 0 ? "" : ":" + CivilDate.pad2(second))
    }
}
