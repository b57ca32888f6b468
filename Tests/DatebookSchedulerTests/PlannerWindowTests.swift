import DatebookCore
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// The planner reads, per lead time, only the occurrences whose alert may fall in the window (a
/// lead of hours and minutes shifts the window exactly; one of days widens it by 3 h). Its alerts
/// must be those of a brute-force pass over every event.
struct PlannerWindowTests {
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Pacific/Kiritimati"])
    func plansWhatEveryEventsOwnDueTimesSay(zone: String) throws {
        let leads = ["0m", "10m", "1h", "1h30m", "1d", "2d"].compactMap { LeadTime($0) }
        let harness = try Harness(zone: zone, alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"]))
        var events: [Event] = []
        // Around the autumn DST change in Europe and America; starts every 7 minutes and on the hour.
        let base = utc("2026-10-24T22:00:00Z").timeIntervalSince1970
        for n in 0..<400 {
            let start = EventStart.instant(Date(timeIntervalSince1970: base + TimeInterval(n * 7 * 60 + (n % 3 == 0 ? 0 : 13))))
            events.append(try harness.add("Event \(n)", at: n % 25 == 0 ? .allDay(CalendarDate(year: 2026, month: 10, day: 25 + n % 3)) : start,
                                          alerts: n % 4 == 0 ? [] : [leads[n % leads.count], leads[(n / 7) % leads.count]]))
        }
        let planner = Planner(store: harness.store, config: harness.config, calendar: harness.calendar)
        // Windows over the days around, and windows that end or start on a due time exactly.
        var windows = stride(from: base - 3 * 86_400, to: base + 4 * 86_400, by: 5 * 3600 + 7 * 60).map {
            (Date(timeIntervalSince1970: $0), Date(timeIntervalSince1970: $0 + 5 * 3600 + 7 * 60))
        }
        for event in events.prefix(60) {
            for lead in planner.leads(for: event) {
                let due = lead.due(before: Occurrence(event: event, calendar: harness.calendar).start, calendar: harness.calendar)
                windows += [(due.addingTimeInterval(-60), due), (due, due.addingTimeInterval(60))]
            }
        }
        for (from, to) in windows {
            var expected: Set<String> = []
            for event in events {
                let occurrence = Occurrence(event: event, calendar: harness.calendar)
                for lead in planner.leads(for: event) {
                    let due = lead.due(before: occurrence.start, calendar: harness.calendar)
                    if due > from, due <= to { expected.insert(harness.alertKey(event, lead.description)) }
                }
            }
            let planned = try planner.deliveries(from: from, through: to).map(\.key)
            #expect(Set(planned) == expected, "window \(ISOInstant.format(from)) – \(ISOInstant.format(to))")
            #expect(planned.count == expected.count)
        }
    }

    /// The look-back for changed events reads single events by id instead of scanning the window:
    /// the same alerts as the scan (`only:`), across DST, day leads, all-day events, quiet hours and
    /// recurring events mixed in; ids of removed events plan nothing.
    @Test(arguments: ["Europe/Berlin", "America/New_York"])
    func changedEventsPlanWhatTheScanPlans(zone: String) throws {
        let leads = ["0m", "45m", "1h", "1d", "2d"].compactMap { LeadTime($0) }
        var alerts = AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"])
        alerts.quietHours = QuietHours(start: TimeOfDay(hour: 23, minute: 0), end: TimeOfDay(hour: 6, minute: 30))
        let harness = try Harness(zone: zone, alerts: alerts)
        let base = utc("2026-10-30T20:00:00Z").timeIntervalSince1970
        var ids: Set<String> = ["removed-event"]
        for n in 0..<120 {
            let start: EventStart = n % 9 == 0 ? .allDay(CalendarDate(year: 2026, month: 10, day: 31 + n % 2))
                : .instant(Date(timeIntervalSince1970: base + TimeInterval(n * 37 * 60)))
            var event = Event(id: EventID.stable("Changed \(n)"), title: "Changed \(n)", start: start,
                              timeZone: harness.calendar.timeZone.identifier, symbol: .star, color: .primary,
                              alerts: n % 5 == 0 ? [] : [leads[n % leads.count], leads[(n / 5) % leads.count]])
            if n % 11 == 0 { event.recurrence = "FREQ=DAILY;COUNT=4" }
            try harness.store.save(event)
            if n % 3 != 1 { ids.insert(event.id) }
        }
        let planner = Planner(store: harness.store, config: harness.config, calendar: harness.calendar)
        let windows = stride(from: base - 2 * 86_400, to: base + 5 * 86_400, by: 31 * 3600).map {
            (Date(timeIntervalSince1970: $0), Date(timeIntervalSince1970: $0 + 30 * 3600))
        }
        var planned = 0
        for (from, to) in windows {
            let direct = try planner.alerts(of: ids, from: from, through: to)
            let scanned = try planner.alerts(from: from, through: to, only: ids)
                .sorted { ($0.scheduled, $0.key) < ($1.scheduled, $1.key) }
            #expect(direct.map(\.key) == scanned.map(\.key), "window \(ISOInstant.format(from)) – \(ISOInstant.format(to))")
            #expect(direct.map(\.due) == scanned.map(\.due))
            planned += direct.count
        }
        #expect(planned > 100)
    }
}
