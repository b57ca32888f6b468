import DatebookCore
import Foundation

/// The options `add` and `edit` share, and how they change an event.
enum EventOptions {
    /// The event's colour; `--color` is the global output switch (an old `--color NAME` still works).
    static let eventColor = "--event-color"

    static let specs: [OptionSpec] = [
        .value("--at", "WHEN", "when it starts: 2026-12-03 09:00, tomorrow at 9am, in 2 hours, dec 24 18:00, next fri, 2026-12-24 (all day)"),
        .value("--end", "WHEN", "when it ends"),
        .flag("--all-day", "a whole day: only the date of --at counts"),
        .value("--symbol", "NAME", "symbol such as gift.fill or leaf.fill (default: one from the title's words, else clock.fill)"),
        .value(eventColor, "NAME", "primary, gray, red, orange, yellow, green, mint, cyan, indigo or purple (default: random)"),
        .value("--task", "TEXT", repeatable: true, "add a checklist item (repeatable)"),
        .value("--alert", "LEAD", repeatable: true, "alert this long before: 1d, 1h, 10m (repeatable)"),
        .value("--notes", "TEXT", "free-form notes"),
        .value("--location", "TEXT", "where it happens, one line (empty: none)"),
        .value("--url", "URL", "a link for it: http, https, mailto or tel (empty: none)"),
    ] + RecurrenceOptions.specs

    static func symbol(_ name: String) throws -> Symbol {
        guard let symbol = Symbol(rawValue: name) ?? Symbol(rawValue: name + ".fill") else {
            throw CLIError.usage("unknown symbol '\(name)'" + Suggestion.hint(for: name, in: Symbol.allCases.map(\.rawValue))
                                 + "; see 'datebook add --help'")
        }
        return symbol
    }

    static func color(_ name: String) throws -> EventColor {
        guard let color = EventColor(rawValue: name.lowercased()) else {
            throw CLIError.usage("unknown color '\(name)'" + Suggestion.hint(for: name, in: EventColor.allCases.map(\.rawValue))
                                 + "; expected " + JSONReader.orList(EventColor.allCases.map(\.rawValue)))
        }
        return color
    }

    static func lead(_ text: String) throws -> LeadTime {
        guard let lead = LeadTime(text) else {
            throw CLIError.usage("cannot read alert lead time '\(text)': expected a duration like 1d, 1h, 10m or 1h30m")
        }
        return lead
    }

    static func start(_ text: String, allDay: Bool, _ context: Context) throws -> EventStart {
        let when = try context.whenParser.parse(text)
        if allDay, case .instant(let date) = when { return .allDay(CalendarDate(date, in: context.timeZone)) }
        return when.eventStart
    }

    /// Applies the shared options to `event` (used by both `add` and `edit`).
    static func apply(_ arguments: ParsedArguments, to event: inout Event, _ context: Context, newTaskID: () -> String) throws {
        let allDay = arguments.has("--all-day")
        if let at = arguments.value("--at") {
            event.start = try start(at, allDay: allDay, context)
            event.timeZone = context.timeZone.identifier
        } else if allDay, case .instant(let date) = event.start {
            event.start = .allDay(CalendarDate(date, in: context.timeZone))
        }
        if let end = arguments.value("--end") {
            event.end = try start(end, allDay: event.start.isAllDay, context)
            // A floating event's end is a wall-clock time too: the one given, as read in --tz.
            if event.start.isFloating, case .instant(let date) = event.end {
                event.end = .floating(FloatingTime(date, in: context.timeZone))
            }
            if event.end.map({ $0.resolved(in: context.calendar) < event.start.resolved(in: context.calendar) }) ?? false {
                throw CLIError.usage("--end '\(end)' is before the start; give an end after --at")
            }
            // An end equal to the start is no end: one day for an all-day event, no length otherwise.
            if event.end == event.start { event.end = nil }
        }
        if let name = arguments.value("--symbol") { event.symbol = try symbol(name) }
        if let name = arguments.value(eventColor) {
            event.color = try color(name)
        } else if let name = ColorMode.legacyEventColor(arguments) {
            event.color = try color(name)
            context.err.write("datebook: --color NAME for the event colour is deprecated; use --event-color \(name)\n")
        }
        if let notes = arguments.value("--notes") { event.notes = notes }
        if let location = arguments.value("--location") { event.location = EventURL.cleanLocation(location) }
        if let url = arguments.value("--url") { event.url = url.trimmingCharacters(in: .whitespaces) }
        let alerts = try arguments.all("--alert").map(lead)
        if !alerts.isEmpty { event.alerts = alerts }
        try RecurrenceOptions.apply(arguments, to: &event, context)
        try RecurrenceOptions.requireAnOccurrence(event, context)
        for text in arguments.all("--task") {
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("--task needs some text") }
            event.tasks.append(EventTask(id: newTaskID(), text: text))
        }
    }

    /// Holds `event` to the planner's rules (the ones imports apply); the first problem is a usage
    /// error naming the option that set the field.
    static func validate(_ event: Event, title: String = "TITLE", task: String = "--task") throws {
        guard let problem = EventValidation.planner.problems(event).first else { return }
        let options = ["title": title, "start": "--at", "end": "--end", "notes": "--notes", "location": "--location",
                       "url": "--url", "recurrence": "--repeat"]
        let name = options[problem.field] ?? (problem.field.hasPrefix("tasks") ? task : problem.field)
        throw CLIError.usage("\(name): \(problem.message)")
    }
}
