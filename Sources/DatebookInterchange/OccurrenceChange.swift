import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// One occurrence of a series changed on its own, as iCalendar means it: cancelled (an EXDATE of
/// the series) or replaced by an override (an event of its own whose source is
/// `UID#RECURRENCE-ID`, exported as a VEVENT with that RECURRENCE-ID; the series keeps the
/// instance excluded, which the export leaves out again). The same shape an import of another
/// program's override makes, so `show`, `list --json`, export and re-import treat both alike.
public enum OccurrenceChange {
    /// The value an instance of a series is named by: a UTC instant, a date (all-day) or a
    /// wall-clock time (floating); as `RecurrenceText` stores EXDATEs.
    public static func instanceValue(_ instance: EventStart) -> ICalDateValue {
        switch instance {
        case .instant(let date): return .utc(date)
        case .allDay(let day): return .date(year: day.year, month: day.month, day: day.day)
        case .floating(let time): return PlannerICS.value(time)
        }
    }

    /// `series` with the instance `instance` excluded (an EXDATE; nothing changes when it is one already).
    public static func cancelling(_ instance: EventStart, of series: Event) -> Event {
        var series = series
        var text = RecurrenceText(series.recurrence ?? "")
        let value = instanceValue(instance)
        let key = RecurrenceText.format(value)
        if !text.exdates.contains(where: { RecurrenceText.format($0) == key }) {
            text.exdates.append(value)
            series.recurrence = text.text
        }
        return series
    }

    /// The stored source of an override of `instance` of a series whose UID is `uid`.
    public static func overrideSource(uid: String, instance: EventStart) -> String {
        uid + "#" + RecurrenceText.format(instanceValue(instance))
    }

    /// The UID a series is exported under: its source's, or `<id>@datebook`.
    public static func uid(of series: Event, sources: [String: String]) -> String {
        sources[series.id].map { PlannerICS.source($0).uid } ?? series.id + PlannerICS.uidSuffix
    }

    /// A copy of `series` standing for its occurrence at `instance` on its own: no rule, the
    /// instance's start, its end moved alike (the same length), the tasks copied (with the new
    /// ids `newTaskID` makes), so an occurrence's tasks stay with it.
    public static func override(of series: Event, at instance: EventStart, id: String, newTaskID: () -> String) -> Event {
        var made = series
        made.id = id
        made.recurrence = nil
        made.end = series.end.map { shifted($0, from: series.start, to: instance) }
        made.start = instance
        made.tasks = series.tasks.map { EventTask(id: newTaskID(), text: $0.text, status: $0.status) }
        return made
    }

    /// `end` moved as `start` moved to `instance` (all-day ends by days, others by seconds).
    public static func shifted(_ end: EventStart, from start: EventStart, to instance: EventStart) -> EventStart {
        switch (start, end, instance) {
        case let (.allDay(first), .allDay(last), .allDay(now)):
            return .allDay(CalendarDate(dayNumber: last.dayNumber + now.dayNumber - first.dayNumber))
        case let (.instant(first), .instant(last), .instant(now)):
            return .instant(now.addingTimeInterval(last.timeIntervalSince(first)))
        case let (.floating(first), .floating(last), .floating(now)):
            return .floating(FloatingTime(wallSeconds: now.wallSeconds + last.wallSeconds - first.wallSeconds))
        default:
            return end
        }
    }

    /// The overrides of `series` a store holds (their event ids, and the instances they replace
    /// as `RecurrenceText.format` writes them), from `sources` (`sourceUIDs()`).
    public static func overrides(of series: Event, sources: [String: String]) -> [(id: String, instance: String)] {
        let uid = uid(of: series, sources: sources)
        return sources.compactMap { id, stored -> (id: String, instance: String)? in
            let source = PlannerICS.source(stored)
            guard id != series.id, source.uid == uid, let recurrenceID = source.recurrenceID else { return nil }
            return (id, RecurrenceText.format(recurrenceID))
        }.sorted { $0.instance < $1.instance }
    }

    /// The instances of `series` excluded without an override standing for them: its cancelled
    /// occurrences, by start.
    public static func cancelled(_ series: Event, sources: [String: String]) -> [EventStart] {
        guard let recurrence = series.recurrence else { return [] }
        let replaced = Set(overrides(of: series, sources: sources).map(\.instance))
        return RecurrenceText(recurrence).exdates.filter { !replaced.contains(RecurrenceText.format($0)) }.map(start)
    }

    /// The instance a stored override source (`UID#RECURRENCE-ID`) replaces, and the id of its
    /// series when the store holds it; nil for an event that is no override.
    public static func replaced(by id: String, sources: [String: String]) -> (series: String?, instance: EventStart)? {
        guard let stored = sources[id] else { return nil }
        let source = PlannerICS.source(stored)
        guard let recurrenceID = source.recurrenceID else { return nil }
        let series = sources.first { PlannerICS.source($0.value).recurrenceID == nil && $0.value == source.uid }?.key
            ?? (source.uid.hasSuffix(PlannerICS.uidSuffix) ? String(source.uid.dropLast(PlannerICS.uidSuffix.count)) : nil)
        return (series, start(recurrenceID))
    }

    /// `event`'s recurrence (a new rule) with the EXDATEs of `old` that still name an instance of
    /// it: `edit --repeat` keeps the cancelled occurrences the new rule still has.
    public static func keepingCancelled(from old: String, in event: Event) -> String? {
        guard let recurrence = event.recurrence else { return nil }
        var text = RecurrenceText(recurrence)
        let known = Set(text.exdates.map(RecurrenceText.format))
        for exdate in RecurrenceText(old).exdates where !known.contains(RecurrenceText.format(exdate)) {
            let key = start(exdate).occurrenceKey
            let found = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                                                window: key ..< key + 1, cap: 1).keys
            if found.contains(key) { text.exdates.append(exdate) }
        }
        return text.text
    }

    /// The recurrence texts of `series` split at `instance`: the instances before it, and the rule
    /// for it and every later one from `instance` on, moved to `movedTo` (COUNT lowered, UNTIL moved
    /// alike, RDATE/EXDATE shared out); nil when the rule cannot be written as two (BYxxx parts
    /// that DTSTART does not carry, when the start moves).
    public static func split(_ series: Event, at instance: EventStart, movedTo: EventStart? = nil,
                             zone: TimeZone) -> (before: String, after: String)? {
        guard let parts = PlannerICS.seriesSplit(series, at: instanceValue(instance), movedTo: movedTo ?? instance, zone: zone),
              let after = parts.after else { return nil }
        return (parts.before, after)
    }

    /// The source `edit --from` gives the part of `series` from `instance` on when the series came
    /// from a calendar that splits series with RANGE=THISANDFUTURE overrides (`series` is such a
    /// part, or another event of its UID is): `UID#RECURRENCE-ID` of the original instance, so that
    /// an export writes the part back that way (`SeriesTails`). Nil otherwise: the part is a series
    /// of its own.
    public static func thisAndFutureSource(of series: Event, at instance: EventStart, sources: [String: String],
                                           in store: any PlannerStore) throws -> String? {
        guard let stored = sources[series.id] else { return nil }
        let source = PlannerICS.source(stored)
        let utc = TimeZone(identifier: "UTC") ?? .current
        if let recurrenceID = source.recurrenceID {
            // A part: its instances sit where its override moved them; the RECURRENCE-ID names the original one.
            let shift = PlannerICS.wallClock(instanceValue(series.start), of: series, fallback: utc)
                .timeIntervalSince(PlannerICS.wallClock(recurrenceID, of: series, fallback: utc))
            let wall = PlannerICS.wallClock(instanceValue(instance), of: series, fallback: utc).addingTimeInterval(-shift)
            return source.uid + "#" + RecurrenceText.format(PlannerICS.instance(atWallClock: wall, of: series, fallback: utc))
        }
        let siblings = sources.filter { $0.key != series.id && PlannerICS.source($0.value).uid == source.uid
            && PlannerICS.source($0.value).recurrenceID != nil }.map(\.key)
        guard !siblings.isEmpty, try store.events(ids: siblings).values.contains(where: { $0.recurrence != nil }) else { return nil }
        return overrideSource(uid: source.uid, instance: instance)
    }

    /// An instance value as an event start.
    static func start(_ value: ICalDateValue) -> EventStart {
        switch value {
        case let .date(year, month, day): return .allDay(CalendarDate(year: year, month: month, day: day))
        case let .floating(local):
            return .floating(FloatingTime(date: CalendarDate(year: local.year, month: local.month, day: local.day),
                                          hour: local.hour, minute: local.minute, second: local.second))
        case let .zoned(date, _), let .utc(date): return .instant(date)
        }
    }
}

extension ICSImport {
    /// Events and their sources to save with `saveImport` (an override made by `OccurrenceChange`).
    public static func saving(_ events: [Event], uids: [String: String]) -> ICSImport {
        ICSImport(events: events, uids: uids, warnings: [])
    }
}
