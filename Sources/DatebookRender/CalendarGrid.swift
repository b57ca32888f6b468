import DatebookCore
import Foundation

/// A month as weeks × days, starting on the locale's first weekday, with each day flagged
/// today / past / future / hasEvents, like `datebook cal`; `previous` and `next` name the
/// months beside it (`2026-11`), for pages that move between months.
public struct CalendarGrid {
    public let value: MustacheValue

    init(input: DigestInput, locale: DigestLocale, today: CalendarDate) {
        self.init(month: today, today: today, eventDays: input.eventDays, locale: locale)
    }

    /// The month `month` falls in; `eventDays` are its days (1…31) that have an occurrence.
    public init(month: CalendarDate, today: CalendarDate, eventDays: Set<Int>, locale: DigestLocale) {
        let first = CalendarDate(year: month.year, month: month.month, day: 1)
        let next = Self.next(first)
        let previous = month.month == 1 ? CalendarDate(year: month.year - 1, month: 12, day: 1)
            : CalendarDate(year: month.year, month: month.month - 1, day: 1)
        let count = next.dayNumber - first.dayNumber
        // Weekday of the 1st: 0 = Sunday; the locale's week starts at firstWeekday − 1.
        let start = locale.firstWeekday - 1
        let lead = ((first.dayNumber % 7 + 11) % 7 - start + 7) % 7
        var cells: [Int?] = Array(repeating: nil, count: lead) + (1...count).map { Optional($0) }
        while cells.count % 7 != 0 { cells.append(nil) }
        let labels = (0..<7).map { locale.weekdayLabels[($0 + start) % 7] }
        var weeks: [MustacheValue] = []
        // Text cells are five columns: today in brackets, then `*` when the day has events, so a
        // mark always follows its own day (`[ 1]*  2*   3`).
        var textLines: [MustacheValue] = [.string(TextLayout.trimmed(labels.map { " " + TextWidth.pad($0, to: 2) + "  " }.joined()))]
        for row in stride(from: 0, to: cells.count, by: 7) {
            var days: [MustacheValue] = []
            var line = ""
            for cell in cells[row..<row + 7] {
                guard let day = cell else {
                    days.append(["blank": true])
                    line += "     "
                    continue
                }
                let date = CalendarDate(year: first.year, month: first.month, day: day)
                let marked = eventDays.contains(day)
                days.append([
                    "blank": false, "day": .int(day), "iso": .string(date.description),
                    "today": .bool(date == today), "past": .bool(date < today), "future": .bool(today < date),
                    "hasEvents": .bool(marked),
                ])
                let number = day < 10 ? " \(day)" : "\(day)"
                let mark = marked ? "*" : " "
                line += date == today ? "[" + number + "]" + mark : " " + number + mark + " "
            }
            weeks.append(["days": .array(days)])
            textLines.append(.string(TextLayout.trimmed(line)))
        }
        let title = locale.month(first.start(in: Self.calendar(locale.timeZone)))
        value = [
            "title": .string(title),
            "month": .string(Self.key(first)), "previous": .string(Self.key(previous)), "next": .string(Self.key(next)),
            "weekdays": .array(labels.map { .string($0) }),
            "weeks": .array(weeks),
            "text": .array(textLines),
            "textTitle": .string(String(repeating: " ", count: max(0, (34 - TextWidth.displayWidth(title)) / 2)) + title),
        ]
    }

    /// The first day of the month after `first`'s.
    public static func next(_ first: CalendarDate) -> CalendarDate {
        first.month == 12 ? CalendarDate(year: first.year + 1, month: 1, day: 1) : CalendarDate(year: first.year, month: first.month + 1, day: 1)
    }

    /// `2026-11`.
    public static func key(_ day: CalendarDate) -> String { String(day.description.prefix(7)) }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
