@testable import DatebookCLI
import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Each account's no-data timeout (issue 31): `caldav add --timeout`, `caldav edit --timeout`, the
/// config's `timeout`; kept in `caldav_accounts.timeout`, shown by `caldav list`, used by every request.
struct CalDAVTimeoutTests {
    @Test func addAndEditKeepTheAccountsTimeout() throws {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                               "--password-env", "DAV_PASSWORD", "--timeout", "5m"], environment: environment)
        #expect(add.code == 0, "\(add.err)")
        #expect(try Store(path: sandbox.store).calDAVAccounts().map(\.timeout) == [300])
        #expect(sandbox.run(["caldav", "list"]).out.hasPrefix("home  \(server.baseURL)/  ann  every 15m  synced never  timeout 5m\n"))
        let edit = sandbox.run(["caldav", "edit", "home", "--timeout", "45s"], environment: environment)
        #expect(edit.code == 0, "\(edit.err)")
        #expect(try Store(path: sandbox.store).calDAVAccounts().map(\.timeout) == [45])
        #expect(sandbox.run(["caldav", "list"]).out.contains("  timeout 45s\n"))
        // `caldav add` again without --timeout keeps it.
        #expect(sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                             "--password-env", "DAV_PASSWORD"], environment: environment).code == 0)
        #expect(try Store(path: sandbox.store).calDAVAccounts().map(\.timeout) == [45])
    }

    @Test(arguments: ["0s", "soon", "2d"]) func aTimeoutThatIsNoDurationIsRefused(_ text: String) throws {
        let sandbox = Sandbox()
        let run = sandbox.run(["caldav", "add", "home", "http://127.0.0.1:9/", "--username", "ann", "--password-env", "P", "--timeout", text])
        #expect(run.code == 64)
        #expect(run.err.split(separator: "\n").first.map(String.init) == "datebook: --timeout expects a duration from 1s to 1d like 30s, 2m or 5m, "
                + "got '\(text)'", "\(run.err)")
    }

    /// A server that takes the request and says nothing: the account's timeout (1 s) gives it up,
    /// not the default's 2 minutes.
    @Test func aServerSilentForLongerThanTheAccountsTimeoutIsGivenUp() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let sandbox = Sandbox()
        try Store(path: sandbox.store).addCalDAVAccount(
            CalDAVAccount(name: "slow", url: sink.baseURL + "/", username: "ann", passwordSource: "env:P", timeout: 1),
            calendars: [CalDAVCalendar(account: "slow", url: sink.baseURL + "/hang", displayName: "Silent", components: ["VEVENT"])])
        let started = Date()
        let run = sandbox.run(["caldav", "sync"], environment: ["P": "secret"])
        #expect(run.code == 69, "\(run.err)")
        #expect(run.err.hasPrefix("datebook: caldav 'slow': ") && run.err.contains("timed out") && run.err.contains("the last 1 seconds"), "\(run.err)")
        // Far below the default of 2 minutes, whatever the machine's load.
        #expect(Date().timeIntervalSince(started) < 60)
    }
}
