@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// `datebook caldav` against a real Radicale (and the HTTP sink for what Radicale never answers).
struct CalDAVCommandTests {
    static let dentist = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20261101T100000Z\r
        DTSTART:20261203T130000Z\r\nSUMMARY:Dentist\r\nX-PHONE-THING:keep me\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
        """
    static let milk = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\nUID:milk-1\r\nDTSTAMP:20261101T100000Z\r
        SUMMARY:Buy milk\r\nSTATUS:NEEDS-ACTION\r\nEND:VTODO\r\nEND:VCALENDAR\r\n
        """

    /// A Radicale with calendar 'Personal' (an event and a to-do) and a sandbox with account 'home'.
    func added() throws -> (Sandbox, Radicale, [String: String]) {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        try server.put("personal", "dentist.ics", Self.dentist)
        try server.put("personal", "milk.ics", Self.milk)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let run = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                               "--password-env", "DAV_PASSWORD"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasPrefix("added caldav account 'home' (\(server.baseURL)/) with 1 calendar:\n  Personal  "))
        #expect(run.out.hasSuffix("  \(server.baseURL)/ann/personal/\n'datebook caldav sync home' fetches them\n"))
        return (sandbox, server, environment)
    }

    @Test func serverChangesReachTheAgendaOnSync() throws {
        let (sandbox, server, environment) = try added()
        let first = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out == "caldav 'home' Personal: 2 received, 0 removed, 2 events\n")
        #expect(sandbox.run(["list"]).out.contains("Dentist"))
        #expect(sandbox.run(["tasks"]).out.contains("[ ] Buy milk"))

        try server.put("personal", "dentist.ics", Self.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        try server.delete("personal", "milk.ics")
        let second = sandbox.run(["caldav", "sync", "home"], environment: environment)
        #expect(second.out == "caldav 'home' Personal: 1 received, 1 removed, 1 event\n")
        let list = sandbox.run(["list"]).out
        #expect(list.contains("Dentist (moved)"))
        #expect(!list.contains("Tasks"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }

    @Test func anOverrideOfARecurringEventEditedOnTheServerIsShownOnItsDay() throws {
        let (sandbox, server, environment) = try added()
        func standup(_ moved: String) -> String {
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20261101T100000Z\r\n"
                + "DTSTART:20261201T080000Z\r\nRRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20261101T100000Z\r\nRECURRENCE-ID:20261203T080000Z\r\n"
                + "DTSTART:20261203T100000Z\r\nSUMMARY:\(moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        }
        try server.put("personal", "standup.ics", standup("Standup (late)"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let list = sandbox.run(["list"]).out
        #expect(list.contains("Standup (late)") && list.contains("Thu 2026-12-03 11:00"), "\(list)")
        try server.put("personal", "standup.ics", standup("Standup (moved again)"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: 1 received, 0 removed, 4 events\n")
        let after = sandbox.run(["list"]).out
        #expect(after.contains("Standup (moved again)") && !after.contains("Standup (late)"))
        #expect(after.components(separatedBy: "Standup").count - 1 == 5, "\(after)")
    }

    @Test func aWrongPasswordIsExit69AndChangesNothing() throws {
        let (sandbox, server, environment) = try added()
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        try server.put("personal", "party.ics", Self.dentist.replacingOccurrences(of: "dentist-1", with: "party-1")
            .replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Party"))
        let refused = sandbox.run(["caldav", "sync"], environment: ["DAV_PASSWORD": "wrong"])
        #expect(refused.code == 69)
        #expect(refused.err == "datebook: caldav 'home': \(server.baseURL)/ann/personal/: the server refused the username or password (401); "
                + "check them, then 'datebook caldav sync' again\n")
        #expect(!sandbox.run(["list"]).out.contains("Party"))
        #expect(sandbox.run(["caldav", "list"]).out.contains("FAILED: "))
        let again = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(again.out == "caldav 'home' Personal: 1 received, 0 removed, 3 events\n")
        #expect(!sandbox.run(["caldav", "list"]).out.contains("FAILED"))
    }

    @Test func thePasswordIsNeverStoredNorPrinted() throws {
        let (sandbox, server, environment) = try added()
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let list = sandbox.run(["caldav", "list"])
        #expect(list.out.hasPrefix("home  \(server.baseURL)/  ann  every 15m  synced "))
        let stored = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        #expect(stored.range(of: Data(server.password.utf8)) == nil)
        let missing = sandbox.run(["caldav", "add", "other", server.baseURL + "/", "--username", "ann"])
        #expect(missing.code == 64)
        #expect(missing.err.contains("give one of --password-env VAR or --password-file PATH"))
        let unset = sandbox.run(["caldav", "sync"])
        #expect(unset.code == 64)
        #expect(unset.err.contains("the environment variable DAV_PASSWORD (the password of caldav account 'home') is not set"))
    }

    @Test func anAccountInTheConfigIsRegisteredOnItsFirstSync() throws {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        try server.makeCalendar("work", displayName: "Work")
        try server.put("personal", "dentist.ics", Self.dentist)
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        try """
            { caldav: [ { name: "home", url: "\(server.baseURL)/", username: "ann", password: { env: "DAV_PASSWORD" },
                          calendars: ["Personal"], every: "1h" } ] }
            """.write(toFile: sandbox.home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        let environment = ["DAV_PASSWORD": server.password]
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasPrefix("added caldav account 'home' (\(server.baseURL)/) with 2 calendars:\n"))
        #expect(run.out.contains("  Work  ") && run.out.contains("(not synced)"))
        #expect(run.out.hasSuffix("caldav 'home' Personal: 1 received, 0 removed, 1 event\n"))
        #expect(sandbox.run(["caldav", "list"]).out.hasPrefix("home  \(server.baseURL)/  ann  every 1h  synced "))
        let unset = sandbox.run(["caldav", "sync"])
        #expect(unset.code == 64)
        #expect(unset.err.contains("the password of caldav account 'home' (config): environment variable DAV_PASSWORD is not set"))
    }

    @Test func tickSyncsAnAccountWhoseIntervalHasPassed() throws {
        let (sandbox, server, environment) = try added()
        let first = sandbox.run(["tick"], environment: environment)
        #expect(first.code == 0, "\(first.err)")
        #expect(sandbox.run(["list"]).out.contains("Dentist"))
        let count = server.requests().count
        #expect(sandbox.run(["tick"], environment: environment).code == 0)
        #expect(server.requests().count == count, "synced again before its 15m")
        var later = sandbox
        later.now = "2026-11-30 09:15"
        #expect(later.run(["tick"], environment: environment).code == 0)
        #expect(Array(server.requests().dropFirst(count)) == ["REPORT /ann/personal/"])
    }

    @Test func aServerWithItsOwnCertificateIsTrustedOnlyThroughTheCAFile() throws {
        let server = try Radicale(tls: true)
        try server.makeCalendar("personal", displayName: "Personal")
        try server.put("personal", "dentist.ics", Self.dentist)
        let sandbox = Sandbox()
        let arguments = ["caldav", "add", "home", server.baseURL + "/", "--username", "ann", "--password-env", "P"]
        let untrusted = sandbox.run(arguments, environment: ["P": server.password])
        #expect(untrusted.code == 69)
        #expect(untrusted.err.contains("TLS failed"), "\(untrusted.err)")
        let environment = ["P": server.password, "DATEBOOK_CA_FILE": try #require(server.certificate)]
        #expect(sandbox.run(arguments, environment: environment).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: 1 received, 0 removed, 1 event\n")
    }

    @Test func removingAnAccountRemovesItsEvents() throws {
        let (sandbox, server, environment) = try added()
        defer { withExtendedLifetime(server) {} }
        let sync = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(sync.code == 0, "\(sync.err)")
        #expect(sandbox.run(["caldav", "rm", "home"]).out == "removed caldav account 'home' and its events\n")
        #expect(!sandbox.run(["list"]).out.contains("Dentist"))
        #expect(sandbox.run(["caldav", "rm", "home"]).code == 64)
    }

    @Test(arguments: [
        ("/html", 65, "/html: not a CalDAV server (PROPFIND got an HTML page (HTTP 200)); give the CalDAV address"),
        ("/multistatus?body=%3Cmultistatus%20xmlns%3D%22DAV%3A%22%3E%3Cresponse%3E", 65,
         "the server's XML is malformed at line 1: <response> is not closed; nothing was changed"),
        ("/status/503", 69, "/status/503: PROPFIND answered HTTP 503"),
        ("/reset", 69, "check the URL and that the server is up"),
    ])
    func aURLThatIsNotCalDAVAddsNothing(path: String, code: Int32, message: String) throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let sandbox = Sandbox()
        let run = sandbox.run(["caldav", "add", "web", sink.baseURL + path, "--username", "ann", "--password-env", "P"],
                              environment: ["P": "secret"])
        #expect(run.code == code)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(!run.err.contains("secret"))
        #expect(sandbox.run(["caldav", "list"]).out.hasPrefix("No caldav accounts."))
    }
}

/// Local changes going up: the server's copy changes in the properties datebook models only.
struct CalDAVPushCommandTests {
    /// Every line of `before` that is not one of `changed` (property names) is in `after`, exactly.
    func keepsEveryOtherLine(_ before: String, _ after: String, changed: Set<String>) {
        let kept = Set(after.components(separatedBy: "\r\n"))
        for line in before.components(separatedBy: "\r\n") where !line.isEmpty {
            let name = String(line.prefix { $0 != ":" && $0 != ";" })
            if changed.contains(name) { continue }
            #expect(kept.contains(line), "lost: \(line)")
        }
    }

    func synced() throws -> (Sandbox, Radicale, [String: String]) {
        let (sandbox, server, environment) = try CalDAVCommandTests().added()
        try server.put("personal", "dentist.ics", CalDAVCommandTests.dentist.replacingOccurrences(
            of: "END:VEVENT", with: "ATTENDEE;CN=Bob:mailto:bob@example.org\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\n"
                + "DESCRIPTION:phone alarm\r\nEND:VALARM\r\nEND:VEVENT"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        return (sandbox, server, environment)
    }

    @Test func aTaskTickedOffInDatebookIsTickedOffOnTheServer() throws {
        let (sandbox, server, environment) = try synced()
        let before = try #require(try server.get("personal", "milk.ics"))
        #expect(sandbox.run(["task", "done", "Tasks", "1"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out == "caldav 'home' Personal: 1 sent, 0 removed on the server\ncaldav 'home' Personal: unchanged\n", "\(run.err)")
        let after = try #require(try server.get("personal", "milk.ics"))
        #expect(after.contains("\r\nSTATUS:COMPLETED\r\n") && after.contains("\r\nPERCENT-COMPLETE:100\r\n"))
        #expect(after.contains("\r\nCOMPLETED:2026"))
        keepsEveryOtherLine(before, after, changed: ["STATUS", "DTSTAMP", "LAST-MODIFIED", "COMPLETED", "PERCENT-COMPLETE"])
        #expect(sandbox.run(["task", "start", "Tasks", "1"]).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let doing = try #require(try server.get("personal", "milk.ics"))
        #expect(doing.contains("\r\nSTATUS:IN-PROCESS\r\n") && !doing.contains("COMPLETED:") && !doing.contains("PERCENT-COMPLETE:100"))
    }

    @Test func anEditedEventKeepsWhatDatebookDoesNotModel() throws {
        let (sandbox, server, environment) = try synced()
        let before = try #require(try server.get("personal", "dentist.ics"))
        #expect(sandbox.run(["edit", "Dentist", "--title", "Dentist, Dr. Who", "--at", "2026-12-04 10:00"]).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"))
        let after = try #require(try server.get("personal", "dentist.ics"))
        #expect(after.contains("\r\nSUMMARY:Dentist\\, Dr. Who\r\n"))
        #expect(after.contains("\r\nDTSTART:20261204T090000Z\r\n"))
        keepsEveryOtherLine(before, after, changed: ["SUMMARY", "DTSTART", "DTEND", "DTSTAMP", "LAST-MODIFIED"])
        #expect(after.contains("X-PHONE-THING:keep me") && after.contains("ATTENDEE;CN=Bob:mailto:bob@example.org"))
        #expect(after.contains("DESCRIPTION:phone alarm"))
        // Nothing more to send, nothing to receive: one request.
        let count = server.requests().count
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(server.requests().count == count + 1)
    }

    @Test func aTaskAddedInDatebookBecomesAVTODORelatedToItsEvent() throws {
        let (sandbox, server, environment) = try synced()
        #expect(sandbox.run(["task", "add", "Dentist", "Bring insurance card"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.err)")
        #expect(run.err.isEmpty, "\(run.err)")
        let created = server.requests().filter { $0.hasPrefix("PUT /ann/personal/") && !$0.hasSuffix("dentist.ics") && !$0.hasSuffix("milk.ics") }
        let path = try #require(created.last).dropFirst("PUT /ann/personal/".count)
        let text = try #require(try server.get("personal", String(path)))
        #expect(text.contains("\r\nSUMMARY:Bring insurance card\r\n") && text.contains("\r\nRELATED-TO:dentist-1\r\n"))
        #expect(sandbox.run(["show", "Dentist"]).out.contains("1. [ ] Bring insurance card"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }

    @Test func anEventRemovedOnEitherSideIsRemovedOnTheOther() throws {
        let (sandbox, server, environment) = try synced()
        #expect(sandbox.run(["rm", "Dentist"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out.hasPrefix("caldav 'home' Personal: 0 sent, 1 removed on the server\n"), "\(run.err)")
        #expect(try server.get("personal", "dentist.ics") == nil)
        #expect(try server.get("personal", "milk.ics") != nil)
        try server.delete("personal", "milk.ics")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: 0 received, 1 removed, 0 events\n")
        #expect(!sandbox.run(["list"]).out.contains("Tasks"))
    }

    @Test func theSamePropertyChangedOnBothSidesKeepsTheLaterAndShowsTheLoser() throws {
        let (sandbox, server, environment) = try synced()
        let phone = try #require(try server.get("personal", "dentist.ics"))
            .replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (phone)")
            .replacingOccurrences(of: "END:VEVENT", with: "LOCATION:Main St 1\r\nEND:VEVENT")
        try server.put("personal", "dentist.ics", phone)
        #expect(sandbox.run(["edit", "Dentist", "--title", "Dentist (datebook)"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0)
        #expect(run.err == "datebook: warning: caldav 'home' Personal: conflict: UID dentist-1: SUMMARY changed on both sides; "
                + "datebook's is kept, the server's 'SUMMARY:Dentist (phone)' lost\n")
        let after = try #require(try server.get("personal", "dentist.ics"))
        #expect(after.contains("SUMMARY:Dentist (datebook)") && after.contains("LOCATION:Main St 1"))
        #expect(sandbox.run(["list"]).out.contains("Dentist (datebook)"))
        #expect(sandbox.run(["caldav", "status"]).out == """
            home: synced Mon 2026-11-30 09:00
              Mon 2026-11-30 09:00  Personal  UID dentist-1: SUMMARY changed on both sides; datebook's is kept, \
            the server's 'SUMMARY:Dentist (phone)' lost

            """)
    }
}
