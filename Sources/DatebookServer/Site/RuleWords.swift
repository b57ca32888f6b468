import DatebookCore
import DatebookICal
import DatebookRender
import DatebookStore
import Foundation

/// A repeat rule in the reader's words: "Every Monday, until 31 Dec 2026, except 14 Dec" instead
/// of `FREQ=WEEKLY;BYDAY=MO` and `EXDATE:…`. The common rules (a frequency, an interval, weekdays,
/// a day of the month, an end) read as words; any other part is shown as written after them.
struct RuleWords {
    let words: MessageCatalog
    let locale: Locale
    let zone: TimeZone

    static let weekdayIndex = ["SU": 0, "MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6]

    func text(_ recurrence: String) -> String {
        let stored = RecurrenceText(recurrence)
        var parts: [String: String] = [:]
        for item in (stored.rule ?? "").split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parts[pair[0].uppercased()] = pair[1] }
        }
        let interval = Int(parts["INTERVAL"] ?? "1") ?? 1
        let days = (parts["BYDAY"] ?? "").split(separator: ",").compactMap { Self.weekdayIndex[String($0.suffix(2)).uppercased()] }
        let formatter = DateFormatter()
        formatter.locale = locale
        let dayNames = days.map { formatter.standaloneWeekdaySymbols[$0] }.joined(separator: ", ")
        var phrase: String
        switch parts["FREQ"]?.uppercased() {
        case "DAILY": phrase = interval == 1 ? words.text("ruleDaily") : words.text("ruleEveryDays", ["n": String(interval)])
        case "WEEKLY" where !dayNames.isEmpty:
            phrase = interval == 1 ? words.text("ruleWeeklyOn", ["days": dayNames]) : words.text("ruleEveryWeeksOn", ["n": String(interval), "days": dayNames])
        case "WEEKLY": phrase = interval == 1 ? words.text("ruleWeekly") : words.text("ruleEveryWeeks", ["n": String(interval)])
        case "MONTHLY": phrase = interval == 1 ? words.text("ruleMonthly") : words.text("ruleEveryMonths", ["n": String(interval)])
        case "YEARLY": phrase = interval == 1 ? words.text("ruleYearly") : words.text("ruleEveryYears", ["n": String(interval)])
        default: phrase = stored.rule ?? ""
        }
        let known = Set(["FREQ", "INTERVAL", "UNTIL", "COUNT", "WKST"] + (dayNames.isEmpty ? [] : ["BYDAY"]))
        let rest = parts.filter { !known.contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !rest.isEmpty { phrase += " (" + rest.joined(separator: ";") + ")" }
        if let until = parts["UNTIL"].flatMap(untilDate) { phrase += ", " + words.text("ruleUntil", ["date": day(until, withYear: true)]) }
        if let count = parts["COUNT"] { phrase += ", " + words.text("ruleCount", ["n": count]) }
        let skipped = stored.exdates.map { $0.resolve(in: zone) }.sorted()
        if !skipped.isEmpty {
            phrase += ", " + words.text("ruleExcept", ["dates": skipped.map { day($0, withYear: false) }.joined(separator: ", ")])
        }
        return phrase
    }

    /// `14 Dec` (`Dec 14`, `12月14日`), with the year when asked.
    func day(_ date: Date, withYear: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = zone
        formatter.setLocalizedDateFormatFromTemplate(withYear ? "dMMMy" : "dMMM")
        return formatter.string(from: date)
    }

    /// UNTIL's date (`20261231` or `20261231T225959Z`).
    func untilDate(_ text: String) -> Date? {
        let digits = text.prefix(8)
        guard digits.count == 8, let year = Int(digits.prefix(4)), let month = Int(digits.dropFirst(4).prefix(2)),
              let day = Int(digits.suffix(2)) else { return nil }
        if text.count > 8, let instant = ISOInstant.parse(Self.isoForm(text)) { return instant }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return CalendarDate(year: year, month: month, day: day).start(in: calendar)
    }

    /// `20261231T225959Z` → `2026-12-31T22:59:59Z`.
    static func isoForm(_ text: String) -> String {
        let chars = Array(text)
        guard chars.count >= 15 else { return text }
        return String(chars[0..<4]) + "-" + String(chars[4..<6]) + "-" + String(chars[6..<8]) + "T" + String(chars[9..<11]) + ":"
            + String(chars[11..<13]) + ":" + String(chars[13..<15]) + (text.hasSuffix("Z") ? "Z" : "")
    }
}
