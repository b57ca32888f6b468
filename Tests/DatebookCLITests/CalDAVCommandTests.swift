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
