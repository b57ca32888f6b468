import DatebookCore
import Foundation

/// The month of `now` as weeks × days, starting on the locale's first weekday, with each
/// day flagged today / past / future / hasEvents, like `datebook cal`.
struct CalendarGrid {
    let value: MustacheValue

    init(input: DigestInput, locale: DigestLocale, today: CalendarDate) {
        let first = CalendarDate(year: today.year, month: today.month, day: 1)
        let next = today.month == 12 ? CalendarDate(year: today.year + 1, month: 1, day: 1)
            : CalendarDate(year: today.year, month: today.month + 1, day: 1)
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
                let date = CalendarDate(year: today.year, month: today.month, day: day)
                let marked = input.eventDays.contains(day)
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
            "weekdays": .array(labels.map { .string($0) }),
            "weeks": .array(weeks),
            "text": .array(textLines),
            "textTitle": .string(String(repeating: " ", count: max(0, (34 - TextWidth.displayWidth(title)) / 2)) + title),
        ]
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
