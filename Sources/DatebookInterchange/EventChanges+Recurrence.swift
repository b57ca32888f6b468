import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// `recurrence`, `until` and `count`: the repeat rule as people give it, refused where the
/// expander would refuse it.
extension EventChanges {
    func applyRecurrence(to event: inout Event, _ parser: WhenParser) throws {
        guard let repeatText = recurrence else {
            if until != nil || count != nil, let rule = event.recurrence {
                event.recurrence = try rebuilt(RecurrenceText(rule).rule ?? "", event, parser)
                event.recurrence = OccurrenceChange.keepingCancelled(from: rule, in: event)
            } else if until != nil || count != nil {
                throw EventFieldError(.until) { "\($0(.until)) and \($0(.count)) need \($0(.recurrence)) (the event does not repeat)" }
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
            let hint = Suggestion.hint(for: repeatText, in: Array(named.keys) + ["none"])
            throw EventFieldError(.recurrence) {
                "\($0(.recurrence)) '\(repeatText)': expected daily, weekly, monthly, yearly, none or an RRULE like FREQ=WEEKLY;BYDAY=MO" + hint
            }
        }
        let old = event.recurrence
        event.recurrence = try rebuilt(rule, event, parser)
        // The cancelled occurrences the new rule still has stay cancelled.
        if let old { event.recurrence = OccurrenceChange.keepingCancelled(from: old, in: event) }
    }

    /// A rule that ends (UNTIL) before its first occurrence would never show the event: refused,
    /// whichever field moved the start or the end. Only ended rules are expanded here, so the
    /// search always stops.
    static func requireAnOccurrence(_ event: Event, _ parser: WhenParser) throws {
        guard let recurrence = event.recurrence, recurrence.uppercased().contains("UNTIL=") else { return }
        let start = Int64(event.start.resolved(in: parser.calendar).timeIntervalSince1970) - 2 * 86_400
        let found = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                                            window: start..<250_000_000_000, cap: 1)
        guard found.keys.isEmpty, found.warning == nil else { return }
        let shown = shown(event.start, parser.calendar.timeZone)
        throw EventFieldError(.until) {
            "the repetition '\(recurrence)' ends before the event's start (\(shown)), so it would never occur; give a later \($0(.until)), or \($0(.recurrence)) none"
        }
    }

    func rebuilt(_ rule: String, _ event: Event, _ parser: WhenParser) throws -> String {
        var parts = rule.split(separator: ";").map(String.init)
        if until != nil || count != nil {
            parts.removeAll { $0.uppercased().hasPrefix("UNTIL=") || $0.uppercased().hasPrefix("COUNT=") }
        }
        if until != nil, count != nil {
            throw EventFieldError(.count) { "give \($0(.until)) or \($0(.count)), not both (RFC 5545 forbids both)" }
        }
        if let count {
            guard let number = Int(count), number >= 1 else {
                throw EventFieldError(.count, check: ("checkCount", ["value": count])) { "\($0(.count)) expects a whole number of at least 1, got '\(count)'" }
            }
            parts.append("COUNT=\(number)")
        }
        if let until {
            let day: CalendarDate
            do {
                switch try parser.parse(until) {
                case .date(let date): day = date
                case .instant(let instant): day = CalendarDate(instant, in: parser.calendar.timeZone)
                }
            } catch let error as WhenError {
                throw EventFieldError(.until) { _ in error.description }
            }
            var eventCalendar = parser.calendar
            eventCalendar.timeZone = TimeZone(identifier: event.timeZone) ?? parser.calendar.timeZone
            let firstDay = CalendarDate(event.start.resolved(in: eventCalendar), in: eventCalendar.timeZone)
            guard firstDay <= day else {
                let shown = Self.shown(event.start, parser.calendar.timeZone)
                throw EventFieldError(.until) {
                    "\($0(.until)) \(until) is before the event's start (\(shown)), so it would never occur; give an \($0(.until)) "
                        + "on or after its first day, or move it with \($0(.start))"
                }
            }
            // The end of that day in the event's zone, as UTC (RFC 5545 wants UTC for zoned starts).
            var value = String(format: "%04d%02d%02d", day.year, day.month, day.day)
            // A floating start takes a floating UNTIL (RFC 5545 §3.3.10): the day's last second.
            if event.start.isFloating { value += "T235959" }
            if case .instant = event.start {
                let end = CalendarDate(dayNumber: day.dayNumber + 1).start(in: eventCalendar).addingTimeInterval(-1)
                value = RecurrenceText.format(.utc(end))
            }
            parts.append("UNTIL=" + value)
        }
        let text = parts.joined(separator: ";")
        if let plain = ICalRecurrence.withoutForbiddenOrdinals(rrule: text) {
            throw EventFieldError(.recurrence) {
                "\($0(.recurrence)) '\(text)' is refused: RFC 5545 forbids ordinals in \(plain.dropped) there; "
                    + "give '\(plain.rule)' for every one of those weekdays"
            }
        }
        if let problem = RecurrenceExpander.problem(rule: text) {
            throw EventFieldError(.recurrence) {
                "\($0(.recurrence)) '\(text)' is refused: " + problem.replacingOccurrences(of: "; only DTSTART is used", with: "")
            }
        }
        return text
    }
}
