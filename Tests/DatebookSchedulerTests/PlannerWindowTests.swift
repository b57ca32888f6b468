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
}
