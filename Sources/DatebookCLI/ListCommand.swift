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
