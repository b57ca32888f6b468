import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook snooze EVENT [--for 1h | --until WHEN]`: the event's alert once more, later, to every
/// alert channel (what the notification's Snooze button does for its own channel).
enum SnoozeCommand: Command {
    static let spec = CommandSpec(
        name: "snooze", summary: "send an event's alert again later",
        usage: "EVENT [--for DURATION | --until WHEN]",
        options: [.value("--for", "DURATION", "how long from now (default 1h)"),
                  .value("--until", "WHEN", "the moment to send it again")],
        positionals: 1...1,
        examples: ["datebook snooze Dentist", "datebook snooze Dentist --for 30m", "datebook snooze Dentist --until 'today 17:00'"],
        details: "The alert is a delivery of its own in the ledger (datebook status lists it) to every channel in\n"
            + "alerts.channels, sent by the first tick or run pass at or after that moment. The occurrence is the\n"
            + "event's (for a repeating event: the first one from a day ago on)."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let until = try moment(arguments, context)
        let channels = context.config.alerts.channels
        guard !channels.isEmpty else {
            throw CLIError.usage("nothing to snooze to: the config has no alerts.channels; add one (datebook config add-channel TYPE NAME --alerts; every key: \(ExampleConfig.location()))")
        }
        let store = try context.openStore(extendingHorizon: false)
        let event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        let start = try occurrenceStart(of: event, store: store, context: context)
        try store.transaction {
            for channel in channels {
                _ = try store.plan(Snooze.entry(eventID: event.id, occurrenceStart: start, until: until, channel: channel), now: context.now)
            }
        }
        context.out.write("snoozed " + event.shortID + " " + TextWidth.clean(event.title) + " until "
                          + LocalTime(until, in: context.timeZone).listFormat + " (to " + channels.joined(separator: ", ") + ")\n")
        return ExitCode.ok
    }

    static func moment(_ arguments: ParsedArguments, _ context: Context) throws -> Date {
        switch (arguments.value("--for"), arguments.value("--until")) {
        case (.some, .some):
            throw UsageError(message: "give --for or --until, not both", command: "snooze")
        case (let length?, nil):
            guard let lead = LeadTime(duration: length) else {
                throw CLIError.usage("cannot read alert lead time '\(length)': expected a duration like 1d, 1h, 10m or 1h30m")
            }
            return context.now.addingTimeInterval(TimeInterval(lead.days * 86_400 + lead.seconds))
        case (nil, let text?):
            let until = try EventOptions.start(text, allDay: false, context).resolved(in: context.calendar)
            guard until > context.now else {
                throw CLIError.usage("--until \(text) is not in the future; give a later WHEN")
            }
            return until
        case (nil, nil):
            return context.now.addingTimeInterval(Snooze.defaultLength)
        }
    }

    /// The event's own start, or for a repeating event its first occurrence from a day ago on.
    static func occurrenceStart(of event: Event, store: any PlannerStore, context: Context) throws -> Date {
        guard event.recurrence != nil else { return Occurrence(event: event, calendar: context.calendar).start }
        var found: Date?
        try store.forEachOccurrenceSummary(from: context.now.addingTimeInterval(-86_400),
                                           to: context.now.addingTimeInterval(400 * 86_400), calendar: context.calendar) { occurrence in
            if found == nil, occurrence.event.id == event.id { found = occurrence.start }
        }
        guard let found else {
            throw CLIError.usage("'\(TextWidth.clean(event.title))' has no occurrence from yesterday on to snooze")
        }
        return found
    }
}
