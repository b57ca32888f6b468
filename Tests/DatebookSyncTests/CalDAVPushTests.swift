import DatebookCore
import DatebookDelivery
import DatebookStore
@testable import DatebookSync
import DatebookTestSupport
import Foundation
import Testing

/// Push answers Radicale never gives, from the HTTP sink (`/status/CODE` answers CODE to anything).
struct CalDAVPushTests {
    @Test func aRefusedWriteIsReportedWithItsUIDAndTheRestIsSent() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let store = try Store(path: makeScratchFolder("push") + "/push.sqlite3")
        // The calendar answers every REPORT with an empty multistatus: nothing changed on the server.
        let calendar = CalDAVCalendar(account: "home", url: sink.baseURL + "/multistatus?body=%3Cmultistatus%20xmlns%3D%22DAV%3A%22%3E"
                                          + "%3Csync-token%3Et0%3C%2Fsync-token%3E%3C%2Fmultistatus%3E",
                                      displayName: "Personal", components: ["VEVENT"])
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: sink.baseURL, username: "ann", passwordSource: "env:X"),
                                   calendars: [calendar])
        let resources = [("/ok", "ok-1"), ("/status/403", "forbidden-1"), ("/status/507", "full-1")].map { path, uid in
            CalDAVResource(url: sink.baseURL + path, etag: "\"1\"", uid: uid, text: CalDAVPullTests.event(uid, "Before"))
        }
        let sync = CalDAVSync(store: store, client: CalDAVClient(http: HTTPClient(), username: "ann", password: "secret"),
                              timeZone: TimeZone(identifier: "UTC") ?? .current)
        let base = try sync.events(resources, calendar, now: CalDAVPullTests.now, existing: { _ in nil })
        try store.applyCalDAVChanges(to: calendar, changed: resources, removed: [], events: base, syncToken: "t0", ctag: nil)
        try store.save(base.events.map { event in
            var event = event
            event.title = "After"
            return event
        })
        let (outcome, pulled) = try sync.sync(try #require(try store.calDAVCalendars(account: "home").first), now: CalDAVPullTests.now)
        #expect(pulled.events == nil)
        #expect(outcome.sent == 1)
        #expect(outcome.refused == ["UID forbidden-1: PUT answered HTTP 403", "UID full-1: PUT answered HTTP 507"])
        let puts = try sink.records().filter { $0["method"] as? String == "PUT" }
        #expect(puts.compactMap { $0["path"] as? String } == ["/ok", "/status/403", "/status/507"])
        let headers = try #require(puts.first?["headers"] as? [[String]])
        #expect(headers.contains(["If-Match", "\"1\""]))
        #expect(!headers.contains { $0[0] == "Authorization" && $0[1].contains("secret") })
        // The accepted write is recorded with its new text; the refused ones keep the old, so they are tried again.
        let held = try store.calDAVResources(of: calendar)
        #expect(held[sink.baseURL + "/ok"]?.text.contains("SUMMARY:After") == true)
        #expect(held[sink.baseURL + "/status/403"]?.text.contains("SUMMARY:Before") == true)
        // Refused writes are tried again at the next sync; the accepted one is not sent twice.
        let stored = try #require(try store.calDAVCalendars(account: "home").first)
        #expect(stored.syncedChanges == nil)
        let again = try sync.sync(stored, now: CalDAVPullTests.now).pushed
        #expect(again.sent == 0 && again.refused.count == 2)
        let paths = try sink.records().filter { $0["method"] as? String == "PUT" }.compactMap { $0["path"] as? String }
        #expect(paths == ["/ok", "/status/403", "/status/507", "/status/403", "/status/507"])
    }

    /// A change the server refused stays while the server's change to the same event rebuilds the
    /// calendar: the pull keeps datebook's changed fields over the server's copy, and the next sync
    /// tries it again.
    @Test func aRefusedChangeIsKeptWhenTheServersChangeRebuildsTheCalendar() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let store = try Store(path: makeScratchFolder("push") + "/push.sqlite3")
        let held = CalDAVResource(url: sink.baseURL + "/status/403", etag: "\"1\"", uid: "forbidden-1",
                                  text: CalDAVPullTests.event("forbidden-1", "Before"))
        // Every REPORT lists that resource changed on the server: a location added.
        let changed = CalDAVPullTests.event("forbidden-1", "Before", extra: "LOCATION:Room 4\r\n")
        let body = "<multistatus xmlns=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><sync-token>t1</sync-token><response>"
            + "<href>/status/403</href><propstat><prop><getetag>\"2\"</getetag><C:calendar-data>\(changed)</C:calendar-data></prop>"
            + "<status>HTTP/1.1 200 OK</status></propstat></response></multistatus>"
        let calendar = CalDAVCalendar(account: "home", url: sink.baseURL + "/multistatus?body="
                                          + (body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                                      displayName: "Personal", components: ["VEVENT"])
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: sink.baseURL, username: "ann", passwordSource: "env:X"),
                                   calendars: [calendar])
        let sync = CalDAVSync(store: store, client: CalDAVClient(http: HTTPClient(), username: "ann", password: "secret"),
                              timeZone: TimeZone(identifier: "UTC") ?? .current)
        let base = try sync.events([held], calendar, now: CalDAVPullTests.now, existing: { _ in nil })
        try store.applyCalDAVChanges(to: calendar, changed: [held], removed: [], events: base, syncToken: "t0", ctag: nil)
        var event = try #require(base.events.first)
        event.title = "After"
        try store.save(event)
        let (pushed, pulled) = try sync.sync(try #require(try store.calDAVCalendars(account: "home").first), now: CalDAVPullTests.now)
        #expect(pushed.refused == ["UID forbidden-1: PUT answered HTTP 403"])
        #expect(pulled.received == 1 && pulled.events == 1)
        let kept = try #require(try store.event(id: event.id))
        #expect(kept.title == "After" && kept.location == "Room 4", "datebook's refused title, the server's new location")
        #expect(try store.calDAVCalendars(account: "home").first?.syncedChanges == nil, "tried again at the next sync")
    }

    @Test func aChangedFloatingStartIsWrittenWithoutZoneOrZ() throws {
        let setup = try CalDAVPullTests().setUp()
        try setup.server.put("personal", "picnic.ics", """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:picnic-1\r\nDTSTAMP:20261101T100000Z\r
            DTSTART:20261205T110000\r\nDTEND:20261205T150000\r\nSUMMARY:Picnic\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """)
        _ = try setup.sync.sync(setup.calendar, now: CalDAVPullTests.now)
        var picnic = try #require(try setup.store.events(titled: "Picnic").first)
        let day = CalendarDate(year: 2026, month: 12, day: 6)
        picnic.start = .floating(FloatingTime(date: day, hour: 10, minute: 15))
        picnic.end = .floating(FloatingTime(date: day, hour: 14, minute: 0, second: 30))
        try setup.store.save(picnic)
        let stored = try #require(try setup.store.calDAVCalendars(account: "home").first)
        #expect(try setup.sync.sync(stored, now: CalDAVPullTests.now).pushed.sent == 1)
        let text = try #require(try setup.server.get("personal", "picnic.ics"))
        #expect(text.contains("\r\nDTSTART:20261206T101500\r\n") && text.contains("\r\nDTEND:20261206T140030\r\n"), "\(text)")
        // Read back, it is the same floating event: nothing more to send.
        let again = try setup.sync.sync(try #require(try setup.store.calDAVCalendars(account: "home").first), now: CalDAVPullTests.now)
        #expect(again.pushed.sent == 0)
        #expect(try setup.store.events(titled: "Picnic").first?.start == picnic.start)
    }
}
