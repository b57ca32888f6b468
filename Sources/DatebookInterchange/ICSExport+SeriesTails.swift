import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// How an export writes the parts of a series that RANGE=THISANDFUTURE overrides split off (an
/// import of such an override, or `edit --from` on a series whose source had them).
///
/// The store holds each part as a series of its own (the master ends before it, the part repeats
/// from its new start), held by `UID#RECURRENCE-ID`. Written so, other programs read the part as
/// one occurrence: recurring-ical-events moves the master's later instances by the override's
/// shift and never expands an override's RRULE, and the master ends before. So the master is
/// written with the rule the parts were split from (`ICalRecurrence.join`) and each part as a
/// RANGE=THISANDFUTURE override without a rule of its own. When no one rule gives exactly the
/// parts' instances, a part is written as a series under a UID of its own instead, which every
/// program reads alike.
struct SeriesTails {
    /// Master event id → the recurrence it is written with (the joined rule).
    private(set) var joined: [String: String] = [:]
    /// Parts written as RANGE=THISANDFUTURE overrides without a rule.
    private(set) var tails: Set<String> = []

    /// `series`: the parts (events whose source names a RECURRENCE-ID and that recur) and their
    /// masters, as `Store.seriesWithTails` reads them; `uids`: the sources.
    init(series: [Event], uids: [String: String]) {
        var parts: [String: [(event: Event, recurrenceID: ICalDateValue)]] = [:]
        var masters: [String: Event] = [:]
        for event in series {
            let source = uids[event.id].map(PlannerICS.source)
            if let source, let recurrenceID = source.recurrenceID, event.recurrence != nil {
                parts[source.uid, default: []].append((event, recurrenceID))
            } else if event.recurrence != nil {
                masters[source?.uid ?? event.id + PlannerICS.uidSuffix] = event
            }
        }
        let utc = TimeZone(identifier: "UTC") ?? .current
        for (uid, list) in parts {
            guard let master = masters[uid], let recurrence = master.recurrence else { continue }
            let zone = PlannerICS.expansionZone(of: master, fallback: utc)
            let text = RecurrenceText(recurrence)
            let moved = list.map { part, recurrenceID -> ICalRecurrence.Tail in
                let own = RecurrenceText(part.recurrence ?? "")
                let from = (master.start.isAllDay ? PlannerICS.instanceDay(recurrenceID, of: master, fallback: utc) : recurrenceID)
                    .resolve(in: zone)
                return ICalRecurrence.Tail(from: from, start: PlannerICS.value(part.start, zone: part.timeZone),
                                           part: ICalSeriesPart(rrule: own.rule, rdates: own.rdates, exdates: own.exdates))
            }
            let sameExrules = list.allSatisfy { RecurrenceText($0.event.recurrence ?? "").exrules == text.exrules }
            guard sameExrules, list.allSatisfy({ $0.event.start.isAllDay == master.start.isAllDay }),
                  let whole = ICalRecurrence.join(master: ICalSeriesPart(rrule: text.rule, rdates: text.rdates, exdates: text.exdates),
                                                  start: PlannerICS.value(master.start, zone: master.timeZone), tails: moved,
                                                  timeZone: zone)
            else { continue }
            joined[master.id] = RecurrenceText(rule: whole.rrule, rdates: whole.rdates, exdates: whole.exdates,
                                               exrules: text.exrules).text
            list.forEach { tails.insert($0.event.id) }
        }
    }
}

extension PlannerStore {
    /// The events an export needs to write RANGE=THISANDFUTURE parts (see `SeriesTails`): every
    /// event whose source names a RECURRENCE-ID and that recurs, and the masters of their UIDs.
    func seriesWithTails(_ uids: [String: String]) throws -> [Event] {
        let overrideIDs = uids.filter { PlannerICS.source($0.value).recurrenceID != nil }.map(\.key)
        guard !overrideIDs.isEmpty else { return [] }
        let parts = try events(ids: overrideIDs).values.filter { $0.recurrence != nil }
        let partUIDs = Set(parts.compactMap { uids[$0.id].map { PlannerICS.source($0).uid } })
        guard !partUIDs.isEmpty else { return [] }
        var masterIDs = uids.filter { partUIDs.contains($0.value) }.map(\.key)
        masterIDs += partUIDs.filter { $0.hasSuffix(PlannerICS.uidSuffix) }.map { String($0.dropLast(PlannerICS.uidSuffix.count)) }
        return parts + (try events(ids: masterIDs)).values
    }
}
