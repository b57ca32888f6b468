import DatebookCore
@testable import DatebookRender
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// Alerts timed from the end (`end-15m`, iCalendar's `TRIGGER;RELATED=END`) and at an instant
/// (`@…`, `TRIGGER;VALUE=DATE-TIME`), planned with a fixed zone across Europe's autumn DST change.
struct AlertAnchorTests {
    static func planned(_ harness: Harness, from: String, through: String) throws -> [PlannedDelivery] {
        try Planner(store: harness.store, config: harness.config, calendar: harness.calendar)
            .deliveries(from: utc(from), through: utc(through))
    }

    /// A weekly 10:00–11:00 Berlin meeting, `end-15m`: 10:45 on each Saturday's wall clock, before
    /// and after the change (08:45Z in summer time, 09:45Z after); a one-day lead before the end
    /// of an all-day event is a calendar day (the 23-hour gap of the change day's midnight kept).
    @Test func anAlertBeforeTheEndFollowsEachOccurrenceAcrossDST() throws {
        let harness = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [], channels: ["hook"]))
        let meeting = Event(id: EventID.stable("Review"), title: "Review", start: .instant(utc("2026-10-17T08:00:00Z")),
                            end: .instant(utc("2026-10-17T09:00:00Z")), timeZone: "Europe/Berlin", symbol: .star, color: .red,
                            alerts: [try #require(LeadTime("end-15m"))], recurrence: "FREQ=WEEKLY")
        try harness.store.save(meeting)
        let trip = try harness.add("Trip", at: .allDay(CalendarDate(year: 2026, month: 10, day: 25)), alerts: [try #require(LeadTime("end-1d"))])
        let planned = try Self.planned(harness, from: "2026-10-15T00:00:00Z", through: "2026-11-02T00:00:00Z")
        let meetings = planned.filter { if case .alert(let o, _) = $0.item { o.event.id == meeting.id } else { false } }
        #expect(meetings.map { ISOInstant.format($0.scheduled) } == ["2026-10-17T08:45:00Z", "2026-10-24T08:45:00Z", "2026-10-31T09:45:00Z"])
        // Ends at midnight after the 25th (23:00Z, winter time); a calendar day before: the 25th's midnight, summer time.
        let trips = planned.filter { if case .alert(let o, _) = $0.item { o.event.id == trip.id } else { false } }
        #expect(trips.map { ISOInstant.format($0.scheduled) } == ["2026-10-24T22:00:00Z"])
    }

    /// An alert before the end speaks of the end: `ends in 15 minutes` when on time, `ended … ago`
    /// when sent after it, in the reader's language; the desktop's short phrase alike.
    @Test(arguments: [
        ("en_US", nil, "ends in 15 minutes: Review", "ends in 15 min"),
        ("en_US", "2026-10-17T09:05:00Z", "ended 5 minutes ago: Review", "ended 5 min ago"),
        ("en_US", "2026-10-17T09:00:00Z", "ends now: Review", "now"),
        ("de_DE", nil, "endet in 15 Minuten: Review", "endet in 15 Min."),
    ] as [(String, String?, String, String)])
    func anAlertBeforeTheEndSaysWhenTheEventEnds(_ locale: String, _ sent: String?, _ title: String, _ relative: String) throws {
        let review = Event(id: EventID.stable("Review"), title: "Review", start: .instant(utc("2026-10-17T08:00:00Z")),
                           end: .instant(utc("2026-10-17T09:00:00Z")), timeZone: "Europe/Berlin", symbol: .star, color: .red)
        let words = try DigestLocale(identifier: locale, timeZone: .gmt).words
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        let lead: LeadTime = try #require(LeadTime("end-15m"))
        let message = AlertMessage.make(Occurrence(event: review, start: utc("2026-10-17T08:00:00Z")), lead: lead,
                                        channel: "hook", calendar: calendar, words: words, now: sent.map(utc))
        #expect(message.title == title)
        #expect(message.event?.relativeWhen == relative)
    }

    /// The planner's windows are exact: a window that ends at the due time holds it, one that
    /// starts there does not; the occurrence a pass reads starts before the window (its end is in it).
    @Test func anAlertBeforeTheEndIsPlannedInTheWindowOfItsDueTimeOnly() throws {
        let harness = try Harness(zone: "America/New_York", alerts: AlertPolicy(before: [], channels: ["hook"]))
        // Three days long: its start is days before the window of its alert.
        try harness.add("Conference", at: .instant(utc("2026-11-01T13:00:00Z")), alerts: [try #require(LeadTime("end-1h"))])
        var conference = try #require(try harness.store.event(id: EventID.stable("Conference")))
        conference.end = .instant(utc("2026-11-04T22:00:00Z"))
        try harness.store.save(conference)
        #expect(try Self.planned(harness, from: "2026-11-04T20:00:00Z", through: "2026-11-04T21:00:00Z").map(\.key)
                == [harness.alertKey(conference, "end-1h")])
        #expect(try Self.planned(harness, from: "2026-11-04T21:00:00Z", through: "2026-11-04T22:00:00Z").isEmpty)
        let changed = try Planner(store: harness.store, config: harness.config, calendar: harness.calendar)
            .alerts(of: [conference.id], from: utc("2026-11-04T20:00:00Z"), through: utc("2026-11-04T21:00:00Z"))
        #expect(changed.map(\.key) == [harness.alertKey(conference, "end-1h")])
    }

    /// An alert at an instant fires once, not for every occurrence: a daily 09:00 series with an
    /// alarm at 07:00 on 5 December is alerted once, for that day's occurrence; a single event
    /// months later is alerted at the instant too.
    @Test func anInstantAlertFiresOnceForTheOccurrenceAfterIt() throws {
        let harness = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"]))
        let at = try #require(LeadTime("@2026-12-05T06:00:00Z"))
        let daily = Event(id: EventID.stable("Standup"), title: "Standup", start: .instant(utc("2026-12-01T08:00:00Z")),
                          timeZone: "Europe/Berlin", symbol: .star, color: .red, alerts: [at], recurrence: "FREQ=DAILY")
        try harness.store.save(daily)
        let later = try harness.add("Visa", at: .instant(utc("2027-03-01T09:00:00Z")), alerts: [at])
        let planned = try Self.planned(harness, from: "2026-11-30T00:00:00Z", through: "2026-12-12T00:00:00Z")
        #expect(planned.count == 2, "\(planned.map(\.key))")
        for delivery in planned { #expect(ISOInstant.format(delivery.scheduled) == "2026-12-05T06:00:00Z") }
        let starts = planned.compactMap { if case .alert(let o, _) = $0.item { ISOInstant.format(o.start) } else { nil } }.sorted()
        #expect(starts == ["2026-12-05T08:00:00Z", ISOInstant.format(later.start.resolved(in: harness.calendar))])
        // The message of an instant alert speaks of the start as it is then: 2 hours ahead.
        let message = AlertMessage.make(Occurrence(event: daily, start: utc("2026-12-05T08:00:00Z")), lead: at, channel: "hook",
                                        calendar: harness.calendar)
        #expect(message.title.hasPrefix("in 2 hours"), "\(message.title)")
    }

    /// Every form reads back from its stored word; a plain duration does not accept the others,
    /// and a phrase reads as the command line's `--alert` takes it (in the parser's zone).
    @Test func theStoredFormsAndThePhrasesReadBack() throws {
        for text in ["1h", "1d", "2w", "end-15m", "end-1d2h", "end-0m", "@2026-12-24T08:00:00Z"] {
            #expect(LeadTime(text)?.description == text)
        }
        for text in ["end-", "end-x", "@2026-12-24", "@tomorrow", "15m-end"] { #expect(LeadTime(text) == nil, "\(text)") }
        #expect(LeadTime(duration: "end-15m") == nil && LeadTime(duration: "@2026-12-24T08:00:00Z") == nil)
        let calendar = { var c = Calendar(identifier: .gregorian); c.timeZone = TimeZone(identifier: "Europe/Berlin")!; return c }()
        let parser = WhenParser(now: utc("2026-12-03T10:00:00Z"), calendar: calendar)
        let phrases: [(String, String)] = [("1h", "1h"), ("15m before end", "end-15m"), ("1h before start", "1h"), ("at end", "end-0m"),
                                           ("at start", "0m"), ("at 2026-12-24 09:00", "@2026-12-24T08:00:00Z"),
                                           ("at 2026-07-01 09:00", "@2026-07-01T07:00:00Z"), ("end-5m", "end-5m")]
        for (phrase, stored) in phrases { #expect(LeadTime(phrase: phrase, parser: parser)?.description == stored, "\(phrase)") }
        for phrase in ["soon", "15m after end", "at", "at nowhere", "15m before lunch"] {
            #expect(LeadTime(phrase: phrase, parser: parser) == nil, "\(phrase)")
        }
        #expect(try #require(LeadTime("@2026-12-24T08:00:00Z")).phrase(in: calendar.timeZone) == "at Thu 2026-12-24 09:00")
    }
}
