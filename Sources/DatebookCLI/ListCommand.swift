import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook list [--period next7|next30|future|past|all] [--json]`
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", aliases: ["agenda"], summary: "show the agenda grouped by period",
        usage: "[--period next7|next30|future|past|all] [--json]",
        options: [.value("--period", "PERIOD", "only this period: next7, next30, future, past or all (default)"),
                  .flag("--json", "print JSON instead of text")],
        examples: ["datebook list", "datebook list --period next30", "datebook --now '2026-12-01 08:00' --tz Europe/Berlin list"],
        details: "Periods: Next 7 Days (from now until now + 7 calendar days), Next 30 Days (until now + 30 calendar days),\nFuture (later), Past (before now). Rows are sorted by start; the badge counts tasks not done.",
        toleratesBrokenConfig: true
    )

    static func periods(_ arguments: ParsedArguments) throws -> [Period] {
        let name = arguments.value("--period") ?? "all"
        guard let periods = AgendaJSON.periods(named: name) else { throw CLIError.usage(AgendaJSON.unknownPeriod(name)) }
        return periods
    }

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let periods = try periods(arguments)
        let store = try context.openStore(readOnly: true)
        if arguments.has("--json") {
            try store.writeAgendaJSON(periods: periods, now: context.now, calendar: context.calendar, write: context.out.write)
        } else {
            try printAgenda(store: store, periods: periods, context)
        }
        return ExitCode.ok
    }

    /// Streams the agenda as text: one indexed range query per period, rows written as they come;
    /// the to-dos of the to-do lists due in a period among them, and (for the whole agenda) the
    /// lists themselves after the periods.
    static func printAgenda(store: any PlannerStore, periods: [Period], _ context: Context) throws {
        let boundaries = PeriodBoundaries(now: context.now, calendar: context.calendar)
        var printedAny = false
        var rows = RowWriter(context)
        // The to-do lists, read once: each period takes its due to-dos from them.
        let lists = try store.taskLists()
        for period in periods {
            let range = boundaries.range(of: period)
            var first = true
            func header() {
                guard first else { return }
                context.out.write((printedAny ? "\n" : "") + Rows.header(period, context))
                first = false
                printedAny = true
            }
            var due = DueToDoMerge(DueTask.due(in: lists, from: range.from, to: range.to, calendar: context.calendar))
            try store.forEachOccurrenceSummary(from: range.from, to: range.to, calendar: context.calendar) { occurrence in
                header()
                for next in due.before(occurrence.start) { context.out.write(TaskListRows.dueRow(next, context)) }
                rows.write(occurrence)
            }
            if !due.remaining.isEmpty { header() }
            for next in due.remaining { context.out.write(TaskListRows.dueRow(next, context)) }
        }
        if periods.count > 1 {
            let shown = TaskListRows.lists(lists, context)
            if !shown.isEmpty {
                context.out.write((printedAny ? "\n" : "") + context.style(TaskListRows.header, "1") + "\n" + shown)
                printedAny = true
            }
        }
        if !printedAny {
            context.out.write("No events" + (periods.count == 1 ? " in \(periods[0].title)" : "")
                              + ". Add one with: datebook add TITLE --at WHEN\n")
        }
    }
}
