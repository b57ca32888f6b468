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

    static func row(_ occurrence: Occurrence, _ context: Context) -> String {
        let event = occurrence.event
        let title = TextWidth.pad(TextWidth.truncate(TextWidth.clean(event.title), to: titleColumns), to: titleColumns)
        let emoji = TextWidth.pad(event.symbol.emoji, to: 2)
        let badge = Rows.badge(event)
        var line = "  "
        line.reserveCapacity(96)
        line += context.style(event.shortID, "2")
        line += "  "
        line += emoji
        line += " "
        line += context.style(title, event.color.ansi)
        line += "  "
        let start = occurrence.instanceStart(in: context.timeZone)
        if badge.isEmpty {
            line += when(start, context)
        } else {
            line += TextWidth.pad(when(start, context), to: 22)
            line += "  "
            line += event.isComplete ? context.style(badge, "32") : badge
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

