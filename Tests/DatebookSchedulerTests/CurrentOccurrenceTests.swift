import DatebookCore
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// An alert's occurrence is found from its event's own rule (`Scheduler.currentOccurrence`), not
/// by a store listing per alert: the answer must be the listing's, for every kind of start, across
/// Berlin's autumn DST change, with an excluded date and an occurrence moved away.
struct CurrentOccurrenceTests {
    @Test func theEventsOwnRuleFindsWhatTheStoresListingLists() throws {
        let harness = try Harness(zone: "Europe/Berlin")
        let zone = "Europe/Berlin"
        let events = [
            Event(id: "weekly", title: "Weekly", start: .instant(utc("2026-10-10T08:00:00Z")), timeZone: zone, symbol: .star,
                  color: .red, recurrence: "FREQ=WEEKLY\nEXDATE;TZID=Europe/Berlin:20261024T100000"),
            Event(id: "days", title: "Days", start: .allDay(CalendarDate(year: 2026, month: 10, day: 20)), timeZone: zone,
                  symbol: .star, color: .red, recurrence: "FREQ=DAILY;COUNT=12"),
            Event(id: "wall", title: "Wall", start: .floating(FloatingTime(wallSeconds: Int64(20_381 * 86_400 + 7 * 3600))),
                  timeZone: zone, symbol: .star, color: .red, recurrence: "FREQ=DAILY;INTERVAL=3"),
        ]
        for event in events { try harness.store.save(event) }
        let scheduler = harness.scheduler()
        var listed: [(String, Date)] = []
        try harness.store.forEachOccurrence(from: utc("2026-10-01T00:00:00Z"), to: utc("2026-11-15T00:00:00Z"),
                                            calendar: harness.calendar) { listed.append(($0.event.id, $0.start)) }
        #expect(listed.count > 30)
        for (id, start) in listed {
            let event = try #require(events.first { $0.id == id })
            let found = try scheduler.currentOccurrence(of: event, at: start)
            #expect(found?.start == start && found?.event.id == id, "\(id) at \(start)")
            // A start the series does not have: an hour later, and the excluded 24 October.
            #expect(try scheduler.currentOccurrence(of: event, at: start.addingTimeInterval(3600)) == nil, "\(id) at \(start) + 1 h")
        }
        #expect(!listed.contains { $0.0 == "weekly" && $0.1 == utc("2026-10-24T08:00:00Z") })
        #expect(try scheduler.currentOccurrence(of: events[0], at: utc("2026-10-24T08:00:00Z")) == nil)
        // After the change to winter time the weekly 10:00 is 09:00Z.
        #expect(try scheduler.currentOccurrence(of: events[0], at: utc("2026-10-31T09:00:00Z")) != nil)
    }
}
