import DatebookTestSupport
import Foundation
import Testing

/// `datebook run` against a real Radicale, on the real clock: a local change goes up within a few
/// seconds, not at the account's next `every` (an hour away: the wait is bounded far below it, so a
/// busy machine does not fail the test and a push left for the next `every` still does).
struct CalDAVDaemonTests {
    static let milk = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\nUID:milk-1\r\nDTSTAMP:20261101T100000Z\r
        SUMMARY:Buy milk\r\nSTATUS:NEEDS-ACTION\r\nX-PHONE-THING:keep me\r\nEND:VTODO\r\nEND:VCALENDAR\r\n
        """

    func datebook(_ arguments: [String], _ store: String, _ environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CalDAVKillTests.binary)
        process.arguments = ["--store", store, "--tz", "UTC"] + arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Reaper.watch(process)
        return process
    }

    func finished(_ arguments: [String], _ store: String, _ environment: [String: String]) throws -> Int32 {
        let process = try datebook(arguments, store, environment)
        process.waitUntilExit()
        Reaper.stop(process)
        return process.terminationStatus
    }

    @Test(arguments: CalDAVPullTests.servers)
    func aTaskDoneWhileTheDaemonRunsReachesTheServerWithinSeconds(_ kind: String) throws {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.put("personal", "milk.ics", Self.milk)
        let scratch = ScratchFolder("daemon-caldav")
        let home = scratch.path
        let store = home + "/store.sqlite3"
        let environment = ["DAV_PASSWORD": server.password, "SWIFT_BACKTRACE": "enable=no", "HOME": home]
        #expect(try finished(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env",
                              "DAV_PASSWORD", "--every", "1h", "--calendar", "Personal"], store, environment) == 0)
        // Synced now (the real clock): the account's `every` is an hour away for the whole test.
        #expect(try finished(["caldav", "sync"], store, environment) == 0)
        let daemon = try datebook(["run"], store, environment)
        defer { Reaper.stop(daemon) }
        usleep(500_000)
        #expect(try finished(["task", "done", "Tasks", "1"], store, environment) == 0)
        let changed = Date()
        var text = ""
        while Date().timeIntervalSince(changed) < 300, !text.contains("STATUS:COMPLETED") {
            usleep(100_000)
            text = try server.get("personal", "milk.ics") ?? ""
        }
        print("caldav (\(kind)): a task done reached the server after \(String(format: "%.1f", Date().timeIntervalSince(changed))) s")
        #expect(text.contains("\r\nSTATUS:COMPLETED\r\n") && text.contains("\r\nX-PHONE-THING:keep me\r\n"), "\(text)")
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
    }
}
