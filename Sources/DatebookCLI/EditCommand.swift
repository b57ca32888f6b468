import DatebookCore
import DatebookDaemon
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook edit EVENT [options of add] [--title TEXT]`
enum EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit", summary: "change an event", usage: "EVENT [--title TEXT] [options of add]",
        options: [.value("--title", "TEXT", "new title"), .flag("--clear-end", "remove the end time"),
                  .flag("--clear-alerts", "remove every alert of the event (in a synced calendar, the server's VALARMs too)"),
                  .value("--remove-alert", "ALERT", repeatable: true,
                         "remove this alert (as --alert writes it: 15m, '15m before end', 'at 2026-12-24 09:00'); in a synced "
                         + "calendar the next sync removes exactly the VALARM that gave it"),
                  .value("--calendar", "NAME", "move it into this synced CalDAV calendar (its name, or ACCOUNT/NAME), keeping its id, "
                         + "tasks and alerts; the next sync sends it (and removes it from the calendar it was in)"),
                  .flag("--no-calendar", "take it out of its CalDAV calendar; the next sync removes it from the server"),
                  OccurrenceOptions.spec, OccurrenceOptions.from] + EventOptions.specs,
        positionals: 1...1,
        examples: ["datebook edit Pagliacci --at 'tomorrow 20:00'", "datebook edit 1a2b --event-color green --task 'Buy flowers'",
                   "datebook edit Standup --occurrence 2026-12-10 --at '2026-12-10 14:00'",
                   "datebook edit Standup --from 2027-01-05 --at '2027-01-05 10:00'"]
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(extendingHorizon: false)
        var event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        try FeedCommand.refuseChange(of: event, verb: "edit", in: store, arguments: arguments)
        if arguments.has("--remove-alert"), let option = ["--occurrence", "--from"].first(where: arguments.has) {
            throw CLIError.usage("--remove-alert takes an alert off the whole event; leave out \(option)")
        }
        if let when = arguments.value("--occurrence") {
            let made = try OccurrenceOptions.change(event, when, arguments, in: store, context)
            context.out.write("updated one occurrence: " + Rows.row(Occurrence(event: made, calendar: context.calendar), context).dropFirst(2))
            return ExitCode.ok
        }
        if let when = arguments.value("--from"), let (before, after) = try OccurrenceOptions.split(event, when, arguments, in: store, context) {
            context.out.write("ended " + before.shortID + "  " + TextWidth.clean(before.title) + " before " + Rows.when(after.start, context) + "\n")
            context.out.write("added " + Rows.row(Occurrence(event: after, calendar: context.calendar), context).dropFirst(2))
            return ExitCode.ok
        }
        if let title = arguments.value("--title") {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("--title is empty") }
            event.title = title
        }
        if arguments.has("--clear-end") { event.end = nil }
        if arguments.has("--clear-alerts") { event.alerts = [] }
        try removeAlerts(arguments.all("--remove-alert"), from: &event, context)
        try EventOptions.apply(arguments, to: &event, context, newTaskID: EventTask.newID)
        try EventOptions.validate(event, title: "--title")
        let moved = try move(event, arguments, store)
        if moved == nil { try store.save(event) }
        context.out.write("updated " + Rows.row(Occurrence(event: event, calendar: context.calendar), context).dropFirst(2))
        if let moved { context.out.write(moved + "\n") }
        return ExitCode.ok
    }

    /// `--remove-alert ALERT`…: each takes one alert of `event` away; one it does not have is a usage error naming those it has.
    static func removeAlerts(_ texts: [String], from event: inout Event, _ context: Context) throws {
        for text in texts {
            guard let lead = LeadTime(phrase: text, parser: context.whenParser) else {
                throw CLIError.usage("cannot read --remove-alert '\(text)': expected an alert as --alert takes it, like 15m, '15m before end' "
                                     + "or 'at 2026-12-24 09:00'")
            }
            guard let at = event.alerts.firstIndex(of: lead) else {
                let has = event.alerts.map(\.description).joined(separator: ", ")
                throw CLIError.usage("--remove-alert '\(text)': the event has no such alert" + (has.isEmpty ? "" : "; its alerts are " + has))
            }
            event.alerts.remove(at: at)
        }
    }

    /// `--calendar NAME`: saves `event` into the synced CalDAV calendar NAME names, under a new UID
    /// (the next sync `PUT`s it with `If-None-Match: *`); `--no-calendar`: as one of datebook's own.
    /// Its id stays. Out of a CalDAV calendar, the next sync of that one removes it from its
    /// server (`DELETE` with `If-Match`). Returns what moved, in words; nil when nothing moves
    /// (no option, or the calendar it is in already).
    static func move(_ event: Event, _ arguments: ParsedArguments, _ store: any PlannerStore) throws -> String? {
        let name = arguments.value("--calendar")
        guard name != nil || arguments.has("--no-calendar") else { return nil }
        guard name == nil || !arguments.has("--no-calendar") else { throw CLIError.usage("give --calendar NAME or --no-calendar, not both") }
        let calDAV = try CalDAVScheduling.calDAVStore(store)
        let target = try name.map { try AddCommand.calDAVCalendar(named: $0, calDAV) }
        let current = try calDAV.calDAVCalendar(holding: event.id)
        func shown(_ calendar: CalDAVCalendar) -> String { "caldav '\(calendar.account)' \(TextWidth.clean(calendar.displayName))" }
        if let current, let target, current.account == target.account, current.url == target.url { return nil }
        if let target {
            var generator = SystemRandomNumberGenerator()
            try calDAV.save(event, into: target, uid: EventID.random(using: &generator) + PlannerICS.uidSuffix)
        } else {
            guard current != nil else { return nil }
            try calDAV.saveOutsideCalDAV(event)
        }
        let from = current.map { "out of " + shown($0) } ?? ""
        let into = target.map { "into " + shown($0) } ?? ""
        return "moved " + [from, into].filter { !$0.isEmpty }.joined(separator: " ")
            + "; 'datebook caldav sync' " + (current == nil ? "sends it" : target == nil ? "removes it from the server" : "moves it")
    }
}
