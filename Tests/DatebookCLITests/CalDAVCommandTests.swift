@testable import DatebookCLI
import DatebookCore
import DatebookStore
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

    /// The same on a server of `kind` (`radicale`, `xandikos`; `servers` lists both).
    func added(_ kind: String) throws -> (Sandbox, any CalDAVTestServer, [String: String]) {
        guard kind == "xandikos" else {
            let (sandbox, server, environment) = try added()
            return (sandbox, server, environment)
        }
        let server = try Xandikos()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.store("personal", "dentist.ics", Self.dentist)
        try server.store("personal", "milk.ics", Self.milk)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let run = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                               "--password-env", "DAV_PASSWORD", "--calendar", "Personal"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("  \(server.baseURL)\(server.calendarPath("personal"))\n"), "\(run.out)")
        return (sandbox, server, environment)
    }

    /// The servers every CalDAV test runs on; Xandikos only where its Python package is installed.
    static let servers = TestPython.imports(["xandikos"]) ? ["radicale", "xandikos"] : ["radicale"]

    @Test(arguments: servers) func serverChangesReachTheAgendaOnSync(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
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

    @Test(arguments: servers) func anOverrideOfARecurringEventEditedOnTheServerIsShownOnItsDay(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
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

    /// On Radicale only: Xandikos asks for no login, so it cannot refuse one.
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

    @Test(arguments: servers) func thePasswordIsNeverStoredNorPrinted(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
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
        let server = try Self.server(work: true)
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

    @Test(arguments: servers) func tickSyncsAnAccountWhoseIntervalHasPassed(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
        let first = sandbox.run(["tick"], environment: environment)
        #expect(first.code == 0, "\(first.err)")
        #expect(sandbox.run(["list"]).out.contains("Dentist"))
        let count = server.requests().count
        #expect(sandbox.run(["tick"], environment: environment).code == 0)
        #expect(server.requests().count == count, "synced again before its 15m")
        var later = sandbox
        later.now = "2026-11-30 09:15"
        #expect(later.run(["tick"], environment: environment).code == 0)
        #expect(Array(server.requests().dropFirst(count)) == ["PROPFIND " + server.calendarPath("personal")], "the getctag, the same as at the first sync")
    }

    /// A Radicale (serving TLS with its own certificate with `tls`) with calendar 'Personal' holding
    /// the dentist, and 'Work' (empty) with `work`.
    static func server(tls: Bool = false, work: Bool = false) throws -> Radicale {
        let server = try Radicale(tls: tls)
        try server.makeCalendar("personal", displayName: "Personal")
        if work { try server.makeCalendar("office", displayName: "Work") }
        try server.put("personal", "dentist.ics", Self.dentist)
        return server
    }

    /// The same on a server of `kind` (without TLS).
    static func server(_ kind: String, work: Bool) throws -> any CalDAVTestServer {
        guard kind == "xandikos" else { return try server(work: work) }
        let server = try Xandikos()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        if work { try server.makeCalendar(named: "office", displayName: "Work") }
        try server.put("personal", "dentist.ics", Self.dentist)
        return server
    }

    func tlsServer() throws -> Radicale { try Self.server(tls: true) }

    @Test func aServerWithItsOwnCertificateIsTrustedOnlyThroughTheCAFile() throws {
        let server = try tlsServer()
        let sandbox = Sandbox()
        let arguments = ["caldav", "add", "home", server.baseURL + "/", "--username", "ann", "--password-env", "P"]
        let untrusted = sandbox.run(arguments, environment: ["P": server.password])
        #expect(untrusted.code == 69)
        #expect(untrusted.err.contains("TLS failed"), "\(untrusted.err)")
        #expect(untrusted.err.contains("trust it with the account's caFile (the config's caldav caFile, or 'caldav add --ca-file PATH')"),
                "\(untrusted.err)")
        let environment = ["P": server.password, "DATEBOOK_CA_FILE": try #require(server.certificate)]
        #expect(sandbox.run(arguments, environment: environment).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: 1 received, 0 removed, 1 event\n")
    }

    @Test func addWithACAFileKeepsItAndUsesItForEveryRequest() throws {
        let server = try tlsServer()
        let certificate = try #require(server.certificate)
        let sandbox = Sandbox()
        let environment = ["P": server.password]
        let missing = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", "ann", "--password-env", "P",
                                   "--ca-file", sandbox.home + "/no-such.pem"], environment: environment)
        #expect(missing.code == 64)
        #expect(missing.err.contains("caldav add --ca-file: cannot read \(sandbox.home)/no-such.pem; give a readable PEM file"), "\(missing.err)")
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", "ann", "--password-env", "P",
                               "--ca-file", certificate], environment: environment)
        #expect(add.code == 0, "\(add.err)")
        #expect(sandbox.run(["caldav", "list"]).out.contains("  synced never  ca-file \(certificate)\n"))
        let first = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(first.out == "caldav 'home' Personal: 1 received, 0 removed, 1 event\n", "\(first.err)")
        #expect(sandbox.run(["edit", "Dentist", "--title", "Dentist (moved)"]).code == 0)
        let second = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(second.code == 0, "\(second.err)")
        #expect(second.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "the PUT over TLS too")
        #expect(try server.get("personal", "dentist.ics")?.contains("SUMMARY:Dentist (moved)") == true)
    }

    @Test func theCAFileIsKeptWithTheAccountOnPostgreSQLToo() throws {
        let server = try tlsServer()
        let certificate = try #require(server.certificate)
        let store = try TestPostgres.shared().makeDatabase()
        let sandbox = Sandbox()
        let environment = ["P": server.password]
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", "ann", "--password-env", "P",
                               "--ca-file", certificate], environment: environment, storePath: store)
        #expect(add.code == 0, "\(add.err)")
        #expect(sandbox.run(["caldav", "list"], storePath: store).out.contains("  ca-file \(certificate)\n"))
        let sync = sandbox.run(["caldav", "sync"], environment: environment, storePath: store)
        #expect(sync.out == "caldav 'home' Personal: 1 received, 0 removed, 1 event\n", "\(sync.err)")
    }

    @Test func aConfigAccountsCAFileIsTrustedAndAMissingOneIsAConfigError() throws {
        let server = try tlsServer()
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try #require(server.certificate), toPath: sandbox.home + "/dav-ca.pem")
        func configure(caFile: String) throws {
            try """
                { caldav: [ { name: "home", url: "\(server.baseURL)/", username: "ann", password: { env: "P" }, caFile: "\(caFile)" } ] }
                """.write(toFile: sandbox.home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        }
        let environment = ["P": server.password, "HOME": sandbox.home]
        try configure(caFile: "~/no-such.pem")
        let missing = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(missing.code == 65, "\(missing.err)")
        #expect(missing.err.contains("caldav[0].caFile"), "\(missing.err)")
        #expect(missing.err.contains("cannot read \(sandbox.home)/no-such.pem"), "\(missing.err)")
        try configure(caFile: "~/dav-ca.pem")
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasSuffix("caldav 'home' Personal: 1 received, 0 removed, 1 event\n"))
        #expect(sandbox.run(["caldav", "list"], environment: environment).out.contains("  ca-file \(sandbox.home)/dav-ca.pem\n"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }

    @Test(arguments: servers) func theSyncAfterTheFirstIsOneRequestWhenNothingChanged(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let count = server.requests().count
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(Array(server.requests().dropFirst(count)) == ["PROPFIND " + server.calendarPath("personal")], "the getctag read when the account was added")
    }

    @Test(arguments: servers) func removingAnAccountRemovesItsEvents(_ kind: String) throws {
        let (sandbox, server, environment) = try added(kind)
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

    @Test func aConnectionDroppedInTheMiddleOfTheAnswerIsExit69AndChangesNothing() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let sandbox = Sandbox()
        // One answer for both reports (sync-collection, then calendar-multiget): a resource with its text.
        let party = Self.dentist.replacingOccurrences(of: "dentist-1", with: "party-1").replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Party")
        let xml = "<d:multistatus xmlns:d=\"DAV:\" xmlns:c=\"urn:ietf:params:xml:ns:caldav\"><d:response><d:href>/cal/party.ics</d:href>"
            + "<d:propstat><d:prop><d:getetag>\"1\"</d:getetag><c:calendar-data>\(party)</c:calendar-data></d:prop>"
            + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response><d:sync-token>t1</d:sync-token></d:multistatus>"
        let url = sink.baseURL + "/cut-multistatus?once=" + sandbox.home + "/cut&body="
            + (xml.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        try Store(path: sandbox.store).addCalDAVAccount(
            CalDAVAccount(name: "web", url: sink.baseURL + "/", username: "ann", passwordSource: "env:P"),
            calendars: [CalDAVCalendar(account: "web", url: url, displayName: "Cut", components: ["VEVENT"])])
        let cut = sandbox.run(["caldav", "sync"], environment: ["P": "secret"])
        #expect(cut.code == 69)
        #expect(cut.err.hasPrefix("datebook: caldav 'web': ") && cut.err.contains("connection failed") && cut.err.contains("check the URL and that the server is up"), "\(cut.err)")
        #expect(!cut.err.contains("secret"))
        #expect(!sandbox.run(["list"]).out.contains("Party"))
        #expect(try Store(path: sandbox.store).calDAVCalendars(account: "web").first?.syncToken == nil)
        let again = sandbox.run(["caldav", "sync"], environment: ["P": "secret"])
        #expect(again.code == 0, "\(again.err)")
        #expect(again.out == "caldav 'web' Cut: 1 received, 0 removed, 1 event\n")
        #expect(sandbox.run(["list"]).out.contains("Party"))
    }
}
