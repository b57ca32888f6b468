import DatebookCore
import DatebookDaemon
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook add TITLE --at WHEN …`
enum AddCommand: Command {
    static let spec = CommandSpec(
        name: "add", summary: "add an event", usage: "TITLE --at WHEN [options]",
        options: EventOptions.specs + [.value("--calendar", "NAME", "put it in this synced CalDAV calendar (its name, or ACCOUNT/NAME); "
                                              + "the next sync sends it")],
        positionals: 1...1,
        examples: ["datebook add 'Game Night' --at 'fri 19:00' --symbol gamecontroller.fill --task 'Bring snacks'",
                   "datebook add 'Christmas' --at 2026-12-25 --event-color red --alert 1w",
                   "datebook add --at WHEN -- \"-u critical\""],
        details: "A TITLE that starts with a dash goes after a final --, which ends the options: "
            + "add --at WHEN -- \"-u critical\"."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let title = arguments.positionals[0]
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("TITLE is empty") }
        guard arguments.value("--at") != nil else { throw UsageError(message: "'add' needs --at WHEN", command: "add") }
        var generator = SystemRandomNumberGenerator()
        var event = Event(
            id: EventID.random(using: &generator), title: title, start: .instant(context.now),
            timeZone: context.timeZone.identifier,
            symbol: Symbol.suggested(forTitle: title),
            color: EventColor.allCases.randomElement(using: &generator) ?? .primary
        )
        try EventOptions.apply(arguments, to: &event, context, newTaskID: EventTask.newID)
        try EventOptions.validate(event)
        let store = try context.openStore(extendingHorizon: false)
        if let name = arguments.value("--calendar") {
            let calDAV = try CalDAVScheduling.calDAVStore(store)
            let calendar = try calDAVCalendar(named: name, calDAV)
            // The UID of its resource-to-be gives the id, as the server's copy will (no duplicate after the next pull).
            let uid = EventID.random(using: &generator) + PlannerICS.uidSuffix
            event.id = PlannerICS.eventID(uid: uid, calendar: calendar.sourceCalendar)
            try calDAV.save(event, into: calendar, uid: uid)
        } else {
            try store.save(event)
        }
        context.out.write("added " + Rows.row(Occurrence(event: event, calendar: context.calendar), context).dropFirst(2))
        // As `import` does: a rule that reaches the cap keeps only its first occurrences.
        if let limit = try store.recurrenceLimit(of: event), limit.refusal == nil {
            context.err.write("datebook: warning: " + limit.message { Rows.when($0, context) } + "\n")
        }
        if let warning = pastWarning(event, at: arguments.value("--at") ?? "", context) { context.err.write(warning) }
        return ExitCode.ok
    }

    /// A warning when the new event's only occurrence has already begun (`--at 6am` at 07:34),
    /// with the `--at` that gives tomorrow's when the WHEN named no day.
    static func pastWarning(_ event: Event, at text: String, _ context: Context) -> String? {
        guard event.recurrence == nil else { return nil }
        let started: Bool
        switch event.start {
        case .allDay(let day): started = day < CalendarDate(context.now, in: context.timeZone)
        default: started = event.start.resolved(in: context.calendar) < context.now
        }
        guard started else { return nil }
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.lowercased().hasPrefix("today ") { text = String(text.dropFirst(6)) }
        let tomorrow = "tomorrow " + text
        let hint = (try? context.whenParser.parse(tomorrow)) != nil
            ? "for tomorrow's use --at \"\(tomorrow)\""
            : "give a later --at, or change it with 'datebook edit \(event.id.prefix(8)) --at WHEN'"
        return "datebook: warning: '\(event.title)' starts in the past (it is now "
            + LocalTime(context.now, in: context.timeZone).listFormat + "); " + hint + "\n"
    }

    /// The synced CalDAV calendar `--calendar NAME` names: a display name, or `ACCOUNT/NAME`.
    static func calDAVCalendar(named name: String, _ store: any CalDAVStore) throws -> CalDAVCalendar {
        let found = try store.calDAVCalendars(named: name)
        let names = try store.calDAVCalendarNames()
        let hint = Suggestion.hint(for: name, in: names.map { String($0.drop { $0 != "/" }.dropFirst()) })
        guard found.count < 2 else {
            throw CLIError.usage("--calendar '\(name)' names calendars of several accounts; use one of "
                                 + found.map { "'\($0.account)/\($0.displayName)'" }.joined(separator: ", "))
        }
        guard let calendar = found.first else {
            throw CLIError.usage("no synced caldav calendar named '\(name)'" + (hint.isEmpty ? Suggestion.hint(for: name, in: names) : hint)
                                 + "; 'datebook caldav list' shows them")
        }
        return calendar
    }
}
