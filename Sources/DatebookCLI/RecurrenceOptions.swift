import DatebookCore
import DatebookStore
import Foundation

/// `--repeat`, `--until` and `--count` of `add` and `edit`.
enum RecurrenceOptions {
    static let specs: [OptionSpec] = [
        .value("--repeat", "RULE", "daily, weekly, monthly, yearly, an RRULE (FREQ=WEEKLY;BYDAY=MO,WE) or none"),
        .value("--until", "WHEN", "last day of the repetition (with --repeat)"),
        .value("--count", "N", "number of occurrences (with --repeat)"),
    ]

    /// Applies the options to `event`; refuses rules the expander would refuse.
    static func apply(_ arguments: ParsedArguments, to event: inout Event, _ context: Context) throws {
        let until = arguments.value("--until")
        let count = arguments.value("--count")
        guard let repeatText = arguments.value("--repeat") else {
            if until != nil || count != nil, let rule = event.recurrence {
                event.recurrence = try rebuilt(RecurrenceText(rule).rule ?? "", until: until, count: count, event, context)
                event.recurrence = OccurrenceChange.keepingCancelled(from: rule, in: event)
            } else if until != nil || count != nil {
                throw CLIError.usage("--until and --count need --repeat (the event does not repeat)")
            }
            return
        }
        if repeatText.lowercased() == "none" {
            event.recurrence = nil
            return
        }
        let named = ["daily": "FREQ=DAILY", "weekly": "FREQ=WEEKLY", "monthly": "FREQ=MONTHLY", "yearly": "FREQ=YEARLY"]
        var rule = named[repeatText.lowercased()] ?? repeatText
        if rule.uppercased().hasPrefix("RRULE:") { rule = String(rule.dropFirst(6)) }
        guard rule.uppercased().contains("FREQ=") else {
            throw CLIError.usage("--repeat '\(repeatText)': expected daily, weekly, monthly, yearly, none or an RRULE like FREQ=WEEKLY;BYDAY=MO"
                                 + Suggestion.hint(for: repeatText, in: Array(named.keys) + ["none"]))
        }
        let old = event.recurrence
        event.recurrence = try rebuilt(rule, until: until, count: count, event, context)
        // The cancelled occurrences the new rule still has stay cancelled.
        if let old { event.recurrence = OccurrenceChange.keepingCancelled(from: old, in: event) }
    }

    /// A rule that ends (UNTIL) before its first occurrence would never show the event: refused,
    /// whichever option moved the start or the end (`edit --at` past the UNTIL too). Only ended
    /// rules are expanded here, so the search always stops.
    static func requireAnOccurrence(_ event: Event, _ context: Context) throws {
        guard let recurrence = event.recurrence, recurrence.uppercased().contains("UNTIL=") else { return }
        let start = Int64(event.start.resolved(in: context.calendar).timeIntervalSince1970) - 2 * 86_400
        let found = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                                            window: start..<250_000_000_000, cap: 1)
        guard found.keys.isEmpty, found.warning == nil else { return }
        throw CLIError.usage("the repetition '\(recurrence)' ends before the event's start (\(Rows.when(event.start, context))), "
                             + "so it would never occur; give a later --until, or --repeat none")
    }

    static func rebuilt(_ rule: String, until: String?, count: String?, _ event: Event, _ context: Context) throws -> String {
        var parts = rule.split(separator: ";").map(String.init)
        if until != nil || count != nil {
            parts.removeAll { $0.uppercased().hasPrefix("UNTIL=") || $0.uppercased().hasPrefix("COUNT=") }
        }
        if until != nil, count != nil { throw CLIError.usage("give --until or --count, not both (RFC 5545 forbids both)") }
        if let count {
            guard let number = Int(count), number >= 1 else { throw CLIError.usage("--count expects a whole number of at least 1, got '\(count)'") }
            parts.append("COUNT=\(number)")
        }
        if let until {
            let day: CalendarDate
            switch try context.whenParser.parse(until) {
            case .date(let date): day = date
            case .instant(let instant): day = CalendarDate(instant, in: context.timeZone)
            }
            var eventCalendar = context.calendar
            eventCalendar.timeZone = TimeZone(identifier: event.timeZone) ?? context.timeZone
            let firstDay = CalendarDate(event.start.resolved(in: eventCalendar), in: eventCalendar.timeZone)
            guard firstDay <= day else {
                throw CLIError.usage("--until \(until) is before the event's start (\(Rows.when(event.start, context))), so it would "
                                     + "never occur; give an --until on or after its first day, or move it with --at")
            }
            // The end of that day in the event's zone, as UTC (RFC 5545 wants UTC for zoned starts).
            var value = String(format: "%04d%02d%02d", day.year, day.month, day.day)
            // A floating start takes a floating UNTIL (RFC 5545 §3.3.10): the day's last second.
            if event.start.isFloating { value += "T235959" }
            if case .instant = event.start {
                var calendar = context.calendar
                calendar.timeZone = TimeZone(identifier: event.timeZone) ?? context.timeZone
                let end = CalendarDate(dayNumber: day.dayNumber + 1).start(in: calendar).addingTimeInterval(-1)
                value = RecurrenceText.format(.utc(end))
            }
            parts.append("UNTIL=" + value)
        }
        let text = parts.joined(separator: ";")
        if let problem = RecurrenceExpander.problem(rule: text) {
            throw CLIError.usage("--repeat '\(text)' is refused: " + problem.replacingOccurrences(of: "; only DTSTART is used", with: ""))
        }
        return text
    }
}
