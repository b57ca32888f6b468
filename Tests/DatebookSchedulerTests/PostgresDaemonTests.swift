import DatebookCore
import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook run` on a PostgreSQL store, as a real process on the real clock: woken by `NOTIFY`
/// when another connection commits, and carrying on through lost connections and a server restart.
@Suite(.serialized) struct PostgresDaemonTests {
    /// A daemon on `url` with its log; stopped (SIGKILL) by the caller's `defer`.
    struct Daemon {
        let sink: Sink
        let sandbox: ProcessSandbox
        let process: Process
        let log: String

        init(url: String, hook: String = "/hook") throws {
            sink = try Sink()
            sandbox = try ProcessSandbox(sink: sink, channels: ["hook": hook], lead: "10m", store: url)
            log = sandbox.directory + "/run.log"
            process = try sandbox.start(["run"], log: log)
        }

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Waits up to `seconds` for a log line containing `text`.
        func waitForLog(_ text: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !logText.contains(text), Date() < deadline { usleep(20_000) }
            return logText.contains(text)
        }

        /// Adds (through another connection) an event whose 10-minute alert is due `dueIn` seconds
        /// from now (whole seconds), and returns that alert's ledger key and due time.
        func addAlert(_ title: String, dueIn: Double = 0) throws -> (key: String, due: Date) {
            let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + dueIn).rounded(.down))
            try sandbox.save([event(title, at: due.addingTimeInterval(600))])
            return (AlertKeyText.make(title, due.addingTimeInterval(600), "hook"), due)
        }

        /// The times the sink received `key`, waiting up to `seconds` for the first.
        func deliveries(of key: String, within seconds: Double) throws -> [Double] {
            let deadline = Date().addingTimeInterval(seconds)
            while !(try sink.requests().contains { $0.key == key }), Date() < deadline { usleep(20_000) }
            return try sink.requests().filter { $0.key == key }.map(\.time)
        }

        /// User and system CPU time the process used so far, in clock ticks (`/proc/PID/stat`).
        var cpuTicks: Int {
            let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            // After the name: state is field 3, utime 14 and stime 15 (1-based) of the whole line.
            return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }

        func stop() -> Bool {
            kill(process.processIdentifier, SIGTERM)
            return waitForExit(process, seconds: 60) && process.terminationStatus == 0
        }
    }

    /// A password in `--store` on the command line (issue 30): hidden from `/proc/PID/cmdline` (what
    /// `ps` shows) once the daemon has started, and a warning names the ways that never show it.
    @Test func aPasswordInStoreOnTheCommandLineIsHiddenFromThePsAndWarnedAbout() throws {
        let url = try TestPostgres.shared().makeDatabase().replacingOccurrences(of: "postgres@", with: "postgres:s3cret-pw@")
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "10m", store: url)
        let log = sandbox.directory + "/run.log"
        let process = try sandbox.start(["run", "--store", url], log: log)
        defer { Reaper.stop(process) }
        let deadline = Date().addingTimeInterval(20)
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        while !logText().contains("started"), Date() < deadline { usleep(20_000) }
        try #require(logText().contains("started"), "\(logText())")
        let commandLine = String(decoding: FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/cmdline") ?? Data(),
                                 as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
        #expect(!commandLine.contains("s3cret-pw") && commandLine.contains("postgres:*********@"), "\(commandLine)")
        #expect(logText().contains("warning: the store's password was on the command line"), "\(logText())")
        #expect(!logText().contains("s3cret-pw"))
    }

    /// The daemon sleeps on its one-minute timer: only the NOTIFY of the commit can wake it in time.
    @Test func anAlertAlreadyDueFromAnotherConnectionIsSentWithinSeconds() throws {
        let daemon = try Daemon(url: try TestPostgres.shared().makeDatabase())
        defer { Reaper.stop(daemon.process) }
        try #require(daemon.waitForLog("started", seconds: 20), "\(daemon.logText)")
        #expect(!daemon.logText.contains("noticed within a minute"), "\(daemon.logText)")
        usleep(1_500_000)  // the first pass is over; nothing is due for a minute
        let (key, _) = try daemon.addAlert("Added on another machine")
        let added = Date().timeIntervalSince1970
        let times = try daemon.deliveries(of: key, within: 60)
        #expect(times.count == 1, "\(daemon.logText)")
        if let time = times.first {
            print("PostgreSQL wake-up: alert sent \(String(format: "%.3f", time - added)) s after the add's commit")
            // Woken by the NOTIFY, not by its one-minute timer; how fast is bench/'s question.
            #expect(time - added < 30)
        }
        // Alive in the store's schedulers while it runs, named as the sender of the alert, gone once stopped.
        let store = try StoreOpener.open(daemon.sandbox.store)
        let claimant = Scheduler.hostName + ":\(daemon.process.processIdentifier)"
        #expect(try store.schedulers(seenSince: Date().addingTimeInterval(-60)).map(\.claimant) == [claimant])
        // The outcome is recorded once the transfer ends, a moment after the sink has the request.
        let recorded = Date().addingTimeInterval(10)
        while try store.delivery(key: key)?.settledBy == nil, Date() < recorded { usleep(20_000) }
        #expect(try store.delivery(key: key)?.settledBy == claimant)
        // Idle, it waits on a socket and its timer: no polling.
        usleep(1_000_000)
        let before = daemon.cpuTicks
        usleep(5_000_000)
        let used = daemon.cpuTicks - before
        print("idle daemon on PostgreSQL: \(used) CPU ticks in 5 s, RSS \(WaitingProcesses.residentKilobytes(daemon.process.processIdentifier) ?? 0) kB (debug build)")
        #expect(used <= 5, "\(used) ticks of CPU in 5 idle seconds")
        #expect(daemon.stop())
        #expect(try store.schedulers(seenSince: .distantPast).isEmpty)
    }

    /// Each add wakes a pass; each alert fell due before the pass the previous add woke, so only
    /// the look back for changed events (docs/scheduler.md, "Late changes") plans it.
    @Test func threeAddsWhoseAlertsWereDueBeforeThePreviousPassAreAllSent() throws {
        let daemon = try Daemon(url: try TestPostgres.shared().makeDatabase())
        defer { Reaper.stop(daemon.process) }
        try #require(daemon.waitForLog("started", seconds: 20), "\(daemon.logText)")
        usleep(1_500_000)
        var keys: [String] = []
        for n in 1...3 {
            keys.append(try daemon.addAlert("Late add \(n)", dueIn: -120).key)
            usleep(700_000)
        }
        let added = Date().timeIntervalSince1970
        for key in keys {
            let times = try daemon.deliveries(of: key, within: 60)
            #expect(times.count == 1, "\(key): \(daemon.logText)")
            if let time = times.first { #expect(time - added < 30) }  // not at the one-minute timer
        }
        let store = try StoreOpener.open(daemon.sandbox.store)
        #expect(try keys.map { try store.delivery(key: $0)?.state } == [.sentLate, .sentLate, .sentLate])
        #expect(daemon.stop())
    }

    @Test func theDaemonReconnectsAfterItsConnectionsAreTerminated() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let daemon = try Daemon(url: url)
        defer { Reaper.stop(daemon.process) }
        try #require(daemon.waitForLog("started", seconds: 20), "\(daemon.logText)")
        usleep(1_000_000)
        let ended = try server.terminateConnections(database: URL(string: url)?.lastPathComponent ?? "")
        #expect(ended >= 2)  // the daemon's own connection and its listener
        #expect(daemon.waitForLog("listening for changes again", seconds: 20), "\(daemon.logText)")
        #expect(daemon.logText.contains("; listening for changes again in 0.5 s"), "\(daemon.logText)")
        let (key, _) = try daemon.addAlert("Added after the cut")
        let added = Date().timeIntervalSince1970
        let times = try daemon.deliveries(of: key, within: 60)
        #expect(times.count == 1, "\(daemon.logText)")
        if let time = times.first { #expect(time - added < 30) }  // not at the one-minute timer
        #expect(daemon.process.isRunning)
        #expect(daemon.stop())
    }

    /// An alert that falls due while the server is down goes out once it is back; so does one added after.
    @Test func theDaemonCarriesOnAfterPostgreSQLRestarts() throws {
        let server = try TestPostgres()  // its own: a restart would cut the shared server's other tests
        defer { server.stop() }
        let daemon = try Daemon(url: try server.makeDatabase())
        defer { Reaper.stop(daemon.process) }
        try #require(daemon.waitForLog("started", seconds: 20), "\(daemon.logText)")
        usleep(1_000_000)
        let (duringKey, _) = try daemon.addAlert("Due while the server is down", dueIn: 1)
        try server.restart(pause: 3)
        #expect(daemon.waitForLog("listening for changes again", seconds: 40), "\(daemon.logText)")
        let (afterKey, _) = try daemon.addAlert("Added after the restart")
        #expect(try daemon.deliveries(of: afterKey, within: 15).count == 1, "\(daemon.logText)")
        #expect(try daemon.deliveries(of: duringKey, within: 5).count == 1, "\(daemon.logText)")
        // Down for 3 s, the passes back off (0.5 s, 1 s, 2 s, …): a few failed passes, not a spin.
        let failed = daemon.logText.components(separatedBy: "pass failed").count - 1
        #expect(failed <= 8, "\(failed) failed passes:\n\(daemon.logText)")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop())
    }

    /// A delivery in flight while the server restarts is recorded once the server is back: sent
    /// once, settled by the daemon, not left `sending` until its lease runs out.
    @Test func aDeliveryInFlightDuringARestartSettlesOnceTheServerIsBack() throws {
        let server = try TestPostgres()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let daemon = try Daemon(url: url, hook: "/hook?delay=3")
        defer { Reaper.stop(daemon.process) }
        try #require(daemon.waitForLog("started", seconds: 20), "\(daemon.logText)")
        usleep(1_000_000)
        let (key, _) = try daemon.addAlert("In flight during the restart")
        try #require(try daemon.deliveries(of: key, within: 10).count == 1, "\(daemon.logText)")
        try server.restart(pause: 1)  // the channel answers 3 s after the request
        let store = try StoreOpener.open(url)
        let deadline = Date().addingTimeInterval(30)
        while try store.delivery(key: key)?.state != .sent, Date() < deadline { usleep(100_000) }
        let entry = try store.delivery(key: key)
        #expect(entry?.state == .sent, "\(daemon.logText)")
        #expect(entry?.settledBy == Scheduler.hostName + ":\(daemon.process.processIdentifier)")
        #expect(try daemon.deliveries(of: key, within: 0).count == 1)
        #expect(daemon.stop())
    }
}
