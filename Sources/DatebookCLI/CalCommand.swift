import DatebookCore
import Foundation

/// `datebook cal [YYYY-MM]`: a month grid like cal(1), coloured like the planner's calendar.
enum CalCommand: Command {
    static let spec = CommandSpec(
        name: "cal", summary: "show a month calendar with event days marked", usage: "[YYYY-MM]",
        positionals: 0...1, examples: ["datebook cal", "datebook cal 2026-12 --color always"],
        details: "Today is bold, past days blue, future days yellow; days with events are underlined and\nmarked with '*' right after the day number. Colour only on a terminal or with --color\nalways; NO_COLOR turns it off."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let today = LocalTime(context.now, in: context.timeZone)
        var year = today.year, month = today.month
        if let text = arguments.positionals.first {
            let parts = text.split(separator: "-")
            guard parts.count == 2, parts[0].count == 4, let y = Int(parts[0]), let m = Int(parts[1]), (1...12).contains(m) else {
                throw CLIError.usage("cannot read month '\(text)': expected YYYY-MM, e.g. 2026-12")
            }
            year = y
            month = m
        }
        let grid = MonthGrid(year: year, month: month)
        let first = CalendarDate(year: year, month: month, day: 1)
        let next = CalendarDate(dayNumber: first.dayNumber + grid.days)
        var eventDays = Set<Int>()
        let store = try context.openStore(readOnly: true)
        try store.forEachOccurrenceSummary(from: first.start(in: context.calendar), to: next.start(in: context.calendar),
                                           calendar: context.calendar) { occurrence in
            eventDays.insert(LocalTime(occurrence.start, in: context.timeZone).day)
        }
        context.out.write(render(grid, today: today.date, eventDays: eventDays, context))
        return ExitCode.ok
    }

    /// Each day cell is a space, two digits and a marker column (`*` on event days): the mark
    /// follows its own number and a space precedes the next one, so the grid reads without colour.
    static func render(_ grid: MonthGrid, today: CalendarDate, eventDays: Set<Int>, _ context: Context) -> String {
        let title = MonthGrid.monthNames[grid.month - 1] + " " + String(grid.year)
        let left = (28 - title.count) / 2
        var out = String(repeating: " ", count: left) + title + "\n" + " Su  Mo  Tu  We  Th  Fr  Sa\n"
        for week in grid.weeks {
            var line = ""
            for day in week {
                guard let day else { line += "    "; continue }
                let date = CalendarDate(year: grid.year, month: grid.month, day: day)
                let marked = eventDays.contains(day)
                var sgr = date == today ? "1;7" : date < today ? "34" : "33"
                if marked { sgr += ";4" }
                line += " " + context.style(day < 10 ? " \(day)" : "\(day)", sgr) + (marked ? "*" : " ")
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        if !eventDays.isEmpty { out += " * after a day: it has events\n" }
        return out
    }
}

/// The weeks of one month, Sunday first, as cal(1) lays them out.
struct MonthGrid {
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"]
    let year: Int
    let month: Int
    let days: Int
    let weeks: [[Int?]]

    init(year: Int, month: Int) {
        self.year = year
        self.month = month
        let first = CalendarDate(year: year, month: month, day: 1)
        let count = CalendarDate(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1).dayNumber - first.dayNumber
        days = count
        let lead = ((first.dayNumber % 7) + 11) % 7
        var cells: [Int?] = Array(repeating: nil, count: lead) + (1...count).map { Optional($0) }
        while cells.count % 7 != 0 { cells.append(nil) }
        weeks = stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<$0 + 7]) }
    }
}
