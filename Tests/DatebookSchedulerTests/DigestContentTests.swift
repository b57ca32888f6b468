import DatebookCore
import DatebookDelivery
import DatebookRender
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

    /// Counting stops at `DigestQuery.countCap` (500 rows): 510 events tomorrow with 3 open tasks
    /// each are counted as 500+ events and their 500 × 3 = 1500+ open tasks (the open tasks of the
    /// events counted, the same on both backends: PostgresFaultTests). The summary line, the
    /// subject (which Slack shows as its header and ntfy as its title) and the section all say
    /// the numbers are lower bounds, the same way.
    @Test func aCappedPlannerSaysPlusInTheSummarySubjectSlackHeaderNtfyTitleAndSection() throws {
        let h = try Harness(zone: "Europe/Berlin",
                            digests: [DigestSchedule(name: "morning", at: TimeOfDay(hour: 7, minute: 0), channels: ["hook"])])
        let first = utc("2026-12-02T08:00:00Z")
        try h.store.save((0..<510).map { index in
            Event(id: EventID.stable("Busy \(index)"), title: "Busy \(index)", start: .instant(first.addingTimeInterval(Double(index) * 60)),
                  timeZone: "Europe/Berlin", symbol: .star, color: .primary,
                  tasks: (1...3).map { EventTask(id: "t\(index)-\($0)", text: "Task \($0)") })
        })
        let summary = "500+ events this week, 1500+ open tasks"
        let message = try #require(try digestMessage(h, renderer: TemplateDigestRenderer(overrideDirectory: nil, locale: nil)))
        #expect(message.title == "datebook morning digest: " + summary)
        #expect(message.text.split(separator: "\n").contains { $0 == summary }, "\(message.text.prefix(300))")
        #expect(message.text.contains("NEXT 7 DAYS · 1500+ OPEN TASKS"), "\(message.text.prefix(300))")
        #expect(message.markdown.contains("Next 7 Days · 1500+ open tasks"))

        let slackBody = try #require(SlackPayload.requests(for: message, options: .init(url: Secret("https://hooks.slack.com/services/T0/B0/X"))).first?.body)
        let blocks = try #require((try JSONSerialization.jsonObject(with: slackBody) as? [String: Any])?["blocks"] as? [[String: Any]])
        let header = try #require(blocks.first { $0["type"] as? String == "header" }?["text"] as? [String: Any])
        #expect((header["text"] as? String)?.hasSuffix(summary) == true, "\(header)")

        let ntfyBody = try #require(NtfyPayload.requests(for: message, options: .init(server: "https://ntfy.example.org", topic: Secret("topic"))).first?.body)
        let ntfyTitle = (try JSONSerialization.jsonObject(with: ntfyBody) as? [String: Any])?["title"] as? String
        #expect(ntfyTitle?.hasSuffix(summary) == true, "\(ntfyTitle ?? "no title")")

        let plain = try #require(try digestMessage(h, renderer: PlainDigestRenderer())).text
        #expect(plain.contains("Next 7 Days (1500+ open)"), "\(plain.prefix(200))")
    }

    func digestMessage(_ h: Harness, renderer: any DigestRendering) throws -> OutgoingMessage? {
        let scheduler = Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake,
                                  digestRenderer: renderer)
        let upcoming = try scheduler.upcoming(now: utc("2026-12-01T05:00:00Z"), until: utc("2026-12-01T07:00:00Z"), render: true)
        return upcoming.first { $0.entry.kind == .digest }?.prepared?.message
    }

    @Test func theTemplateDigestRendersWhatTheSchedulerRead() throws {
        let text = try digestText(try harness(), renderer: TemplateDigestRenderer(overrideDirectory: nil, locale: nil))
        for expected in ["OVERDUE", "Tax return", "Standup", "NEXT 30 DAYS", "Concert", "Trip", "December 2026"] {
            #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
        }
    }
}
