import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// Following an action link: what it changes, once, and what a refused one leaves alone.
struct ActionLinksTests {
    static let now = utc("2026-12-01T20:00:00Z")  // 21:00 in Berlin

    /// A harness with one event at 2026-12-02 10:00 UTC (two open tasks, a 1 h alert to `hook`)
    /// and the links of its alert issued at `now`.
    static func setUp(cancelWhenDone: Bool = false) throws -> (Harness, Event, [String: String]) {
        let h = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"],
                                                                         cancelWhenDone: cancelWhenDone))
        let event = try h.add("Pagliacci", at: .instant(utc("2026-12-02T10:00:00Z")), alerts: [LeadTime(seconds: 3600)],
                              tasks: [EventTask(id: "a", text: "Tickets"), EventTask(id: "b", text: "Shirt", status: .doing)])
        let issuer = ActionLinkIssuer(baseURL: "https://planner.example.org/",
                                      key: try h.store.secretKey(named: Store.actionLinkKeyName, now: now))
        let actions = issuer.actions(eventID: event.id, occurrenceStart: utc("2026-12-02T10:00:00Z"), channel: "hook", now: now)
        var tokens: [String: String] = [:]
        for action in actions { tokens[action.name] = action.url.components(separatedBy: "/").last }
        return (h, event, tokens)
    }

    static func token(_ tokens: [String: String], _ name: String) throws -> String { try #require(tokens[name]) }

    @Test func theIssuerMakesThreeSignedLinksAndTheEventPage() throws {
        let (h, event, _) = try Self.setUp()
        let issuer = ActionLinkIssuer(baseURL: "https://planner.example.org/", key: Data(repeating: 1, count: 32))
        let actions = issuer.actions(eventID: event.id, occurrenceStart: Self.now, channel: "hook", now: Self.now)
        #expect(actions.map(\.name) == ["done", "snooze", "tomorrow", "event"])
        #expect(actions.map(\.label) == ["Done", "Snooze 1 h", "Tomorrow 9:00", "Open"])
        #expect(actions.dropLast().allSatisfy { $0.url.hasPrefix("https://planner.example.org/a/") })
        #expect(actions.last?.url == "https://planner.example.org/events/" + event.id)
        _ = h
    }

    @Test func doneMarksEveryOpenTaskDoneOnce() throws {
        let (h, event, tokens) = try Self.setUp()
        let links = ActionLinks(store: h.store, calendar: h.calendar)
        let done = try Self.token(tokens, "done")
        #expect(try links.check(done, now: Self.now).event.id == event.id)
        #expect(try h.store.event(id: event.id)?.badge == 2)  // checking changes nothing
        #expect(try links.perform(done, now: Self.now) == .done(count: 2))
        #expect(try h.store.event(id: event.id)?.tasks.map(\.status) == [.done, .done])
        #expect(throws: ActionLink.Refusal.used) { try links.perform(done, now: Self.now.addingTimeInterval(5)) }
        #expect(throws: ActionLink.Refusal.used) { try links.check(done, now: Self.now.addingTimeInterval(5)) }
    }

    @Test func snoozeIsALedgerRowOnTheLinksChannelThatTheNextPassSends() throws {
        let (h, event, tokens) = try Self.setUp()
        let links = ActionLinks(store: h.store, calendar: h.calendar)
        let until = Self.now.addingTimeInterval(3600)
        #expect(try links.perform(try Self.token(tokens, "snooze"), now: Self.now) == .snoozed(until: until, channel: "hook"))
        let key = Snooze.key(eventID: event.id, occurrenceStart: utc("2026-12-02T10:00:00Z"), until: until, channel: "hook")
        #expect(try h.state(key)?.state == .pending)
        #expect(try h.state(key)?.dueAt == until)
        try h.tick(until.addingTimeInterval(-1))
        #expect(h.fake.sent.isEmpty)
        try h.tick(until)
        #expect(h.fake.sent.map(\.at) == [until])
        #expect(try h.state(key)?.state == .sent)
    }

    @Test func tomorrowIsNineInTheMorningInTheUsersZone() throws {
        let (h, _, tokens) = try Self.setUp()
        let links = ActionLinks(store: h.store, calendar: h.calendar)
        #expect(try links.perform(try Self.token(tokens, "tomorrow"), now: Self.now)
                == .snoozed(until: utc("2026-12-02T08:00:00Z"), channel: "hook"))
    }

    @Test(arguments: [
        ("Europe/Berlin", "2026-03-28T22:30:00Z", "2026-03-29T07:00:00Z"),  // 23:30 CET; the next day is CEST
        ("America/New_York", "2026-12-02T03:00:00Z", "2026-12-02T14:00:00Z"),  // 22:00 the evening before
        ("Pacific/Auckland", "2026-12-01T20:00:00Z", "2026-12-02T20:00:00Z"),  // 09:00 already passed there
    ])
    func tomorrowMorningFollowsTheZone(zone: String, now: String, expected: String) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        #expect(Snooze.tomorrowMorning(after: utc(now), calendar: calendar) == utc(expected))
    }

    @Test func doneWithCancelWhenDoneCancelsTheOccurrencesLaterAlert() throws {
        let (h, event, tokens) = try Self.setUp(cancelWhenDone: true)
        _ = try ActionLinks(store: h.store, calendar: h.calendar).perform(try Self.token(tokens, "done"), now: Self.now)
        try h.tick(utc("2026-12-02T09:00:00Z"))
        #expect(try h.state(h.alertKey(event, "1h"))?.state == .cancelled)
        #expect(h.fake.sent.isEmpty)
    }

    @Test func refusedLinksChangeNothing() throws {
        let (h, event, tokens) = try Self.setUp()
        let links = ActionLinks(store: h.store, calendar: h.calendar)
        let done = try Self.token(tokens, "done")
        var tampered = Array(done)
        tampered[20] = tampered[20] == "x" ? "y" : "x"
        let foreign = ActionLinkIssuer(baseURL: "https://x", key: Data(repeating: 9, count: 32))
            .actions(eventID: event.id, occurrenceStart: Self.now, channel: "hook", now: Self.now)[0].url.components(separatedBy: "/").last ?? ""
        let cases: [(String, Date, ActionLink.Refusal)] = [
            (String(tampered), Self.now, .forged),
            (foreign, Self.now, .forged),
            (done, Self.now.addingTimeInterval(ActionLink.defaultLifetime), .expired(Self.now.addingTimeInterval(ActionLink.defaultLifetime))),
            ("%2e%2e", Self.now, .malformed),
        ]
        for (token, now, refusal) in cases {
            #expect(throws: refusal) { try links.perform(token, now: now) }
        }
        #expect(try h.store.event(id: event.id)?.badge == 2)
        #expect(try h.store.allDeliveries().isEmpty)
        #expect(try links.perform(done, now: Self.now) == .done(count: 2))  // the genuine link still works
    }

    @Test func aLinkToADeletedEventIsRefusedAndStaysUnused() throws {
        let (h, event, tokens) = try Self.setUp()
        let links = ActionLinks(store: h.store, calendar: h.calendar)
        let snooze = try Self.token(tokens, "snooze")
        _ = try h.store.delete(id: event.id)
        #expect(throws: ActionLink.Refusal.eventGone) { try links.perform(snooze, now: Self.now) }
        #expect(try h.store.allDeliveries().isEmpty)
        #expect(try !h.store.isActionLinkUsed(id: try #require(ActionLink.id(of: snooze))))
    }

    @Test func aStoreWithoutAKeyRefusesEveryLink() throws {
        let (_, _, tokens) = try Self.setUp()
        let other = try Harness(zone: "UTC")
        #expect(throws: ActionLink.Refusal.forged) {
            try ActionLinks(store: other.store, calendar: other.calendar).check(try Self.token(tokens, "done"), now: Self.now)
        }
        #expect(try other.store.storedSecret(named: Store.actionLinkKeyName) == nil)
    }
}

/// Which alerts carry links, and that what they carry is what `ActionLinks` accepts.
struct AlertLinkTests {
    static func prepared(baseURL: String?, keyMade: Bool = true) throws -> (Harness, Event, OutgoingMessage) {
        let h = try Harness(zone: "Europe/Berlin")
        if keyMade { _ = try h.store.secretKey(named: Store.actionLinkKeyName, now: ActionLinksTests.now) }
        let event = try h.add("Pagliacci", at: .instant(utc("2026-12-02T10:00:00Z")), tasks: [EventTask(id: "a", text: "Tickets")])
        var options = Scheduler.Options()
        options.actionLinkBaseURL = baseURL
        let scheduler = Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake, options: options)
        let entry = Snooze.entry(eventID: event.id, occurrenceStart: utc("2026-12-02T10:00:00Z"), until: ActionLinksTests.now, channel: "hook")
        let message = try #require(try scheduler.prepare(entry, now: ActionLinksTests.now).message)
        return (h, event, message)
    }

    @Test func anAlertCarriesLinksThatActOnItsOwnOccurrenceAndChannel() throws {
        let (h, event, message) = try Self.prepared(baseURL: "https://planner.example.org")
        #expect(message.actions.map(\.name) == ["done", "snooze", "tomorrow", "event"])
        let token = try #require(message.actionURL("snooze")?.components(separatedBy: "/a/").last)
        let checked = try ActionLinks(store: h.store, calendar: h.calendar).check(token, now: ActionLinksTests.now)
        #expect(checked.event.id == event.id)
        #expect(checked.link.channel == "hook")
        #expect(checked.link.occurrenceStart == utc("2026-12-02T10:00:00Z"))
        #expect(checked.link.expires == ActionLinksTests.now.addingTimeInterval(7 * 86_400))
    }

    @Test func withoutABaseURLAnAlertHasNoLinks() throws {
        let (_, _, message) = try Self.prepared(baseURL: nil)
        #expect(message.actions.isEmpty)
    }

    @Test func previewingMakesNoKeyAndThePassThatSendsMakesIt() throws {
        let (h, event, message) = try Self.prepared(baseURL: "https://planner.example.org", keyMade: false)
        #expect(message.actions.isEmpty)
        #expect(try h.store.storedSecret(named: Store.actionLinkKeyName) == nil)
        var options = Scheduler.Options()
        options.actionLinkBaseURL = "https://planner.example.org"
        _ = try h.store.plan(Snooze.entry(eventID: event.id, occurrenceStart: utc("2026-12-02T10:00:00Z"), until: ActionLinksTests.now,
                                          channel: "hook"), now: ActionLinksTests.now)
        h.fake.now = ActionLinksTests.now
        try Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake, options: options).tick(now: ActionLinksTests.now)
        #expect(h.fake.sent.count == 1)
        #expect(try h.store.storedSecret(named: Store.actionLinkKeyName)?.count == 32)
    }
}
