import DatebookCore
import DatebookStore
import Foundation

/// `datebook edit EVENT [options of add] [--title TEXT]`
enum EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit", summary: "change an event", usage: "EVENT [--title TEXT] [options of add]",
        options: [.value("--title", "TEXT", "new title"), .flag("--clear-end", "remove the end time"),
                  .flag("--clear-alerts", "remove the event's own alert lead times"),
                  .value("--calendar", "NAME", "move it into this synced CalDAV calendar (its name, or ACCOUNT/NAME), keeping its id, "
                         + "tasks and alerts; the next sync sends it")] + EventOptions.specs,
        positionals: 1...1,
        examples: ["datebook edit Pagliacci --at 'tomorrow 20:00'", "datebook edit 1a2b --event-color green --task 'Buy flowers'"]
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(extendingHorizon: false)
        var event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        try FeedCommand.refuseChange(of: event, verb: "edit", in: store, arguments: arguments)
        if let title = arguments.value("--title") {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("--title is empty") }
            event.title = title
        }
        if arguments.has("--clear-end") { event.end = nil }
        if arguments.has("--clear-alerts") { event.alerts = [] }
        try EventOptions.apply(arguments, to: &event, context, newTaskID: EventTask.newID)
        try EventOptions.validate(event, title: "--title")
        let moved = try arguments.value("--calendar").map { try move(event, into: $0, store) } ?? nil
        if moved == nil { try store.save(event) }
        context.out.write("updated " + Rows.row(Occurrence(event: event, calendar: context.calendar), context).dropFirst(2))
        if let moved {
            context.out.write("moved into caldav '\(moved.account)' \(TextWidth.clean(moved.displayName)); 'datebook caldav sync' sends it\n")
        }
        return ExitCode.ok
    }

    /// Saves `event` into the synced CalDAV calendar `name` names, under a new UID (the next sync
    /// `PUT`s it with `If-None-Match: *`); its id stays. Nil when it is in that calendar already
    /// (then nothing moves). An event of another CalDAV calendar is refused: moving one out is not done.
    static func move(_ event: Event, into name: String, _ store: any PlannerStore) throws -> CalDAVCalendar? {
        let calDAV = try CalDAVScheduling.calDAVStore(store)
        let calendar = try AddCommand.calDAVCalendar(named: name, calDAV)
        if let current = try calDAV.calDAVCalendar(holding: event.id) {
            if current.account == calendar.account, current.url == calendar.url { return nil }
            throw CLIError.usage("'\(TextWidth.clean(event.title))' is in caldav '\(current.account)' \(TextWidth.clean(current.displayName)); "
                                 + "moving an event out of a CalDAV calendar is not supported: add it anew with 'datebook add … --calendar "
                                 + "\(TextWidth.clean(name))' and remove this one")
        }
        var generator = SystemRandomNumberGenerator()
        try calDAV.save(event, into: calendar, uid: EventID.random(using: &generator) + PlannerICS.uidSuffix)
        return calendar
    }
}
