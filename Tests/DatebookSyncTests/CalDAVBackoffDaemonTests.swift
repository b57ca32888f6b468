import DatebookTestSupport
import Foundation
import Testing

/// `datebook run` with a failing CalDAV account and a local change waiting (issue 31), on the real
/// clock: the server's requests are counted over a fixed time, and must stay within the backoff.
struct CalDAVBackoffDaemonTests {
    /// A home folder with a store, a config, the daemon's log; removed at the end.
    final class Home {
        let path = NSTemporaryDirectory() + "datebook-caldav-backoff-\(UUID().uuidString)"
        var store: String { path + "/store.sqlite3" }
        var config: String { path + "/config.json5" }
        var log: String { path + "/run.log" }
        var environment: [String: String] { ["SWIFT_BACKTRACE": "enable=no", "HOME": path, "DATEBOOK_CONFIG": config] }

        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes the config: one CalDAV account on `server` with this password, synced every 2 s.
        func configure(_ server: Radicale, password: String) throws {
            let text = """
                { caldav: [ { name: "home", url: "\(server.baseURL)/", username: "\(server.username)", password: "\(password)", every: "2s" } ] }
                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: config))
        }

        func start(_ arguments: [String], stderr: String? = nil) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CalDAVKillTests.binary)
            process.arguments = ["--store", store, "--tz", "UTC"] + arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            if let stderr {
                _ = FileManager.default.createFile(atPath: stderr, contents: Data())
                process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
            } else {
                process.standardError = FileHandle.nullDevice
            }
            try process.run()
            return process
        }

        /// Runs a command to its end: its exit status and standard output.
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CalDAVKillTests.binary)
            process.arguments = ["--store", store, "--tz", "UTC"] + arguments
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Starts `datebook run` and waits for its "started" line.
        func daemon() throws -> Process {
            let daemon = try start(["run"], stderr: log)
            try wait(upTo: 30, "the daemon's start") { logText.contains("started (pid") }
            return daemon
        }
    }

    /// Polls `condition` every 50 ms for up to `seconds`; fails the test when it never holds.
    static func wait(upTo seconds: TimeInterval, _ what: String, _ condition: () throws -> Bool) throws {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if try condition() { return }
            usleep(50_000)
        }
        Issue.record("\(what): not seen within \(seconds) s")
    }

    /// A Radicale with one calendar holding one to-do, and the config's account synced with it.
    func syncedAccount() throws -> (Radicale, Home) {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        try server.put("personal", "milk.ics", CalDAVDaemonTests.milk)
        let home = try Home()
        try home.configure(server, password: server.password)
        #expect(try home.run(["caldav", "sync"]).0 == 0)
        return (server, home)
    }

    @Test func aRefusedLoginIsTriedOnceThenNotAgainUntilThePasswordChanges() throws {
        let (server, home) = try syncedAccount()
        defer { server.stop() }
        try home.configure(server, password: "wrong horse")
        let before = server.requests().count
        let daemon = try home.daemon()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() } }
        #expect(try home.run(["task", "done", "Tasks", "1"]).0 == 0)
        try Self.wait(upTo: 20, "the first refused sync") { server.requests().count > before }
        // Twenty seconds with the change waiting: ten tries at the old 2 s rate.
        let tried = Date()
        while Date().timeIntervalSince(tried) < 20 { usleep(200_000) }
        let refused = Array(server.requests().dropFirst(before))
        #expect(refused.count == 1, "\(refused)")
        let (code, status) = try home.run(["caldav", "status", "home"])
        #expect(code == 1)
        #expect(status.contains("login refused: no retry until the password"), "\(status)")
        let (overallCode, overall) = try home.run(["status"])
        #expect(overallCode == 1 && overall.contains("  home: synced ") && overall.contains("    login refused: no retry"), "\(overall)")
        // The password fixed in the config, and the config reloaded: the waiting change goes up.
        try home.configure(server, password: server.password)
        kill(daemon.processIdentifier, SIGHUP)
        let fixed = Date()
        try Self.wait(upTo: 15, "the change on the server after the fix") {
            try server.get("personal", "milk.ics")?.contains("\r\nSTATUS:COMPLETED\r\n") == true
        }
        print("caldav backoff: synced \(String(format: "%.1f", Date().timeIntervalSince(fixed))) s after the password was fixed")
        try Self.wait(upTo: 10, "a healthy status") { try home.run(["caldav", "status", "home"]).0 == 0 }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
    }

    @Test func aServerThatIsDownIsTriedAfterWaitsThatDouble() throws {
        let (server, home) = try syncedAccount()
        server.stop()  // the port is closed from here on
        let daemon = try home.daemon()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() } }
        #expect(try home.run(["task", "done", "Tasks", "1"]).0 == 0)
        // Each failed try logs one line; when each appears is noted by polling the log until the
        // fourth try and 5 s after it (at the old 2 s rate, two more would come in those 5 s).
        func tries() -> Int { home.logText.components(separatedBy: "caldav 'home': ").count - 1 }
        try Self.wait(upTo: 10, "the first failed sync") { tries() > 0 }
        var seen = [Date()]
        var fourth: Date?
        while Date().timeIntervalSince(fourth ?? .distantFuture) < 5 && Date().timeIntervalSince(seen[0]) < 45 {
            while seen.count < tries() { seen.append(Date()) }
            if seen.count >= 4 && fourth == nil { fourth = seen[3] }
            usleep(50_000)
        }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        let gaps = zip(seen.dropFirst(), seen).map { $0.timeIntervalSince($1) }
        print("caldav backoff: \(seen.count) tries, gaps \(gaps.map { String(format: "%.1f", $0) })")
        // Waits of 2 s, 4 s, 8 s (each up to a tenth more, and up to a second to the stored whole
        // second), then 16 s: tries at about 0, 2, 6 and 14 s, none in the 5 s after. A gap never
        // falls short of its wait (the backoff's promise); it may run over by the time a loaded
        // machine takes to wake the daemon and this poll (CI runs other tests beside this one).
        #expect(seen.count == 4, "\(home.logText)")
        for (index, gap) in gaps.prefix(3).enumerated() {
            let expected = 2 * pow(2, Double(index))
            #expect(gap > expected - 0.5 && gap < expected * 1.1 + 1 + 3, "gap \(index): \(gap) s")
        }
        let (code, status) = try home.run(["caldav", "status", "home"])
        #expect(code == 1 && status.contains("backing off after \(seen.count) failed syncs: next attempt"), "\(status)")
    }
}
