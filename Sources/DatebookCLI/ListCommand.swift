import DatebookCore
import DatebookStore
import Foundation

/// `datebook list [--period next7|next30|future|past|all] [--json]`
enum ListCommand: Command {
    static let periodNames = ["next7", "next30", "future", "past", "all"]

    static let spec = CommandSpec(
        name: "list", aliases: ["agenda"], summary: "show the agenda grouped by period",
        usage: "[--period next7|next30|future|past|all] [--json]",
        options: [.value("--period", "PERIOD", "only this period: next7, next30, future, past or all (default)"),
                  .flag("--json", "print JSON instead of text")],
        examples: ["datebook list", "datebook list --period next30", "datebook --now '2026-12-01 08:00' --tz Europe/Berlin list"],
        details: "Periods: Next 7 Days (from now until now + 7 calendar days), Next 30 Days (until now + 30 calendar days),\nFuture (later), Past (before now). Rows are sorted by start; the badge counts tasks not done."
    )

    static func periods(_ arguments: ParsedArguments) throws -> [Period] {
        let name = arguments.value("--period") ?? "all"
        guard periodNames.contains(name) else {
            throw CLIError.usage("unknown period '\(name)'" + Suggestion.hint(for: name, in: periodNames)
                                 + "; expected " + JSONReader.orList(periodNames))
        }
        return name == "all" ? Period.allCases : Period.allCases.filter { $0.rawValue == name }
    }

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let periods = try periods(arguments)
        let store = try context.openStore(readOnly: true)
        if arguments.has("--json") {
            try printJSON(store: store, periods: periods, context)
        } else {
            try printAgenda(store: store, periods: periods, context)
        }
        return ExitCode.ok
    }

    /// Streams the agenda as text: one indexed range query per period, rows written as they come.
    static func printAgenda(store: any PlannerStore, periods: [Period], _ context: Context) throws {
        let boundaries = PeriodBoundaries(now: context.now, calendar: context.calendar)
        var printedAny = false
        var rows = RowWriter(context)
        for period in periods {
            let range = boundaries.range(of: period)
            var first = true
            try store.forEachOccurrenceSummary(from: range.from, to: range.to, calendar: context.calendar) { occurrence in
                if first {
                    context.out.write((printedAny ? "\n" : "") + Rows.header(period, context))
                    first = false
                    printedAny = true
                }
                rows.write(occurrence)
            }
        }
        if !printedAny {
            context.out.write("No events" + (periods.count == 1 ? " in \(periods[0].title)" : "")
                              + ". Add one with: datebook add TITLE --at WHEN\n")
        }
    }

    static func printJSON(store: any PlannerStore, periods: [Period], _ context: Context) throws {
        let boundaries = PeriodBoundaries(now: context.now, calendar: context.calendar)
        context.out.write("{\n  \"now\": \(JSONText.quote(ISOInstant.format(context.now, in: context.timeZone))),\n"
                          + "  \"timeZone\": \(JSONText.quote(context.timeZone.identifier)),\n  \"periods\": [")
        var firstPeriod = true
        for period in periods {
            let range = boundaries.range(of: period)
            var first = true
            try store.forEachOccurrence(from: range.from, to: range.to, calendar: context.calendar) { occurrence in
                if first {
                    context.out.write((firstPeriod ? "\n" : "\n    ]},\n") + "    {\"period\": \(JSONText.quote(period.rawValue)), "
                                      + "\"title\": \(JSONText.quote(period.title)), \"events\": [\n")
                    firstPeriod = false
                } else {
                    context.out.write(",\n")
                }
                first = false
                context.out.write("      " + json(occurrence, context))
            }
        }
        context.out.write(firstPeriod ? "]\n}\n" : "\n    ]}\n  ]\n}\n")
    }

    /// A quoted string, or `null` when it is empty.
    static func optional(_ text: String) -> String { text.isEmpty ? "null" : JSONText.quote(text) }

    static func json(_ occurrence: Occurrence, _ context: Context) -> String {
        let event = occurrence.event
        let tasks = event.tasks.map { "{\"id\": \(JSONText.quote($0.id)), \"text\": \(JSONText.quote($0.text)), \"status\": \"\($0.status.rawValue)\"}" }
        return "{\"id\": \(JSONText.quote(event.id)), \"title\": \(JSONText.quote(event.title)), "
            + "\"start\": \(JSONText.quote(ISOInstant.format(occurrence.start, in: context.timeZone))), "
            + "\"allDay\": \(event.start.isAllDay), \"floating\": \(event.start.isFloating), \"symbol\": \(JSONText.quote(event.symbol.rawValue)), "
            + "\"emoji\": \(JSONText.quote(event.symbol.emoji)), \"color\": \(JSONText.quote(event.color.rawValue)), "
            + "\"location\": \(optional(event.location)), \"url\": \(optional(event.url)), "
            + "\"badge\": \(event.badge), \"complete\": \(event.isComplete), \"tasks\": [" + tasks.joined(separator: ", ") + "]}"
    }
}

/// `datebook show EVENT`
enum ShowCommand: Command {
    static let spec = CommandSpec(name: "show", summary: "show one event with its tasks", usage: "EVENT",
                                  positionals: 1...1, examples: ["datebook show Pagliacci", "datebook show 1a2b"])

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(readOnly: true)
        let event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        let start = event.start.resolved(in: context.calendar)
        let period = PeriodBoundaries(now: context.now, calendar: context.calendar).period(of: start)
        var out = event.symbol.emoji + " " + context.style(TextWidth.clean(event.title), "1;" + event.color.ansi) + "\n"
        out += "  id       " + event.id + "\n"
        out += "  when     " + Rows.when(event.start, context)
        if let end = event.end { out += " – " + Rows.when(end, context) }
        out += "  (" + period.title + ")\n"
        out += "  zone     " + zoneLine(event, context) + "\n"
        out += "  symbol   " + event.symbol.rawValue + "   color " + event.color.rawValue + "\n"
        if !event.location.isEmpty { out += "  location " + TextWidth.clean(event.location) + "\n" }
        if !event.url.isEmpty { out += "  url      " + event.url + "\n" }
        if !event.alerts.isEmpty { out += "  alerts   " + event.alerts.map(\.description).joined(separator: ", ") + " before\n" }
        if let rule = event.recurrence { out += "  repeats  " + rule + "\n" }
        if let limit = try store.recurrenceLimit(of: event) {
            out += "  warning  " + limit.message { Rows.when($0, context) } + "\n"
        }
        if !event.notes.isEmpty { out += "  notes    " + event.notes.replacingOccurrences(of: "\n", with: "\n           ") + "\n" }
        if event.tasks.isEmpty {
            out += "  tasks    none\n"
        } else {
            out += "  tasks    " + (event.isComplete ? "all done ✓" : "\(event.badge) left") + "\n"
            for (n, task) in event.tasks.enumerated() {
                out += "    \(n + 1). " + Rows.checkbox(task.status) + " " + TextWidth.clean(task.text) + "\n"
            }
        }
        context.out.write(out)
        return ExitCode.ok
    }

    /// The zone the times above are shown in; when the event keeps another zone of its own (its
    /// repeats expand there), that one too, with the start as it reads there.
    static func zoneLine(_ event: Event, _ context: Context) -> String {
        let shown = context.timeZone.identifier
        if event.start.isFloating { return shown + " (a floating time: the same wall-clock time in every zone)" }
        guard event.timeZone != shown, let own = TimeZone(identifier: event.timeZone),
              own.identifier != shown else { return shown }
        var line = shown + " (times above); the event's own zone is " + event.timeZone
        if case .instant(let date) = event.start { line += ": " + LocalTime(date, in: own).listFormat }
        return line
    }
}
