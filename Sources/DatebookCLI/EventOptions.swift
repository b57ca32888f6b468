import DatebookCore
import DatebookInterchange
import DatebookStore
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
        .value("--alert", "LEAD", repeatable: true, "alert this long before the start (1d, 1h, 10m), before the end ('15m before end') or at an instant "
               + "('at 2026-12-24 09:00') (repeatable)"),
        .value("--notes", "TEXT", "free-form notes"),
        .value("--location", "TEXT", "where it happens, one line (empty: none)"),
        .value("--url", "URL", "a link for it: http, https, mailto or tel (empty: none)"),
        .value("--repeat", "RULE", "daily, weekly, monthly, yearly, an RRULE (FREQ=WEEKLY;BYDAY=MO,WE) or none"),
        .value("--until", "WHEN", "last day of the repetition (with --repeat)"),
        .value("--count", "N", "number of occurrences (with --repeat)"),
    ]

    /// The option that sets each field, for messages (`TITLE` or `--title` for the title).
    static func optionName(_ field: EventField, title: String = "TITLE", task: String = "--task") -> String {
        switch field {
        case .title: title
        case .start: "--at"
        case .end: "--end"
        case .allDay: "--all-day"
        case .timeZone: "--tz"
        case .symbol: "--symbol"
        case .color: eventColor
        case .location: "--location"
        case .url: "--url"
        case .notes: "--notes"
        case .recurrence: "--repeat"
        case .until: "--until"
        case .count: "--count"
        case .alerts: "--alert"
        case .tasks: task
        }
    }

    /// Runs `body`, turning a refused field into a usage error in the command line's words; an
    /// alert that cannot be read (`checkLead`) in those of the config's `locale` when `context` is given.
    static func named<T>(title: String = "TITLE", task: String = "--task", _ context: Context? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as EventFieldError {
            var message = error.message { optionName($0, title: title, task: task) }
            if let check = error.check, check.key == "checkLead", let words = try? context?.words() {
                message = words.text(check.key, check.values.merging(["field": optionName(error.field, title: title, task: task)]) { $1 })
            }
            if error.field == .symbol { message += "; see 'datebook add --help'" }
            throw CLIError.usage(message)
        }
    }

    static func start(_ text: String, allDay: Bool, _ context: Context) throws -> EventStart {
        try named { try EventChanges.start(text, allDay: allDay, context.whenParser, field: .start) }
    }

    /// The changes the options ask for (`EventChanges` reads and checks them for every surface).
    static func changes(_ arguments: ParsedArguments, _ context: Context) -> EventChanges {
        var changes = EventChanges()
        changes.start = arguments.value("--at")
        // `--tz` on the command line puts a moved event in that zone; else it keeps its own.
        changes.zoneChosen = arguments.value("--tz") != nil
        changes.end = arguments.value("--end")
        changes.allDay = arguments.has("--all-day")
        changes.symbol = arguments.value("--symbol")
        changes.color = arguments.value(eventColor)
        if changes.color == nil, let name = ColorMode.legacyEventColor(arguments) {
            changes.color = name
            if EventColor(rawValue: name.lowercased()) != nil {
                context.err.write("datebook: --color NAME for the event colour is deprecated; use --event-color \(name)\n")
            }
        }
        changes.notes = arguments.value("--notes")
        changes.location = arguments.value("--location")
        changes.url = arguments.value("--url")
        changes.alerts = arguments.all("--alert")
        changes.recurrence = arguments.value("--repeat")
        changes.until = arguments.value("--until")
        changes.count = arguments.value("--count")
        changes.tasks = arguments.all("--task")
        return changes
    }

    /// Applies the shared options to `event` (used by both `add` and `edit`).
    static func apply(_ arguments: ParsedArguments, to event: inout Event, _ context: Context, newTaskID: () -> String) throws {
        let changes = changes(arguments, context)
        try named(context) { try changes.apply(to: &event, parser: context.whenParser, newTaskID: newTaskID) }
    }

    /// Holds `event` to the planner's rules (the ones imports apply); the first problem is a usage
    /// error naming the option that set the field.
    static func validate(_ event: Event, title: String = "TITLE", task: String = "--task") throws {
        try named(title: title, task: task) { try EventChanges.validate(event) }
    }
}
