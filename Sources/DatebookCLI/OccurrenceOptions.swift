import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `--occurrence WHEN` of `edit` and `rm`: one occurrence of a recurring event, changed or
/// cancelled on its own (`OccurrenceChange`).
enum OccurrenceOptions {
    static let from = OptionSpec.value("--from", "WHEN",
                                       "this occurrence of a recurring event and every later one: the series is split there "
                                       + "and the options change the part from WHEN on")

    static let spec = OptionSpec.value("--occurrence", "WHEN",
                                       "only this occurrence of a recurring event: its date (2026-12-10), or its date and time "
                                       + "when the event occurs more than once that day")

    /// The start of `event`'s occurrence that `when` names: a date names the one occurrence on that
    /// day (in your zone), a date and time the one starting then.
    static func instance(_ when: String, of event: Event, in store: any PlannerStore, _ context: Context) throws -> EventStart {
        guard event.recurrence != nil else {
            throw CLIError.usage("--occurrence: '\(TextWidth.clean(event.title))' does not repeat; change or remove the event itself")
        }
        let named = try context.whenParser.parse(when).eventStart
        let day: CalendarDate
        switch named {
        case .allDay(let date): day = date
        case .instant(let date): day = CalendarDate(date, in: context.timeZone)
        case .floating(let time): day = time.date
        }
        let from = day.start(in: context.calendar), to = CalendarDate(dayNumber: day.dayNumber + 1).start(in: context.calendar)
        var starts: [Date] = []
        try store.forEachOccurrence(from: from, to: to, calendar: context.calendar) { occurrence in
            if occurrence.event.id == event.id { starts.append(occurrence.start) }
        }
        if case .instant(let date) = named { starts = starts.filter { $0 == date } }
        guard starts.count == 1, let start = starts.first else {
            let shown = named.isAllDay ? day.weekdayName + " " + day.description : Rows.when(named, context)
            if starts.isEmpty {
                throw CLIError.usage("--occurrence '\(when)': '\(TextWidth.clean(event.title))' has no occurrence on \(shown); "
                                     + "'datebook list' shows its occurrences")
            }
            let times = starts.map { LocalTime($0, in: context.timeZone).listFormat }.joined(separator: ", ")
            throw CLIError.usage("--occurrence '\(when)': '\(TextWidth.clean(event.title))' occurs \(starts.count) times on \(shown) "
                                 + "(\(times)); give the date and time of one")
        }
        switch event.start {
        case .instant: return .instant(start)
        case .allDay: return .allDay(CalendarDate(start, in: context.timeZone))
        case .floating: return .floating(FloatingTime(start, in: context.timeZone))
        }
    }

    /// `rm EVENT --occurrence WHEN`: excludes the occurrence from its series (and removes the
    /// override that stood for it, if any). Returns what to print.
    static func cancel(_ event: Event, _ when: String, in store: any PlannerStore, _ context: Context) throws -> String {
        let instance = try instance(when, of: event, in: store, context)
        try EventChanges.cancel(instance, of: event, in: store)
        return "cancelled " + event.shortID + "  " + TextWidth.clean(event.title) + " on " + Rows.when(instance, context) + "\n"
    }

    /// `edit EVENT --occurrence WHEN …`: the occurrence becomes an override with the options
    /// applied (an override already made for it is edited instead). Returns the override.
    static func change(_ event: Event, _ when: String, _ arguments: ParsedArguments, in store: any PlannerStore,
                       _ context: Context) throws -> Event {
        for option in ["--repeat", "--until", "--count", "--calendar", "--no-calendar"] where arguments.has(option) {
            throw CLIError.usage("\(option) changes the whole series; leave out --occurrence, or use --from WHEN to change "
                                 + "this and every later occurrence")
        }
        let instance = try instance(when, of: event, in: store, context)
        var changes = EventOptions.changes(arguments, context)
        changes.title = arguments.value("--title")
        changes.clearEnd = arguments.has("--clear-end")
        changes.clearAlerts = arguments.has("--clear-alerts")
        return try EventOptions.named(title: "--title", context) { try changes.saveOverride(of: event, at: instance, in: store, parser: context.whenParser) }
    }

    /// `edit EVENT --from WHEN …`: the series ends before the occurrence WHEN names and a new series
    /// (a new id, the tasks copied) takes it and every later one, with the options applied; nil
    /// when WHEN is the first occurrence (the whole series changes then). Returns both parts.
    static func split(_ event: Event, _ when: String, _ arguments: ParsedArguments, in store: any PlannerStore,
                      _ context: Context) throws -> (before: Event, after: Event)? {
        for option in ["--occurrence", "--calendar", "--no-calendar"] where arguments.has(option) {
            throw CLIError.usage("give --from WHEN or \(option), not both")
        }
        let instance = try instance(when, of: event, in: store, context)
        if instance == event.start { return nil }
        guard let parts = OccurrenceChange.split(event, at: instance, zone: context.timeZone) else {
            throw CLIError.usage("--from '\(when)': the rule '\(event.recurrence ?? "")' cannot be split there as two rules "
                                 + "(its BYxxx parts do not move with the start); change the whole series, or one occurrence with --occurrence")
        }
        var before = event
        before.recurrence = parts.before
        var generator = SystemRandomNumberGenerator()
        var after = OccurrenceChange.override(of: event, at: instance, id: EventID.random(using: &generator), newTaskID: EventTask.newID)
        after.recurrence = parts.after
        if let title = arguments.value("--title") {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("--title is empty") }
            after.title = title
        }
        if arguments.has("--clear-end") { after.end = nil }
        if arguments.has("--clear-alerts") { after.alerts = [] }
        let zone = after.timeZone
        try EventOptions.apply(arguments, to: &after, context, newTaskID: EventTask.newID)
        if arguments.value("--end") == nil { after.end = after.end.map { OccurrenceChange.shifted($0, from: instance, to: after.start) } }
        if arguments.value("--at") == nil { after.timeZone = zone }
        // Moved: the rule's UNTIL and the part's EXDATEs move alike, where the rule can say so.
        if after.start != instance, after.recurrence == parts.after,
           let moved = OccurrenceChange.split(event, at: instance, movedTo: after.start, zone: context.timeZone) {
            after.recurrence = moved.after
        }
        try EventOptions.validate(after, title: "--title")
        if let calDAV = store as? any CalDAVStore, let calendar = try calDAV.calDAVCalendar(holding: event.id) {
            // In a synced CalDAV calendar the new series is an event of that calendar (a new resource the next
            // sync sends, as 'add --calendar' makes one), saved before the old one is cut short: a stop between
            // the two leaves occurrences twice, never none.
            let uid = EventID.random(using: &generator) + PlannerICS.uidSuffix
            after.id = PlannerICS.eventID(uid: uid, calendar: calendar.sourceCalendar)
            try calDAV.save(after, into: calendar, uid: uid)
            try store.save(before)
            return (before, after)
        }
        // From a calendar that splits series with RANGE=THISANDFUTURE: the part is held as such an override.
        if let source = try OccurrenceChange.thisAndFutureSource(of: event, at: instance, sources: try store.sourceUIDs(), in: store) {
            after.id = EventID.stable(source)
            try store.saveImport(.saving([before, after], uids: [after.id: source]), calendar: PlannerICS.importCalendar)
            return (before, after)
        }
        try store.transaction {
            try store.saveInTransaction(before)
            try store.saveInTransaction(after)
        }
        return (before, after)
    }
}
