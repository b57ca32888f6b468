import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// What the scheduler's digests show: the digest's sections (Overdue, Today, Next 7 Days, Next 30
/// Days, Future), read by the scheduler from its own store, as `datebook digest` shows them.
struct DigestContentTests {
    func digestText(_ h: Harness, renderer: any DigestRendering) throws -> String {
        let scheduler = Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake,
                                  digestRenderer: renderer)
        let upcoming = try scheduler.upcoming(now: utc("2026-12-01T05:00:00Z"), until: utc("2026-12-01T07:00:00Z"), render: true)
        let digest = try #require(upcoming.first { $0.entry.kind == .digest })
        return try #require(digest.prepared?.message).text
    }

    func harness() throws -> Harness {
        let h = try Harness(zone: "Europe/Berlin",
                            digests: [DigestSchedule(name: "morning", at: TimeOfDay(hour: 7, minute: 0), channels: ["hook"])])
        try h.add("Tax return", at: .instant(utc("2026-11-25T09:00:00Z")), tasks: [EventTask(id: "t1", text: "Receipts")])
        try h.add("Standup", at: .instant(utc("2026-12-02T08:00:00Z")))
        try h.add("Concert", at: .instant(utc("2026-12-15T19:00:00Z")))
        try h.add("Trip", at: .allDay(CalendarDate(year: 2027, month: 3, day: 1)))
        return h
    }

    @Test func thePlainDigestShowsOverdueNextThirtyDaysAndFutureNotOnlyTheWeek() throws {
        let text = try digestText(try harness(), renderer: PlainDigestRenderer())
        for expected in ["Overdue", "Tax return", "Next 7 Days", "Standup", "Next 30 Days", "Concert", "Future", "Trip"] {
            #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
        }
    }

    @Test func theTemplateDigestRendersWhatTheSchedulerRead() throws {
        let text = try digestText(try harness(), renderer: TemplateDigestRenderer(overrideDirectory: nil, locale: nil))
        for expected in ["OVERDUE", "Tax return", "Standup", "NEXT 30 DAYS", "Concert", "Trip", "December 2026"] {
            #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
        }
    }
}
