import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// One occurrence of a series changed or cancelled on its own (`OccurrenceChange`), for every
/// surface: `edit`/`rm --occurrence` and the web planner's occurrence form.
extension EventChanges {
    /// The occurrence of `event` starting at `instance` becomes an override with these changes (an
    /// override already made for it is made again from the series); the series skips it. Returns
    /// the override, saved.
    public func saveOverride(of event: Event, at instance: EventStart, in store: any PlannerStore, parser: WhenParser) throws -> Event {
        let sources = try store.sourceUIDs()
        let uid = OccurrenceChange.uid(of: event, sources: sources)
        let source = OccurrenceChange.overrideSource(uid: uid, instance: instance)
        // In a synced CalDAV calendar the override is recorded under it, with the id the pull gives the
        // server's copy, so the next sync sends it as a RECURRENCE-ID of the series' resource.
        let calDAV = try (store as? any CalDAVStore)?.calDAVCalendar(holding: event.id)
        let id = calDAV.map { PlannerICS.eventID(uid: source, calendar: $0.sourceCalendar) } ?? EventID.stable(source)
        var made = OccurrenceChange.override(of: event, at: instance, id: id, newTaskID: EventTask.newID)
        let zone = made.timeZone
        try apply(to: &made, parser: parser, newTaskID: EventTask.newID)
        // Moved without a new end: the end moves alike (the occurrence keeps its length).
        if end == nil { made.end = made.end.map { OccurrenceChange.shifted($0, from: instance, to: made.start) } }
        // The occurrence keeps its series' zone unless it moves to a time read in another.
        if start == nil { made.timeZone = zone }
        try Self.validate(made)
        let series = OccurrenceChange.cancelling(instance, of: event)
        try store.saveImport(.saving([series, made], uids: [made.id: source]), calendar: calDAV?.sourceCalendar ?? PlannerICS.importCalendar)
        return made
    }

    /// Removes `event` and, for a series, the overrides of its moved occurrences (events of their
    /// own, `UID#RECURRENCE-ID`), in one transaction: `rm` and the web planner's Delete alike.
    public static func delete(_ event: Event, in store: any PlannerStore) throws {
        let overrides = event.recurrence == nil ? [] : OccurrenceChange.overrides(of: event, sources: try store.sourceUIDs())
        try store.transaction {
            for override in overrides { try store.delete(id: override.id) }
            try store.delete(id: event.id)
        }
    }

    /// Excludes the occurrence of `event` starting at `instance` from its series, and removes the
    /// override that stood for it, if any.
    public static func cancel(_ instance: EventStart, of event: Event, in store: any PlannerStore) throws {
        let sources = try store.sourceUIDs()
        let key = RecurrenceText.format(OccurrenceChange.instanceValue(instance))
        try store.transaction {
            for replaced in OccurrenceChange.overrides(of: event, sources: sources) where replaced.instance == key {
                try store.delete(id: replaced.id)
            }
            try store.saveInTransaction(OccurrenceChange.cancelling(instance, of: event))
        }
    }
}
