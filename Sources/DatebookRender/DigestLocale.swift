import DatebookCore
import Foundation

/// A locale for date words in digests (`en_US`, `de_DE`, `ja_JP`, …) with its formatters.
///
/// Creating a `DateFormatter` costs far more than using one, so each locale keeps its few
/// formatters, built once for the user's zone and reused for every event of a digest.
public struct DigestLocale: Sendable {
    public let identifier: String
    public let timeZone: TimeZone
    /// The words around the dates, in the locale's language (English where it has no catalogue).
    public let words: MessageCatalog
    let formatters: Formatters

    /// Validates `identifier` (`de_DE` or `de-DE`) against the locales Foundation knows.
    ///
    /// - Parameter catalogDirectory: the user templates folder, whose `locales/LANG.json`
    ///   overrides the built-in words.
    public init(identifier: String, timeZone: TimeZone, catalogDirectory: String? = nil) throws {
        let normalized = identifier.replacingOccurrences(of: "-", with: "_")
        // Listing Foundation's 1,000 locales costs milliseconds; the common ones skip it.
        let known = Self.common.contains(normalized) ? [normalized] : Self.knownIdentifiers
        guard let match = known.first(where: { $0.lowercased() == normalized.lowercased() }) else {
            throw DigestError.unknownLocale(identifier, suggestion: Self.suggestion(for: normalized, in: known))
        }
        self.identifier = match
        self.timeZone = timeZone
        words = try MessageCatalog.load(language: Self.language(of: match), overrideDirectory: catalogDirectory)
        formatters = Formatters(locale: Locale(identifier: match), timeZone: timeZone)
    }

    /// `de` of `de_DE`.
    static func language(of identifier: String) -> String {
        String(identifier.prefix { $0 != "_" }).lowercased()
    }

    static var knownIdentifiers: Set<String> { Set(Locale.availableIdentifiers) }
    static let common: Set<String> = ["en_US", "en_GB", "de_DE", "ja_JP", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "zh_CN"]

    /// The nearest known identifier, else the main locale of the same language (`de_XX` → `de_DE`).
    static func suggestion(for identifier: String, in known: Set<String>) -> String? {
        if let near = Suggestion.nearest(to: identifier, in: known.sorted()) { return near }
        let language = identifier.split(separator: "_").first.map { String($0).lowercased() } ?? ""
        guard !language.isEmpty else { return nil }
        let main = language + "_" + language.uppercased()
        if known.contains(main) { return main }
        return known.filter { $0.hasPrefix(language + "_") }.sorted().first
    }

    /// `Thu, Dec 3` · `Do. 3. Dez.` · `12月3日(木)`.
    public func day(_ instant: Date) -> String { formatters.day.string(from: instant) }
    /// `9:00 AM` · `09:00` · `9:00`.
    public func time(_ instant: Date) -> String { formatters.time.string(from: instant) }
    /// `Thursday, December 3, 2026` · `Donnerstag, 3. Dezember 2026` · `2026年12月3日 木曜日`.
    public func longDay(_ instant: Date) -> String { formatters.longDay.string(from: instant) }
    /// `Dec 3, 2026` · `3. Dez. 2026` · `2026年12月3日` (for events more than a year away).
    public func dayWithYear(_ instant: Date) -> String { formatters.dayWithYear.string(from: instant) }
    /// Date words of an occurrence's start, as every page and digest writes them: the day (with
    /// the year only when it is not near `now`), the time unless all day, and both together.
    public func when(_ start: Date, allDay: Bool, now: Date, words: MessageCatalog) -> (date: String, time: String, display: String) {
        let distance = abs(start.timeIntervalSince(now))
        let date = distance < 300 * 86_400 ? day(start) : dayWithYear(start)
        if allDay { return (date, "", date + " " + words.text("allDay")) }
        let time = time(start)
        return (date, time, date + " " + time)
    }

    /// `December 2026` · `Dezember 2026` · `2026年12月`.
    public func month(_ instant: Date) -> String { formatters.month.string(from: instant) }
    /// Two-column weekday labels from Sunday: `Su Mo …`, `So Mo …`, `日 月 …`.
    public var weekdayLabels: [String] { formatters.weekdayLabels }
    /// 1 = Sunday, 2 = Monday: the locale's first day of the week.
    public var firstWeekday: Int { formatters.firstWeekday }

    /// The formatters of one locale and zone. A class so copies of `DigestLocale` share them.
    final class Formatters: @unchecked Sendable {  // Foundation formatters: set up in init, only read after
        let day: DateFormatter
        let time: DateFormatter
        let longDay: DateFormatter
        let dayWithYear: DateFormatter
        let month: DateFormatter
        let weekdayLabels: [String]
        let firstWeekday: Int

        init(locale: Locale, timeZone: TimeZone) {
            func make(_ template: String) -> DateFormatter {
                let formatter = DateFormatter()
                formatter.locale = locale
                formatter.timeZone = timeZone
                formatter.calendar = Calendar(identifier: .gregorian)
                formatter.setLocalizedDateFormatFromTemplate(template)
                return formatter
            }
            day = make("MMMdEEE")
            time = make("jm")
            longDay = make("yMMMMEEEEd")
            dayWithYear = make("yMMMd")
            month = make("MMMMy")
            weekdayLabels = day.shortStandaloneWeekdaySymbols.map { TextWidth.truncateWithoutMark($0, to: 2) }
            var calendar = Calendar(identifier: .gregorian)
            calendar.locale = locale
            firstWeekday = calendar.firstWeekday
        }
    }
}

extension TextWidth {
    /// The longest prefix of `text` that fits in `columns`, without an ellipsis (`Sun` → `Su`).
    static func truncateWithoutMark(_ text: String, to columns: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let width = displayWidth(String(character))
            if used + width > columns { break }
            out.append(character)
            used += width
        }
        return out
    }
}
