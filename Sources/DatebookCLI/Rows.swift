import DatebookCore
import Foundation

/// Formatting of events as terminal rows, shared by `list`, `show`, `tasks` and `demo`.
enum Rows {
    static let titleColumns = 34

    /// `Tue 2026-12-01 08:00` or `Mon 2021-06-07 all day`.
    static func when(_ start: EventStart, _ context: Context) -> String {
        switch start {
        case .instant(let date): LocalTime(date, in: context.timeZone).listFormat
        case .allDay(let day):
            day.weekdayName + " " + day.description + " all day"
        }
    }

    /// `3 left`, `✓`, or empty when the event has no tasks.
    static func badge(_ event: Event) -> String {
        if event.isComplete { return "✓" }
        return event.badge > 0 ? "\(event.badge) left" : ""
    }

    static func header(_ period: Period, _ context: Context) -> String {
        context.style(period.title, "1") + "\n"
    }

    /// The 2-column emoji of each symbol, computed once.
    static let emojiColumn: [Symbol: String] = Dictionary(uniqueKeysWithValues: Symbol.allCases.map { ($0, TextWidth.pad($0.emoji, to: 2)) })

    /// Everything of a row before the date: short id, emoji and the title cut and padded to its column.
    static func lead(_ event: Event, _ context: Context) -> String {
        let title = TextWidth.fit(event.title, to: titleColumns)
        var line = "  "
        line.reserveCapacity(80)
        line += context.style(event.shortID, "2")
        line += "  "
        line += emojiColumn[event.symbol] ?? "  "
        line += " "
        line += context.style(title, event.color.ansi)
        line += "  "
        return line
    }

    /// Writes a row to the output through `row`, a buffer the caller reuses, and reuses the lead of
    /// an event already listed (recurring events repeat it): a listing writes thousands of rows and
    /// builds no String per row.
    static func write(_ occurrence: Occurrence, _ context: Context, leads: inout [String: String], row: inout [UInt8]) {
        let event = occurrence.event
        let lead: String
        if let cached = leads[event.id] {
            lead = cached
        } else {
            lead = Self.lead(event, context)
            if leads.count > 50_000 { leads.removeAll(keepingCapacity: true) }
            leads[event.id] = lead
        }
        row.removeAll(keepingCapacity: true)
        row.append(contentsOf: lead.utf8)
        let before = row.count
        switch occurrence.instanceStart(in: context.timeZone) {
        case .instant(let date): LocalTime(date, in: context.timeZone).appendListFormat(to: &row)
        case let start: row.append(contentsOf: when(start, context).utf8)
        }
        row.append(contentsOf: suffix(event, whenColumns: row.count - before, context).utf8)
        context.out.write(bytes: row)
    }

    /// Badge column and line end after a date of `whenColumns` ASCII columns (instants print 20,
    /// all-day dates 22: padded without measuring).
    private static func suffix(_ event: Event, whenColumns: Int, _ context: Context) -> String {
        let open = event.badge
        let pad = TextWidth.spaces(22 - whenColumns)
        if event.isComplete { return pad + "  " + context.style("✓", "32") + "\n" }
        if open > 0 { return pad + "  " + String(open) + " left\n" }
        return "\n"
    }

    /// One row as a String (`add` and `edit` print the row they saved).
    static func row(_ occurrence: Occurrence, _ context: Context) -> String {
        let whenText = when(occurrence.instanceStart(in: context.timeZone), context)
        return lead(occurrence.event, context) + whenText + suffix(occurrence.event, whenColumns: whenText.utf8.count, context)
    }

    static func checkbox(_ status: TaskStatus) -> String {
        switch status {
        case .todo: "[ ]"
        case .doing: "[~]"
        case .done: "[x]"
        }
    }
}

