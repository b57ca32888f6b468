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
        let title = TextWidth.pad(TextWidth.truncate(TextWidth.clean(event.title), to: titleColumns), to: titleColumns)
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

    /// A row, reusing the lead of an event already listed (recurring events repeat it).
    static func row(_ occurrence: Occurrence, _ context: Context, leads: inout [String: String]) -> String {
        let id = occurrence.event.id
        if let cached = leads[id] { return row(occurrence, context, lead: cached) }
        let computed = lead(occurrence.event, context)
        if leads.count > 50_000 { leads.removeAll(keepingCapacity: true) }
        leads[id] = computed
        return row(occurrence, context, lead: computed)
    }

    static func row(_ occurrence: Occurrence, _ context: Context) -> String {
        row(occurrence, context, lead: lead(occurrence.event, context))
    }

    static func row(_ occurrence: Occurrence, _ context: Context, lead: String) -> String {
        let event = occurrence.event
        var line = lead
        let whenText = when(occurrence.instanceStart(in: context.timeZone), context)
        line += whenText
        let open = event.badge
        if event.isComplete {
            if whenText.utf8.count < 22 { line += String(repeating: " ", count: 22 - whenText.utf8.count) }
            line += "  " + context.style("✓", "32")
        } else if open > 0 {
            // Instants print 20 columns, all-day dates 22: pad ASCII without measuring.
            if whenText.utf8.count < 22 { line += String(repeating: " ", count: 22 - whenText.utf8.count) }
            line += "  " + String(open) + " left"
        }
        line += "\n"
        return line
    }

    static func checkbox(_ status: TaskStatus) -> String {
        switch status {
        case .todo: "[ ]"
        case .doing: "[~]"
        case .done: "[x]"
        }
    }
}

