import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

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
        if !event.alerts.isEmpty {
            // Leads before the start as ever (`1h, 10m before`), then the others in words.
            let before = event.alerts.filter(\.isBeforeStart).map(\.description)
            let others = event.alerts.filter { !$0.isBeforeStart }.map { $0.phrase(in: context.calendar.timeZone) }
            out += "  alerts   " + ((before.isEmpty ? [] : [before.joined(separator: ", ") + " before"]) + others).joined(separator: ", ") + "\n"
        }
        if let rule = event.recurrence { out += "  repeats  " + rule + "\n" }
        out += try occurrenceLines(event, store, context)
        if let limit = try store.recurrenceLimit(of: event) {
            out += "  warning  " + limit.message { Rows.when($0, context) } + "\n"
        }
        if !event.notes.isEmpty { out += "  notes    " + event.notes.replacingOccurrences(of: "\n", with: "\n           ") + "\n" }
        if event.tasks.isEmpty {
            out += "  tasks    none\n"
        } else {
            out += "  tasks    " + (event.isComplete ? "all done " + Badge.done : Badge.text(event)) + "\n"
            for (n, task) in event.tasks.enumerated() {
                out += "    \(n + 1). " + Rows.checkbox(task.status) + " " + TextWidth.clean(task.text) + "\n"
            }
        }
        context.out.write(out)
        return ExitCode.ok
    }

    /// A series' changed occurrences (each override: the instance it replaces, and where it went)
    /// and cancelled ones; for an override, the occurrence of its series it stands for.
    static func occurrenceLines(_ event: Event, _ store: any PlannerStore, _ context: Context) throws -> String {
        let sources = try store.sourceUIDs()
        if let replaced = OccurrenceChange.replaced(by: event.id, sources: sources) {
            let series = try replaced.series.flatMap { try store.event(id: $0) }
            return "  replaces " + Rows.when(replaced.instance, context)
                + (series.map { " of " + $0.shortID + "  " + TextWidth.clean($0.title) } ?? "") + "\n"
        }
        guard event.recurrence != nil else { return "" }
        var out = ""
        for changed in OccurrenceChange.overrides(of: event, sources: sources) {
            guard let made = try store.event(id: changed.id),
                  let replaced = OccurrenceChange.replaced(by: changed.id, sources: sources) else { continue }
            out += "  changed  " + Rows.when(replaced.instance, context) + " → " + made.shortID + "  "
                + Rows.when(made.start, context) + "  " + TextWidth.clean(made.title) + "\n"
        }
        for instance in OccurrenceChange.cancelled(event, sources: sources) {
            out += "  cancelled " + Rows.when(instance, context) + "\n"
        }
        return out
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
