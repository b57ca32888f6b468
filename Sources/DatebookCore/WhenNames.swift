import Foundation

/// The month and weekday names a WHEN may use, and the order of a numeric date (`12/24` or
/// `24.12.`), for one locale; English names are always understood as well.
///
/// Built once per parser from Foundation's `DateFormatter` symbols (full, short and standalone
/// forms), lower-cased and without a trailing dot, so `Dez.`, `Dezember` and `dec` are December.
public struct WhenNames: Sendable, Equatable {
    /// Name → month 1…12.
    public let months: [String: Int]
    /// Name → weekday 0 (Sunday) … 6 (Saturday).
    public let weekdays: [String: Int]
    /// Whether a numeric date puts the day first (`24.12.`, `24/12`) rather than the month (`12/24`).
    public let dayFirst: Bool
    /// The locale's own numeric date pattern, for messages: `M/d`, `d.M.`, `dd/MM`.
    public let numericPattern: String
    public let localeIdentifier: String

    static let englishMonths: [String: Int] = {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august",
                     "september", "october", "november", "december"]
        var table: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            table[name] = index + 1
            table[String(name.prefix(3))] = index + 1
        }
        table["sept"] = 9
        return table
    }()

    static let englishWeekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2,
        "wed": 3, "wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4,
        "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]

    public init(locale: Locale) {
        let formatter = DateFormatter()
        formatter.locale = locale
        var months = Self.englishMonths
        for symbols in [formatter.monthSymbols, formatter.shortMonthSymbols,
                        formatter.standaloneMonthSymbols, formatter.shortStandaloneMonthSymbols] {
            for (index, name) in symbols.enumerated() where index < 12 {
                let key = Self.normalized(name, locale: locale)
                if !key.isEmpty, months[key] == nil { months[key] = index + 1 }
            }
        }
        var weekdays = Self.englishWeekdays
        for symbols in [formatter.weekdaySymbols, formatter.shortWeekdaySymbols,
                        formatter.standaloneWeekdaySymbols, formatter.shortStandaloneWeekdaySymbols] {
            for (index, name) in symbols.enumerated() where index < 7 {
                let key = Self.normalized(name, locale: locale)
                if !key.isEmpty, weekdays[key] == nil, months[key] == nil { weekdays[key] = index }
            }
        }
        self.months = months
        self.weekdays = weekdays
        let pattern = DateFormatter.dateFormat(fromTemplate: "Md", options: 0, locale: locale) ?? "M/d"
        numericPattern = pattern
        let day = pattern.firstIndex(of: "d"), month = pattern.firstIndex(of: "M")
        dayFirst = day.flatMap { d in month.map { d < $0 } } ?? false
        localeIdentifier = locale.identifier
    }

    /// Lower case, without the trailing dot of an abbreviation (`Dez.` → `dez`).
    static func normalized(_ word: String, locale: Locale) -> String {
        var key = word.lowercased(with: locale)
        while key.hasSuffix(".") { key.removeLast() }
        return key
    }

    /// The English month names, first-letter upper case (`January`), for messages.
    static func englishMonthName(_ month: Int) -> String {
        LocalTime.monthNames[(month - 1 + 12) % 12]
    }
}
