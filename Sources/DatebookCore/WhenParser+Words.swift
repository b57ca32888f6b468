import Foundation

/// The WHEN forms made of words: `tomorrow at 9am`, `in 2 hours`, `dec 24 18:00`, `24 december
/// 2027 9:30`, `12/24`, `next monday`, `next week`, `6:30 pm`.
///
/// One pass over the words, each read as a day, a time of day or a shift from now; a word that is
/// none of them is named in the error, with the nearest word or form that would have been read.
extension WhenParser {
    /// The words that are not names or numbers, for "did you mean".
    static let keywords = ["today", "tomorrow", "yesterday", "next", "week", "in", "at", "noon", "midnight", "am", "pm"]
    static let units: [String: (days: Int, seconds: Int)] = [
        "minute": (0, 60), "minutes": (0, 60), "min": (0, 60), "mins": (0, 60), "m": (0, 60),
        "hour": (0, 3600), "hours": (0, 3600), "hr": (0, 3600), "hrs": (0, 3600), "h": (0, 3600),
        "day": (1, 0), "days": (1, 0), "d": (1, 0),
        "week": (7, 0), "weeks": (7, 0), "w": (7, 0),
    ]

    private struct Reading {
        var day: CalendarDate?
        var clock: Clock?
        var shift: (days: Int, seconds: Int)?
    }

    func words(_ text: String, input: String) throws -> When {
        let raw = text.split(whereSeparator: \.isWhitespace).map(String.init)
        let words = raw.map { word in
            var key = word.lowercased()
            while key.hasSuffix(",") { key.removeLast() }
            return key
        }
        let today = LocalTime(now, in: calendar.timeZone)
        var reading = Reading()
        var index = 0
        func fail(_ at: Int, _ expected: String, _ suggestion: String? = nil) -> WhenError {
            WhenError(input: input, token: raw[at], expected: expected, suggestion: suggestion)
        }
        func setDay(_ day: CalendarDate, at: Int) throws {
            guard reading.day == nil, reading.shift == nil else { throw fail(at, "a second date (give one day)") }
            reading.day = day
        }
        func setClock(_ clock: Clock, at: Int) throws {
            guard reading.clock == nil else { throw fail(at, "a second time of day (give one)") }
            reading.clock = clock
        }
        while index < words.count {
            let word = words[index], name = Self.withoutDots(word)
            let nextWord = index + 1 < words.count ? words[index + 1] : nil
            switch word {
            case "today": try setDay(today.date, at: index)
            case "tomorrow": try setDay(CalendarDate(dayNumber: today.dayNumber + 1), at: index)
            case "yesterday": try setDay(CalendarDate(dayNumber: today.dayNumber - 1), at: index)
            case "noon": try setClock(Clock(hour: 12, minute: 0, second: 0), at: index)
            case "midnight": try setClock(Clock(hour: 0, minute: 0, second: 0), at: index)
            case "next":
                guard let target = nextWord else { throw fail(index, "followed by a weekday or 'week'", "next monday") }
                if target == "week" {
                    // Monday of the week after this one (ISO weeks start on Monday).
                    let monday = today.dayNumber - (today.weekday + 6) % 7
                    try setDay(CalendarDate(dayNumber: monday + 7), at: index)
                } else if let weekday = names.weekdays[Self.withoutDots(target)] {
                    let ahead = (weekday - today.weekday + 7) % 7
                    try setDay(CalendarDate(dayNumber: today.dayNumber + (ahead == 0 ? 7 : ahead)), at: index)
                } else {
                    throw fail(index + 1, "a weekday or 'week'", Suggestion.nearest(to: target, in: Array(names.weekdays.keys) + ["week"]))
                }
                index += 1
            case "in":
                index = try inShift(words, raw, from: index, into: &reading.shift, input: input)
                if reading.day != nil { throw fail(0, "a date together with 'in …' (give one)") }
            case "at":
                guard let clockWord = nextWord else { throw fail(index, "followed by a time", "at 9am") }
                let meridiem = index + 2 < words.count && ["am", "pm"].contains(words[index + 2]) ? words[index + 2] : nil
                guard let clock = Clock(clockWord, meridiem: meridiem, bareHour: true) else {
                    throw fail(index + 1, Clock.expected, Suggestion.nearest(to: clockWord, in: ["noon", "midnight"]))
                }
                try setClock(clock, at: index + 1)
                index += meridiem == nil ? 1 : 2
            default:
                if let weekday = names.weekdays[name] {
                    try setDay(CalendarDate(dayNumber: today.dayNumber + (weekday - today.weekday + 7) % 7), at: index)
                } else if let month = names.months[name] {
                    // `dec 24`, `dec 24 2027`, `december 24, 2027`
                    guard let dayWord = nextWord, let dayNumber = Self.dayOfMonth(dayWord) else {
                        throw fail(min(index + 1, words.count - 1), "a day of the month after '\(raw[index])'", raw[index] + " 24")
                    }
                    let year = index + 2 < words.count ? Self.year(words[index + 2]) : nil
                    try setDay(try date(month: month, day: dayNumber, year: year, dayAt: index + 1, raw: raw, input: input), at: index)
                    index += year == nil ? 1 : 2
                } else if let dayNumber = Self.dayOfMonth(word), let month = nextWord.flatMap({ names.months[Self.withoutDots($0)] }) {
                    // `24 dec`, `24. Dezember 2027`
                    let year = index + 2 < words.count ? Self.year(words[index + 2]) : nil
                    try setDay(try date(month: month, day: dayNumber, year: year, dayAt: index, raw: raw, input: input), at: index)
                    index += year == nil ? 1 : 2
                } else if word.contains("/") || (word.contains(".") && word.first?.isNumber == true) {
                    try setDay(try numericDate(word, raw: raw[index], today: today, input: input), at: index)
                } else if let meridiem = nextWord, ["am", "pm"].contains(meridiem), let clock = Clock(word, meridiem: meridiem) {
                    try setClock(clock, at: index)
                    index += 1
                } else if let clock = Clock(word) {
                    try setClock(clock, at: index)
                } else if word.first?.isNumber == true || word.hasPrefix("+") {
                    // A bare hour (`9`) reads after `at` or with am/pm; say so.
                    let hint = Int(word).flatMap { (0...23).contains($0) ? "\($0):00" : nil }
                    throw fail(index, Clock.expected, hint)
                } else {
                    throw fail(index, "a date, time or day word",
                               Suggestion.nearest(to: name, in: Self.keywords + names.weekdays.keys.sorted() + names.months.keys.sorted()))
                }
            }
            index += 1
        }
        return try combine(reading.day, reading.clock, reading.shift, raw: raw, input: input)
    }

    /// `in 2 hours`, `in 3 days`, `in an hour`, `in 90m`: returns the index of the last word read.
    private func inShift(_ words: [String], _ raw: [String], from start: Int, into shift: inout (days: Int, seconds: Int)?,
                         input: String) throws -> Int {
        func fail(_ at: Int, _ expected: String, _ suggestion: String?) -> WhenError {
            WhenError(input: input, token: raw[min(at, raw.count - 1)], expected: expected, suggestion: suggestion)
        }
        guard shift == nil else { throw fail(start, "a second 'in …' (give one)", nil) }
        guard start + 1 < words.count else { throw fail(start, "followed by an amount", "in 2 hours") }
        let amountWord = words[start + 1]
        if let lead = LeadTime(duration: amountWord) {
            shift = (lead.days, lead.seconds)
            return start + 1
        }
        guard let amount = ["a": 1, "an": 1][amountWord] ?? Int(amountWord), amount >= 0, amount < 1_000_000 else {
            throw fail(start + 1, "an amount like 2 or 90m", "in 2 hours")
        }
        guard start + 2 < words.count else { throw fail(start + 1, "followed by a unit", "in \(amountWord) hours") }
        let unitWord = words[start + 2]
        guard let unit = Self.units[unitWord] else {
            throw fail(start + 2, "a unit (minutes, hours, days, weeks)",
                       Suggestion.nearest(to: unitWord, in: ["minutes", "hours", "days", "weeks"]).map { "in \(amountWord) \($0)" })
        }
        shift = (unit.days * amount, unit.seconds * amount)
        return start + 2
    }

    private func combine(_ day: CalendarDate?, _ clock: Clock?, _ shift: (days: Int, seconds: Int)?,
                         raw: [String], input: String) throws -> When {
        if let shift {
            if let clock {
                // `in 3 days at 9am`: that day, at that time; an exact shift has its own time.
                guard shift.seconds == 0 else {
                    throw WhenError(input: input, token: input, expected: "a shift in hours together with a time of day",
                                    suggestion: "in \(shift.seconds / 3600 + shift.days * 24) hours")
                }
                let moved = try shifted(days: shift.days, seconds: 0, token: input, input: input)
                return .instant(try instant(CalendarDate(moved, in: calendar.timeZone), clock, input: input))
            }
            return .instant(try shifted(days: shift.days, seconds: shift.seconds, token: input, input: input))
        }
        switch (day, clock) {
        case (let day?, let clock?): return .instant(try instant(day, clock, input: input))
        case (let day?, nil): return .date(day)
        case (nil, let clock?): return .instant(try instant(CalendarDate(now, in: calendar.timeZone), clock, input: input))
        case (nil, nil): throw WhenError(input: input, token: input, expected: "a date or time", suggestion: "tomorrow 9am")
        }
    }

    /// A lower-case word without the dots of an abbreviation (`dez.` → `dez`).
    static func withoutDots(_ word: String) -> String {
        var key = word
        while key.hasSuffix(".") { key.removeLast() }
        return key
    }

    /// `24`, `24.`, `24th`, `1st` → 1…31.
    static func dayOfMonth(_ word: String) -> Int? {
        var digits = Substring(word)
        for suffix in [".", "st", "nd", "rd", "th"] where digits.hasSuffix(suffix) { digits = digits.dropLast(suffix.count) }
        guard (1...2).contains(digits.count), digits.allSatisfy(\.isASCII), let day = Int(digits), (1...31).contains(day) else { return nil }
        return day
    }

    static func year(_ word: String) -> Int? {
        guard word.count == 4, word.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(word)
    }

    /// A month and day with an optional year; without one, the next such day from today on.
    private func date(month: Int, day: Int, year: Int?, dayAt: Int, raw: [String], input: String) throws -> CalendarDate {
        let today = CalendarDate(now, in: calendar.timeZone)
        func valid(_ y: Int) -> CalendarDate? {
            day <= CivilDate.daysInMonth(year: y, month: month) ? CalendarDate(year: y, month: month, day: day) : nil
        }
        if let year {
            guard let date = valid(year) else {
                throw WhenError(input: input, token: raw[dayAt], expected: "a day of \(WhenNames.englishMonthName(month)) \(year)", suggestion: nil)
            }
            return date
        }
        for y in today.year...(today.year + 8) {
            if let date = valid(y), date >= today { return date }
        }
        throw WhenError(input: input, token: raw[dayAt], expected: "a day of \(WhenNames.englishMonthName(month))", suggestion: nil)
    }

    /// `12/24` (en_US), `24.12.` or `24/12` (de_DE, en_GB), with an optional `/2027` or `.2027`.
    private func numericDate(_ word: String, raw: String, today: LocalTime, input: String) throws -> CalendarDate {
        let parts = word.split(whereSeparator: { $0 == "/" || $0 == "." }).map(String.init)
        let order = names.dayFirst ? "day.month" : "month/day"
        let bad = WhenError(input: input, token: raw, expected: "a date in \(names.localeIdentifier)'s order \(order) (\(names.numericPattern))",
                            suggestion: nil)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let a = Int(parts[0]), let b = Int(parts[1]), parts[0].count <= 2, parts[1].count <= 2 else { throw bad }
        let (month, day) = names.dayFirst ? (b, a) : (a, b)
        var year: Int?
        if parts.count == 3 {
            guard let y = Self.year(parts[2]) else { throw bad }
            year = y
        }
        guard (1...12).contains(month), (1...31).contains(day) else {
            var swapped = bad
            if (1...12).contains(day), (1...31).contains(month) {
                swapped.suggestion = ([parts[1], parts[0]] + parts.dropFirst(2)).joined(separator: names.dayFirst ? "." : "/")
                    + (names.dayFirst && parts.count == 2 ? "." : "")
            }
            throw swapped
        }
        do {
            return try date(month: month, day: day, year: year, dayAt: 0, raw: [raw], input: input)
        } catch {
            throw bad
        }
    }
}
