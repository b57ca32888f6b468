import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// How RECURRENCE-ID overrides change their master beyond one instance: stale overrides
/// (SEQUENCE) and RANGE=THISANDFUTURE.
extension PlannerICS {
    /// The recurrence texts of `master` split by a RANGE=THISANDFUTURE override of the instance
    /// `recurrenceID` that moved it to `movedTo` (nil: cancelled): the master keeps the instances
    /// before it, the override's event takes the rest, moved alike. Nil when that cannot be written.
    public static func seriesSplit(_ master: Event, at recurrenceID: ICalDateValue, movedTo: EventStart?, zone: TimeZone)
        -> (before: String, after: String?)? {
        guard let recurrence = master.recurrence else { return nil }
        let text = RecurrenceText(recurrence)
        let seriesZone = expansionZone(of: master, fallback: zone)
        let from = (master.start.isAllDay ? instanceDay(recurrenceID, of: master, fallback: zone) : recurrenceID).resolve(in: seriesZone)
        let start = value(master.start, zone: master.timeZone)
        let shift = movedTo.map { value($0, zone: master.timeZone).resolve(in: seriesZone).timeIntervalSince(from) } ?? 0
        guard let parts = ICalRecurrence.split(rrule: text.rule, rdates: text.rdates, exdates: text.exdates, start: start,
                                               at: from, shift: shift, timeZone: seriesZone) else { return nil }
        // With no instance left before the split, the master keeps a rule whose one start is excluded.
        let before = parts.before.map { RecurrenceText(rule: $0.rrule, rdates: $0.rdates, exdates: $0.exdates, exrules: text.exrules) }
            ?? RecurrenceText(rule: "FREQ=DAILY;COUNT=1", exdates: [start])
        let after = RecurrenceText(rule: parts.after.rrule, rdates: parts.after.rdates, exdates: parts.after.exdates,
                                   exrules: text.exrules)
        return (before.text, movedTo == nil ? nil : after.text)
    }

    /// The day of an all-day `master` that `recurrenceID` names. A timed value names the day of its own
    /// wall clock, whatever the viewer's zone (Outlook's midnight in its Windows zone, a UTC or floating
    /// midnight; as recurring-ical-events reads them), except a UTC time that is midnight in the master's
    /// zone: older datebook exports and stores wrote an all-day instance so.
    public static func instanceDay(_ recurrenceID: ICalDateValue, of master: Event, fallback: TimeZone) -> ICalDateValue {
        if case .utc(let instant) = recurrenceID, let zone = TimeZone(identifier: master.timeZone) {
            let local = ICalLocalDateTime.of(instant, in: zone)
            if local.hour == 0, local.minute == 0, local.second == 0 {
                return .date(year: local.year, month: local.month, day: local.day)
            }
        }
        return recurrenceID.day(fallback: fallback)
    }

    /// The zone `RecurrenceExpander` expands `master` in: all-day events on UTC dates, floating
    /// ones on wall-clock times read as UTC, others in their own zone.
    public static func expansionZone(of master: Event, fallback: TimeZone) -> TimeZone {
        let utc = TimeZone(identifier: "UTC") ?? fallback
        guard case .instant = master.start else { return utc }
        return TimeZone(identifier: master.timeZone) ?? fallback
    }

    /// A floating time as iCalendar's floating DATE-TIME.
    public static func value(_ time: FloatingTime) -> ICalDateValue { .floating(ICalLocalDateTime(time)) }

    /// An event's start as an iCalendar value in the event's own zone (UTC when it is unknown).
    public static func value(_ start: EventStart, zone: String) -> ICalDateValue {
        switch start {
        case .floating(let time): return value(time)
        case .allDay(let day): return .date(year: day.year, month: day.month, day: day.day)
        case .instant(let date):
            if zone != "UTC", TimeZone(identifier: zone) != nil { return .zoned(date, tzid: zone) }
            return .utc(date)
        }
    }

    /// Why an override (its `sequence`, of the instance `recurrenceID`) of `master` is stale — older and for an instance
    /// the master no longer gives — or nil when it applies.
    public static func staleness(sequence: Int, recurrenceID: ICalDateValue?, of master: Event, masterSequence: Int,
                          zone: TimeZone) -> String? {
        guard sequence < masterSequence, let recurrenceID else { return nil }
        // Keys as `RecurrenceExpander` makes them: all-day instances at midnight UTC, floating ones
        // at their wall clock read as UTC.
        let seriesZone = master.start.isInstant ? zone : expansionZone(of: master, fallback: zone)
        let instant = (master.start.isAllDay ? instanceDay(recurrenceID, of: master, fallback: zone) : recurrenceID)
            .resolve(in: seriesZone)
        let key = Int64(instant.timeIntervalSince1970.rounded(.down))
        let found = RecurrenceExpander.keys(start: master.start, timeZone: master.timeZone, recurrence: master.recurrence ?? "",
                                            window: key ..< key + 1, cap: 1).keys
        guard !found.contains(key) else { return nil }
        return "RECURRENCE-ID \(RecurrenceText.format(recurrenceID)) (SEQUENCE \(sequence)) is older than its series "
            + "(SEQUENCE \(masterSequence)), which no longer has that instance; the stale override was dropped"
    }
}
