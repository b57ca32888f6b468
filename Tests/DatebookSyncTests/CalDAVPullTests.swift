import DatebookCore
import DatebookDelivery
import DatebookInterchange
import DatebookStore
@testable import DatebookSync
import DatebookTestSupport
import Foundation
import Testing

/// Pulls from a real Radicale (Tests/DatebookTestSupport/Radicale.swift), and from Xandikos where
/// the test does not count Radicale's own requests: Xandikos leaves calendar data out of its
/// `sync-collection` answers, so its requests differ by design (a `calendar-multiget` follows).
struct CalDAVPullTests {
    static func event(_ uid: String, _ title: String, extra: String = "") -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20261101T100000Z\r\n"
            + "DTSTART:20261203T130000Z\r\nSUMMARY:\(title)\r\n\(extra)END:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    static let dentist = event("dentist-1", "Dentist", extra: "X-PHONE-THING:keep me\r\nATTENDEE;CN=Bob:mailto:bob@example.org\r\n")

    struct Setup {
        let server: any CalDAVTestServer
        let store: Store
        let sync: CalDAVSync
        let calendar: CalDAVCalendar
    }

    /// The servers the tests that do not count requests run on (Xandikos where it is installed).
    static let servers = TestPython.imports(["xandikos"]) ? ["radicale", "xandikos"] : ["radicale"]

    func setUp(_ kind: String = "radicale") throws -> Setup {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.put("personal", "dentist.ics", Self.dentist)
        let client = CalDAVClient(http: HTTPClient(), username: server.username, password: server.password)
        let found = try client.discover(server.baseURL + "/")
        let store = try Store(path: makeScratchFolder("sync") + "/sync.sqlite3")
        let calendars = found.map { calendar in
            var calendar = calendar
            calendar.account = "home"
            return calendar
        }
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: server.baseURL + "/", username: server.username,
                                                 passwordSource: "env:X"), calendars: calendars)
        let calendar = try #require(try store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        return Setup(server: server, store: store, sync: CalDAVSync(store: store, client: client, timeZone: TimeZone(identifier: "UTC") ?? .current),
                     calendar: calendar)
    }

    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(arguments: servers) func discoveryFromTheRootOrTheHomeFindsNameAndComponents(_ kind: String) throws {
        let setup = try setUp(kind)
        #expect(setup.calendar.displayName == "Personal")
        #expect(setup.calendar.url == setup.server.baseURL + setup.server.calendarPath("personal"))
        #expect(setup.calendar.components.contains("VEVENT") && setup.calendar.components.contains("VTODO"))
        let fromHome = try setup.sync.client.discover(setup.server.baseURL + "/ann/")
        #expect(fromHome.map(\.url) == [setup.calendar.url])
    }

    @Test(arguments: servers) func firstSyncKeepsTheServersTextByteForByte(_ kind: String) throws {
        let setup = try setUp(kind)
        let outcome = try setup.sync.pull(setup.calendar, now: Self.now)
        #expect(outcome.received == 1 && outcome.events == 1)
        let held = try setup.store.calDAVResources(of: try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }))
        let server = try #require(try setup.server.get("personal", "dentist.ics"))
        #expect(held[setup.calendar.url + "dentist.ics"]?.text == server)
        #expect(held[setup.calendar.url + "dentist.ics"]?.uid == "dentist-1")
        #expect(server.contains("X-PHONE-THING:keep me"))
        #expect(try setup.store.events(titled: "Dentist").count == 1)
    }

    /// `sync-collection` brings the texts along: the whole calendar in one request, first and later.
    @Test func theChangesAndTheirTextsComeInOneRequest() throws {
        let setup = try setUp()
        try setup.server.put("personal", "party.ics", Self.event("party-1", "Party", extra: "X-KEEP:1\r\n"))
        var before = setup.server.requests().count
        #expect(try setup.sync.pull(setup.calendar, now: Self.now).received == 2)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["REPORT /ann/personal/"])
        try setup.server.put("personal", "party.ics", Self.event("party-1", "Garden party", extra: "X-KEEP:1\r\n"))
        before = setup.server.requests().count
        let outcome = try setup.sync.pull(try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }), now: Self.now)
        #expect(outcome.received == 1 && outcome.events == 2)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["PROPFIND /ann/personal/", "REPORT /ann/personal/"],
                "the changed getctag, then the changes with their texts")
        let held = try setup.store.calDAVResources(of: setup.calendar)
        #expect(held[setup.calendar.url + "party.ics"]?.text == (try setup.server.get("personal", "party.ics")))
        #expect(try setup.store.events(titled: "Garden party").count == 1)
    }

    /// A server that lists changes without their text: they come by `calendar-multiget`, the same bytes.
    @Test func changesListedWithoutTextComeByMultiget() throws {
        let setup = try setUp()
        var client = setup.sync.client
        client.dataInSyncReport = false
        let sync = CalDAVSync(store: setup.store, client: client, timeZone: setup.sync.timeZone)
        let before = setup.server.requests().count
        #expect(try sync.pull(setup.calendar, now: Self.now).received == 1)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["REPORT /ann/personal/", "REPORT /ann/personal/"],
                "the listing, the multiget")
        let held = try setup.store.calDAVResources(of: setup.calendar)
        #expect(held[setup.calendar.url + "dentist.ics"]?.text == (try setup.server.get("personal", "dentist.ics")))
    }

    /// Most of a calendar listed without its texts (a first sync from Xandikos): one `calendar-query`
    /// brings every text, the same bytes, instead of a multiget per batch. A few of a larger
    /// calendar still come by multiget.
    @Test(arguments: servers) func aCalendarListedWithoutTextsComesByOneQuery(_ kind: String) throws {
        let setup = try setUp(kind)
        for n in 1...4 { try setup.server.put("personal", "e\(n).ics", Self.event("e-\(n)", "Event \(n)")) }
        var client = setup.sync.client
        client.dataInSyncReport = false
        client.batchSize = 2
        let sync = CalDAVSync(store: setup.store, client: client, timeZone: setup.sync.timeZone)
        let report = "REPORT " + setup.server.calendarPath("personal")
        var before = setup.server.requests().count
        #expect(try sync.pull(setup.calendar, now: Self.now).received == 5)
        #expect(Array(setup.server.requests().dropFirst(before)) == [report, report], "the listing, the query (not 3 multigets)")
        let held = try setup.store.calDAVResources(of: setup.calendar)
        for name in ["dentist"] + (1...4).map({ "e\($0)" }) {
            #expect(held[setup.calendar.url + name + ".ics"]?.text == (try setup.server.get("personal", name + ".ics")), "\(name)")
        }
        // Two changed of five held, with batches of one: two multigets, no query of all five.
        for n in 1...2 { try setup.server.put("personal", "e\(n).ics", Self.event("e-\(n)", "Event \(n) moved")) }
        client.batchSize = 1
        let later = CalDAVSync(store: setup.store, client: client, timeZone: setup.sync.timeZone)
        let calendar = try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        before = setup.server.requests().count
        #expect(try later.pull(calendar, now: Self.now).received == 2)
        #expect(Array(setup.server.requests().dropFirst(before)).filter { $0 == report }.count == 3, "the listing, two multigets")
        #expect(try setup.store.events(titled: "Event 2 moved").count == 1)
    }

    /// The first incremental sync learns the calendar's getctag; from then on an unchanged calendar is that one PROPFIND.
    @Test func anUnchangedCalendarCostsOneRequest() throws {
        let setup = try setUp()
        _ = try setup.sync.pull(setup.calendar, now: Self.now)
        var before = setup.server.requests().count
        #expect(try setup.store.calDAVCalendars(account: "home").first?.ctag?.isEmpty == false, "the ctag discovery read, kept")
        #expect(try setup.sync.pull(try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }), now: Self.now).events == nil)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["PROPFIND /ann/personal/"], "the calendar's getctag")
        before = setup.server.requests().count
        let calendar = try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        let outcome = try setup.sync.pull(calendar, now: Self.now)
        #expect(outcome.events == nil)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["PROPFIND /ann/personal/"], "the calendar's getctag")
    }

    @Test func anInvalidSyncTokenFallsBackToAFullListingWithoutDuplicates() throws {
        let setup = try setUp()
        _ = try setup.sync.pull(setup.calendar, now: Self.now)
        try setup.server.put("personal", "party.ics", Self.event("party-1", "Party"))
        try setup.server.delete("personal", "dentist.ics")
        var stale = try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        stale.syncToken = "http://radicale.org/ns/sync/0000000000000000000000000000000000000000000000000000000000000000"
        let outcome = try setup.sync.pull(stale, now: Self.now)
        #expect(outcome.received == 1 && outcome.removed == 1 && outcome.events == 1)
        #expect(try setup.store.eventCount() == 1)
        #expect(try setup.store.events(titled: "Party").count == 1)
        let requests = setup.server.requests().suffix(3)
        #expect(Array(requests) == ["PROPFIND /ann/personal/", "REPORT /ann/personal/", "REPORT /ann/personal/"],
                "the changed getctag, the refused token, the full listing with the texts")
    }

    @Test func withoutSyncCollectionTheCtagTellsWhetherToListAndTheListingRemovesWhatIsGone() throws {
        var setup = try setUp()
        var client = setup.sync.client
        client.syncCollection = false
        setup = Setup(server: setup.server, store: setup.store, sync: CalDAVSync(store: setup.store, client: client, timeZone: setup.sync.timeZone),
                      calendar: setup.calendar)
        func stored() throws -> CalDAVCalendar { try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }) }
        #expect(try setup.sync.pull(try stored(), now: Self.now).received == 1)
        let before = setup.server.requests().count
        #expect(try setup.sync.pull(try stored(), now: Self.now).events == nil)
        #expect(Array(setup.server.requests().dropFirst(before)) == ["PROPFIND /ann/personal/"])
        try setup.server.put("personal", "party.ics", Self.event("party-1", "Party"))
        try setup.server.delete("personal", "dentist.ics")
        let outcome = try setup.sync.pull(try stored(), now: Self.now)
        #expect(outcome.received == 1 && outcome.removed == 1 && outcome.events == 1)
        #expect(try setup.store.eventCount() == 1 && setup.store.events(titled: "Party").count == 1)
    }

    @Test(arguments: servers) func anEventMadeHereAndNotSentYetSurvivesAPullThatRebuildsTheCalendar(_ kind: String) throws {
        let setup = try setUp(kind)
        _ = try setup.sync.pull(setup.calendar, now: Self.now)
        let uid = "a1b2c3d4e5f60718@datebook"
        let made = Event(id: PlannerICS.eventID(uid: uid, calendar: setup.calendar.sourceCalendar), title: "Made here",
                         start: .instant(Self.now.addingTimeInterval(86_400)), timeZone: "UTC", symbol: .star, color: .green)
        try setup.store.save(made, into: setup.calendar, uid: uid)
        // Its PUT refused (or a pull before any push): the server's change rebuilds the calendar.
        try setup.server.put("personal", "dentist.ics", Self.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        let fresh = try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        let pulled = try setup.sync.pull(fresh, now: Self.now)
        #expect(pulled.received == 1 && pulled.events == 2)
        #expect(try setup.store.event(id: made.id)?.title == "Made here")
        #expect(try setup.store.events(titled: "Dentist (moved)").count == 1)
        // The next sync sends it, and it stays one event.
        let again = try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        #expect(try setup.sync.sync(again, now: Self.now).pushed.sent == 1)
        #expect(try setup.store.events(titled: "Made here").count == 1)
        #expect(try setup.server.get("personal", "a1b2c3d4e5f60718datebook.ics")?.contains("SUMMARY:Made here") == true)
    }

    @Test(arguments: servers) func aChangeMadeHereWhileASyncRunsIsKeptAndSentByTheNext(_ kind: String) throws {
        let setup = try setUp(kind)
        _ = try setup.sync.sync(setup.calendar, now: Self.now)
        let id = try #require(try setup.store.events(titled: "Dentist").first).id
        func edit(_ change: (inout Event) -> Void) throws {
            var event = try #require(try setup.store.event(id: id))
            change(&event)
            try setup.store.save(event)
        }
        try edit { $0.title = "Dentist (moved)" }
        // The user edits again after the push read the store and sent the title.
        var sync = setup.sync
        sync.afterPush = { try edit { $0.notes = "Bring the card" } }
        let first = try sync.sync(try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }), now: Self.now)
        #expect(first.pushed.sent == 1)
        // The pull that follows (a new token for the push's own write) leaves the store as it is...
        let event = try #require(try setup.store.event(id: id))
        #expect(event.title == "Dentist (moved)" && event.notes == "Bring the card")
        #expect(try setup.server.get("personal", "dentist.ics")?.contains("DESCRIPTION") == false)
        // ...and the next sync finds the second change and sends it.
        let second = try setup.sync.sync(try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }), now: Self.now)
        #expect(second.pushed.sent == 1)
        #expect(try setup.server.get("personal", "dentist.ics")?.contains("DESCRIPTION:Bring the card") == true)
        let third = try setup.sync.sync(try #require(try setup.store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" }), now: Self.now)
        #expect(third.pushed == CalDAVSync.PushOutcome() && third.pulled.events == nil)
    }
}
