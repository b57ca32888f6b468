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
        let store = try Store(path: NSTemporaryDirectory() + "datebook-push-\(UUID().uuidString).sqlite3")
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
        #expect(stored.localDigest == nil)
        let again = try sync.sync(stored, now: CalDAVPullTests.now).pushed
        #expect(again.sent == 0 && again.refused.count == 2)
        let paths = try sink.records().filter { $0["method"] as? String == "PUT" }.compactMap { $0["path"] as? String }
        #expect(paths == ["/ok", "/status/403", "/status/507", "/status/403", "/status/507"])
    }
}
