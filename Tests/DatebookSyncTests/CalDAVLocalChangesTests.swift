import DatebookCore
import DatebookDelivery
import DatebookStore
@testable import DatebookSync
import DatebookTestSupport
import Foundation
import Testing

/// Changes made in datebook while a sync runs, the count of local changes that tells a sync whether
/// to push (`CalDAVLocalChanges`), and overrides left behind by a move: on SQLite and on the test
/// PostgreSQL, against a real Radicale and Xandikos.
struct CalDAVLocalChangesTests {
    struct Setup {
        let server: any CalDAVTestServer
        let store: any CalDAVStore
        let sync: CalDAVSync

        func calendar() throws -> CalDAVCalendar {
            try #require(try store.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
        }

        func edit(_ title: String, _ change: (inout Event) -> Void) throws {
            var event = try #require(try store.events(titled: title).first)
            change(&event)
            try store.save(event)
        }
    }

    static let now = CalDAVPullTests.now
    /// When a conflict's two changes were made: the edits here at `now` (the store's `editTime`),
    /// the server's at the DTSTAMP of `CalDAVPullTests.dentist`.
    static let times = " (changed here 2026-11-30 00:53:20Z, on the server 2026-11-01 10:00:00Z)"

    func setUp(_ backend: Backend, _ kind: String = "radicale",
               files: [String: String] = ["dentist.ics": CalDAVPullTests.dentist]) throws -> Setup {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        for (file, text) in files { try server.put("personal", file, text) }
        let client = CalDAVClient(http: HTTPClient(), username: server.username, password: server.password)
        let store = try backend.open()
        store.editTime = Self.now
        let calendars = try client.discover(server.baseURL + "/").map { calendar in
            var calendar = calendar
            calendar.account = "home"
            return calendar
        }
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: server.baseURL + "/", username: server.username, passwordSource: "env:X"),
                                   calendars: calendars)
        let setup = Setup(server: server, store: store, sync: CalDAVSync(store: store, client: client, timeZone: TimeZone(identifier: "UTC") ?? .current))
        _ = try setup.sync.sync(try setup.calendar(), now: Self.now)
        return setup
    }

    /// Runs `body` once, the first time the hook is called.
    final class Once {
        var body: (() throws -> Void)?
        init(_ body: @escaping () throws -> Void) { self.body = body }
        func callAsFunction() throws {
            let run = body
            body = nil
            try run?()
        }
    }

    /// Nothing to push, so the push is skipped; the user edits the event after that, while the
    /// server changed it too: the pull applies nothing, the sync pushes the edit (a 412, merged,
    /// the title changed on both sides recorded as a conflict), then pulls. Nothing is lost.
    @Test(arguments: Backend.allCases, CalDAVPullTests.servers)
    func anEditMadeWhileThePullRebuildsTheCalendarIsPushedNotReplaced(_ backend: Backend, _ kind: String) throws {
        let setup = try setUp(backend, kind)
        try setup.server.put("personal", "dentist.ics",
                             CalDAVPullTests.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        var sync = setup.sync
        let once = Once {
            try setup.edit("Dentist") { event in
                event.title = "Dentist at 3"
                event.notes = "Bring the card"
            }
        }
        sync.afterPush = { try once() }
        let result = try sync.sync(try setup.calendar(), now: Self.now)
        #expect(result.pushed.sent == 1 && result.pushed.merged == 1)
        #expect(result.pushed.conflicts == ["UID dentist-1: SUMMARY changed on both sides; datebook's is kept, the server's 'SUMMARY:Dentist (moved)' lost"
                                            + Self.times])
        let event = try #require(try setup.store.events(titled: "Dentist at 3").first)
        #expect(event.notes == "Bring the card")
        let text = try #require(try setup.server.get("personal", "dentist.ics"))
        #expect(text.contains("SUMMARY:Dentist at 3\r\n") && text.contains("DESCRIPTION:Bring the card\r\n") && text.contains("X-PHONE-THING:keep me"))
        #expect(try setup.store.calDAVConflicts(account: "home").map(\.message) == result.pushed.conflicts)
        let again = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(again.pushed == CalDAVSync.PushOutcome() && again.pulled.events == nil)
    }

    /// The push ran (another event changed here) and read the dentist as it was; the user edits the
    /// dentist's notes after that while the server changed its title: the pull keeps the notes over
    /// the server's copy and takes its title, and the next sync sends the notes.
    @Test(arguments: Backend.allCases, CalDAVPullTests.servers)
    func anEditMadeAfterThePushReadTheStoreIsKeptFieldByField(_ backend: Backend, _ kind: String) throws {
        let setup = try setUp(backend, kind, files: ["dentist.ics": CalDAVPullTests.dentist, "party.ics": CalDAVPullTests.event("party-1", "Party")])
        try setup.server.put("personal", "dentist.ics",
                             CalDAVPullTests.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        try setup.edit("Party") { $0.location = "Garden" }
        var sync = setup.sync
        let once = Once { try setup.edit("Dentist") { $0.notes = "Bring the card" } }
        sync.afterPush = { try once() }
        let result = try sync.sync(try setup.calendar(), now: Self.now)
        #expect(result.pushed.sent == 1 && result.pushed.conflicts.isEmpty)
        #expect(result.pulled.received == 1)
        let dentist = try #require(try setup.store.events(titled: "Dentist (moved)").first)
        #expect(dentist.notes == "Bring the card")
        #expect(try setup.calendar().syncedChanges == nil, "what was kept is looked for at the next sync")
        let next = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(next.pushed.sent == 1 && next.pushed.conflicts.isEmpty)
        let text = try #require(try setup.server.get("personal", "dentist.ics"))
        #expect(text.contains("SUMMARY:Dentist (moved)\r\n") && text.contains("DESCRIPTION:Bring the card\r\n"))
        let last = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(last.pushed == CalDAVSync.PushOutcome() && last.pulled.events == nil)
    }

    struct Stopped: Error {}

    /// Both sides changed the dentist and its task; the push's PUTs answer 412 and go up merged, and
    /// the sync stops right after the second is recorded (as a kill would, before the pull). The
    /// merged record brought the server's changes (the location, the task done) into datebook with
    /// the held text, and the conflict: the clean sync after it sends nothing back and loses nothing.
    @Test(arguments: Backend.allCases, CalDAVPullTests.servers)
    func aSyncStoppedAfterAMergedPutKeepsBothSidesChanges(_ backend: Backend, _ kind: String) throws {
        let milk = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\nUID:milk-1\r\nDTSTAMP:20261101T100000Z\r\n"
            + "SUMMARY:Buy milk\r\nSTATUS:NEEDS-ACTION\r\nRELATED-TO:dentist-1\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let setup = try setUp(backend, kind, files: ["dentist.ics": CalDAVPullTests.dentist, "milk.ics": milk])
        try setup.server.put("personal", "dentist.ics", CalDAVPullTests.dentist
            .replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)\r\nLOCATION:Room 4"))
        try setup.server.put("personal", "milk.ics", milk.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED"))
        try setup.edit("Dentist") { event in
            event.title = "Dentist at 3"
            event.notes = "Bring the card"
            event.tasks[0].text = "Buy oat milk"
        }
        var sync = setup.sync
        var writes = 0
        sync.afterWrite = {
            writes += 1
            if writes == 2 { throw Stopped() }
        }
        #expect(throws: Stopped.self) { try sync.sync(try setup.calendar(), now: Self.now) }
        let conflict = "UID dentist-1: SUMMARY changed on both sides; datebook's is kept, the server's 'SUMMARY:Dentist (moved)' lost" + Self.times
        #expect(try setup.store.calDAVConflicts(account: "home").map(\.message) == [conflict])

        let clean = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(clean.pushed.sent == 0 && clean.pushed.conflicts.isEmpty)
        let text = try #require(try setup.server.get("personal", "dentist.ics"))
        #expect(text.contains("SUMMARY:Dentist at 3\r\n") && text.contains("DESCRIPTION:Bring the card\r\n"))
        #expect(text.contains("LOCATION:Room 4\r\n") && text.contains("X-PHONE-THING:keep me"))
        let todo = try #require(try setup.server.get("personal", "milk.ics"))
        #expect(todo.contains("SUMMARY:Buy oat milk\r\n") && todo.contains("STATUS:COMPLETED\r\n"))
        let dentist = try #require(try setup.store.events(titled: "Dentist at 3").first)
        #expect(dentist.notes == "Bring the card" && dentist.location == "Room 4")
        #expect(dentist.tasks.map(\.text) == ["Buy oat milk"] && dentist.tasks.map(\.status) == [.done])
        #expect(try setup.store.calDAVConflicts(account: "home").map(\.message) == [conflict])
        let last = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(last.pushed == CalDAVSync.PushOutcome() && last.pulled.events == nil)
    }

    /// The fields merge: datebook's where it changed them since the push read the event, the
    /// server's elsewhere; a field both changed keeps datebook's, the server's reported.
    @Test func theMergeTakesEachSidesChangedFields() {
        let before = Event(id: "e1", title: "Dentist", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .green)
        var local = before, server = before
        local.notes = "Bring the card"
        local.title = "Dentist at 3"
        server.title = "Dentist (moved)"
        server.location = "Room 4"
        let merged = CalDAVSync.merge(local, before: before, server: server)
        #expect(merged.event.title == "Dentist at 3" && merged.event.notes == "Bring the card" && merged.event.location == "Room 4")
        #expect(merged.lost == ["SUMMARY changed on both sides; datebook's, not sent yet, is kept, the server's 'Dentist (moved)' lost"])
    }

    /// The count moves with each kind of change to the calendar's events, and only then.
    @Test(arguments: Backend.allCases)
    func theCountOfLocalChangesMovesWithEveryChangeAndOnlyThen(_ backend: Backend) throws {
        let store = try backend.open()
        let calendar = CalDAVCalendar(account: "home", url: "http://127.0.0.1:9/ann/personal/", displayName: "Personal", components: ["VEVENT"])
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:X"),
                                   calendars: [calendar])
        func count() throws -> Int64 { try store.calDAVLocalChanges(of: calendar) }
        var last = try count()
        func moved(_ what: Comment) throws {
            let now = try count()
            #expect(now != last, what)
            last = now
        }
        var event = Event(id: "0123456789abcdef", title: "Dentist", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .green)
        try store.save(event, into: calendar, uid: "0123456789abcdef@datebook")
        try moved("made in the calendar")
        event.title = "Dentist at 3"
        try store.save(event)
        try moved("retitled")
        event.tasks = [EventTask(id: "t1", text: "Card", status: .todo)]
        try store.save(event)
        try moved("a task added")
        event.tasks[0].status = .done
        try store.save(event)
        try moved("a task done")
        let other = Event(id: "fedcba9876543210", title: "Own", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .green)
        try store.save(other)
        #expect(try count() == last, "an event of no CalDAV calendar")
        try store.saveOutsideCalDAV(event)
        try moved("moved out")
        try store.save(event, into: calendar, uid: "0123456789abcdef@datebook")
        try moved("moved in")
        // A bulk save (SQLite suspends the row triggers for it, PostgreSQL copies) that changes the event.
        event.notes = "Bring the card"
        let many = (0..<5_001).map { n in
            Event(id: String(format: "%016x", n + 1), title: "Bulk \(n)", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .green)
        }
        try store.save(many + [event], progress: { _ in })
        try moved("changed by a bulk save")
        try store.delete(id: event.id)
        try moved("removed")
    }

    /// A recurring event moved out of its CalDAV calendar takes the overrides the server made of
    /// it along (RECURRENCE-ID instances); the next sync removes its resource from the server.
    @Test(arguments: Backend.allCases, CalDAVPullTests.servers)
    func anEventMovedOutTakesItsOverridesAlong(_ backend: Backend, _ kind: String) throws {
        let standup = """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20261101T100000Z\r
            DTSTART:20261201T090000Z\r\nRRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Standup\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:standup-1\r
            DTSTAMP:20261101T100000Z\r\nRECURRENCE-ID:20261203T090000Z\r\nDTSTART:20261203T100000Z\r\nSUMMARY:Standup (late)\r
            END:VEVENT\r\nEND:VCALENDAR\r\n
            """
        let setup = try setUp(backend, kind, files: ["standup.ics": standup])
        #expect(try setup.store.events(titled: "Standup (late)").count == 1)
        let master = try #require(try setup.store.events(titled: "Standup").first)
        try setup.store.saveOutsideCalDAV(master)
        #expect(try setup.store.events(titled: "Standup (late)").isEmpty)
        #expect(try setup.store.event(id: master.id)?.recurrence == master.recurrence)
        let result = try setup.sync.sync(try setup.calendar(), now: Self.now)
        #expect(result.pushed.removed == 1)
        #expect(try setup.server.get("personal", "standup.ics") == nil)
        #expect(try setup.store.events(titled: "Standup (late)").isEmpty && setup.store.events(titled: "Standup").count == 1)
    }
}
