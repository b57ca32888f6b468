import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

extension PlannerICS {
    /// The planner as iCalendar (see `ICSExport`) in one string, for a few events. A series split by
    /// RANGE=THISANDFUTURE is written as one (`SeriesTails`) when its master and parts are all among `events`.
    public static func encode(_ events: [Event], uids: [String: String], dtstamp: Date) -> String {
        var export = ICSExport(zones: events.filter { if case .instant = $0.start { true } else { false } }.map(\.timeZone),
                               uids: uids, dtstamp: dtstamp, series: events)
        events.forEach { export.add($0) }
        export.end()
        return String(decoding: export.take(), as: UTF8.self)
    }
}

/// The planner as iCalendar, written event by event (`export --format ics` streams it): each
/// event a VEVENT (RRULE, RDATE, EXDATE, VALARM per lead time), followed by its tasks as VTODOs
/// with RELATED-TO the event; a to-do list's to-dos alone, without RELATED-TO.
///
/// Events that came from iCalendar keep their UID (`uids`); others get `<id>@datebook`, which
/// `decode` maps back to the same id, so export → import reproduces the planner; the colour
/// is written as RFC 7986 `COLOR` (a CSS3 name), the symbol as `X-DATEBOOK-SYMBOL` and an
/// all-day event's zone (a DATE has no TZID) as `X-DATEBOOK-TIMEZONE`.
public struct ICSExport {
    private var writer: ICalStreamWriter
    private let uids: [String: String]
    /// Zones written with TZID (the others are written as UTC).
    private var zones: [String: TimeZone] = [:]
    /// UID → the RECURRENCE-IDs of its overrides held as events of their own (`UID#RECURRENCE-ID`).
    private let overrides: [String: [ICalDateValue]]
    /// How the parts of series split by RANGE=THISANDFUTURE are written.
    private let seriesTails: SeriesTails
    /// The UIDs of the series and single events written so far: one UID names one of them.
    private var written: Set<String> = []

    /// `zones`: the zones of the timed events to come (in any order, repeats allowed); each gets
    /// a VTIMEZONE. `series`: the series split by RANGE=THISANDFUTURE overrides, their parts and
    /// masters (`seriesWithTails`).
    public init(zones: some Sequence<String>, uids: [String: String], dtstamp: Date, series: [Event] = []) {
        seriesTails = SeriesTails(series: series, uids: uids)
        for name in zones where name != "UTC" { self.zones[name] = TimeZone(identifier: name) }
        self.uids = uids
        var overrides: [String: [ICalDateValue]] = [:]
        for stored in uids.values where stored.contains("#") {
            let source = PlannerICS.source(stored)
            if let recurrenceID = source.recurrenceID { overrides[source.uid, default: []].append(recurrenceID) }
        }
        self.overrides = overrides
        writer = ICalStreamWriter(prodID: "-//datebook//datebook//EN", dtstamp: dtstamp, zones: self.zones.keys.sorted())
    }

    public mutating func add(_ event: Event) {
        // A to-do list is on no date: only its to-dos go out, as VTODOs without RELATED-TO (a part of
        // another one names that one), whose UIDs name the list an import puts them back in.
        guard !event.isTaskList else {
            event.tasks.forEach { writer.todo(todo($0, of: event, relatedTo: nil)) }
            return
        }
        var source = uids[event.id].map(PlannerICS.source)
        // A part of a split series: a RANGE=THISANDFUTURE override without a rule when its master is
        // written with the joined rule, else a series of its own (see `SeriesTails`).
        let tail = seriesTails.tails.contains(event.id)
        if source?.recurrenceID != nil, event.recurrence != nil, !tail { source = nil }
        var uid = source?.uid ?? event.id + PlannerICS.uidSuffix
        // A UID held by two events (each synced calendar's "Tasks" event, one event in two calendars): the
        // second goes out under its own id's UID, which an import maps back to it, so no UID names two.
        if source?.recurrenceID == nil, !written.insert(uid).inserted {
            uid = event.id + PlannerICS.uidSuffix
            written.insert(uid)
        }
        let text = tail ? nil : (seriesTails.joined[event.id] ?? event.recurrence).map(RecurrenceText.init)
        let instance = source?.recurrenceID.map { instanceID(of: event, $0) }
        var item = ICalEvent(
            uid: uid, summary: event.title, description: event.notes.isEmpty ? nil : event.notes,
            location: event.location.isEmpty ? nil : event.location, url: event.url.isEmpty ? nil : event.url,
            start: value(event.start, zone: event.timeZone), end: event.exclusiveEnd.map { endValue($0, zone: event.timeZone) },
            rrule: text?.rule, rdates: text?.rdates ?? [], exdates: exdates(of: event, uid: uid, text?.exdates ?? []),
            exrules: text?.exrules ?? [], recurrenceID: instance, alarms: event.alerts.map(PlannerICS.alarm),
            color: event.color.cssName, symbol: event.symbol.rawValue,
            timeZoneName: zoneGoesApart(event) ? event.timeZone : nil)
        item.thisAndFuture = tail
        writer.event(item)
        event.tasks.forEach { writer.todo(todo($0, of: event, relatedTo: uid)) }
    }

    /// A task as a VTODO `<task>.<event>@datebook`, RELATED-TO `relatedTo` (its event's UID), or
    /// its parent task's UID when it is a part of another task (an import puts it where that one goes).
    /// A to-do list's carry the list's colour and symbol (`COLOR`, `X-DATEBOOK-SYMBOL`), as an event's
    /// VEVENT does: the list has no component of its own.
    private func todo(_ task: EventTask, of event: Event, relatedTo: String?) -> ICalTodo {
        ICalTodo(uid: task.id + "." + event.id + PlannerICS.uidSuffix, summary: task.text,
                 status: ICalTaskStatus(rawValue: task.status.rawValue) ?? .todo,
                 relatedTo: task.parent.map { $0 + "." + event.id + PlannerICS.uidSuffix } ?? relatedTo,
                 due: task.due.map { value($0, zone: event.timeZone) }, priority: task.priority,
                 color: event.isTaskList ? event.color.cssName : nil, symbol: event.isTaskList ? event.symbol.rawValue : nil)
    }

    public mutating func end() { writer.end() }

    /// A master's EXDATEs without the instances its overrides replace: the store keeps such an
    /// instance excluded from the series (the override is its own event), but an EXDATE at an
    /// override's RECURRENCE-ID makes other programs drop the moved occurrence (RFC 5545 §3.8.5.1
    /// excludes the instance the override stands for).
    private func exdates(of event: Event, uid: String, _ exdates: [ICalDateValue]) -> [ICalDateValue] {
        guard uids[event.id].map(PlannerICS.source)?.recurrenceID == nil, let replaced = overrides[uid], !exdates.isEmpty
        else { return exdates }
        let keys = Set(replaced.map { RecurrenceText.format(instanceID(of: event, $0)) })
        return exdates.filter { !keys.contains(RecurrenceText.format($0)) }
    }

    /// An override's RECURRENCE-ID as its series names its instances: the date, for an all-day
    /// event (a timed value from Outlook or an older export would match no instance of a DATE series).
    private func instanceID(of event: Event, _ value: ICalDateValue) -> ICalDateValue {
        guard event.start.isAllDay, !value.isAllDay else { return value }
        return PlannerICS.instanceDay(value, of: event, fallback: TimeZone(identifier: "UTC") ?? .current)
    }

    /// Bytes written and not yet taken.
    public var pending: Int { writer.pending }

    /// The text written since the last `take()`, as UTF-8.
    public mutating func take() -> [UInt8] { writer.take() }

    /// DTEND: an exclusive end past the last representable day (an all-day event ending on
    /// 3000-12-31) is written as that day's last second, which the import reads as the same last day.
    private func endValue(_ end: EventStart, zone: String) -> ICalDateValue {
        if case .allDay(let day) = end, day.year > RepresentableDates.years.upperBound { return .utc(RepresentableDates.latest) }
        return value(end, zone: zone)
    }

    private func value(_ start: EventStart, zone: String) -> ICalDateValue {
        switch start {
        case .allDay(let day): return .date(year: day.year, month: day.month, day: day.day)
        case .instant(let date): return zones[zone] != nil ? .zoned(date, tzid: zone) : .utc(date)
        case .floating(let time): return PlannerICS.value(time)
        }
    }

    /// Whether DTSTART cannot carry the event's zone (a DATE or a floating time; or a time in a
    /// zone's repeated hour, which the writer puts in UTC), so `X-DATEBOOK-TIMEZONE` does.
    private func zoneGoesApart(_ event: Event) -> Bool {
        switch event.start {
        case .allDay, .floating: return true
        case .instant(let date): return zones[event.timeZone].map { !ICalWriter.readsBack(date, in: $0) } ?? false
        }
    }
}
