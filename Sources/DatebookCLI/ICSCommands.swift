import DatebookCore
import DatebookStore
import Foundation

/// `datebook import FILE.ics`: the iCalendar half of `import`.
enum ICSCommands {
    /// Imports an iCalendar file; its memory is given back while it is read, and freed before saving.
    static func importICS(_ file: consuming ImportFile, _ context: Context) throws -> Int32 {
        let store = try context.openStore()
        let name = file.name
        let reading = ProgressBar.reading(name, bytes: file.count, context: context)
        let result = try store.decodeImport(file, timeZone: context.timeZone, today: CalendarDate(context.now, in: context.timeZone))
        reading.finish()
        let progress = ProgressBar(total: result.events.count, context: context)
        for warning in result.warnings { context.err.write("datebook: warning: " + warning + "\n") }
        try store.saveImport(result) { progress.show($0) }
        progress.finish()
        for limit in try store.truncatedRecurrences() {
            guard let uid = result.uids[limit.eventID] else { continue }
            context.err.write("datebook: warning: \(name): UID \(uid): " + limit.message { Rows.when($0, context) } + "\n")
        }
        let skipped = result.warnings.isEmpty ? "" : " (\(result.warnings.count) warning\(result.warnings.count == 1 ? "" : "s"))"
        context.out.write("imported \(result.events.count) event\(result.events.count == 1 ? "" : "s") from \(name)\(skipped)\n")
        // Freeing 100k events is a quarter of a second; let it overlap the store's closing.
        BackgroundRelease.release(consume result)
        return ExitCode.ok
    }
}

/// A one-line progress bar on stderr (`importing [#####     ] 41000/100000`), only when stderr
/// is a terminal and the work is large.
struct ProgressBar {
    let total: Int
    let verb: String
    let enabled: Bool
    let err: OutputSink

    init(total: Int, verb: String = "importing", context: Context) {
        self.total = total
        self.verb = verb
        err = context.err
        enabled = total >= 10_000 && context.err.isTerminal
    }

    func show(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        err.write("\r" + verb + " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                  + "] \(done)/\(total)")
        err.flush()
    }

    /// Files at least this large get a line while they are read (a 100k-event calendar is 80 MB).
    static let largeFile = 4_000_000

    /// `importing: reading NAME (82 MB)` while a large file is parsed and nothing can be counted
    /// yet; its `finish()` clears the line.
    static func reading(_ name: String, bytes: Int, context: Context) -> ProgressBar {
        let bar = ProgressBar(total: bytes >= largeFile ? 10_000 : 0, context: context)
        if bar.enabled {
            bar.err.write("\rimporting: reading \(name) (\(bytes / 1_000_000) MB)")
            bar.err.flush()
        }
        return bar
    }

    func finish() {
        guard enabled else { return }
        err.write("\r\u{1B}[K")
        err.flush()
    }
}

/// `--repeat`, `--until` and `--count` of `add` and `edit`.
enum RecurrenceOptions {
    static let specs: [OptionSpec] = [
        .value("--repeat", "RULE", "daily, weekly, monthly, yearly, an RRULE (FREQ=WEEKLY;BYDAY=MO,WE) or none"),
        .value("--until", "WHEN", "last day of the repetition (with --repeat)"),
        .value("--count", "N", "number of occurrences (with --repeat)"),
    ]

    /// Occurrences of recurring events are materialised for this window around now.
    static func horizon(now: Date) -> DateInterval {
        DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
    }

    /// Applies the options to `event`; refuses rules the expander would refuse.
    static func apply(_ arguments: ParsedArguments, to event: inout Event, _ context: Context) throws {
        let until = arguments.value("--until")
        let count = arguments.value("--count")
        guard let repeatText = arguments.value("--repeat") else {
            if until != nil || count != nil, let rule = event.recurrence {
                event.recurrence = try rebuilt(RecurrenceText(rule).rule ?? "", until: until, count: count, event, context)
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
        event.recurrence = try rebuilt(rule, until: until, count: count, event, context)
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
