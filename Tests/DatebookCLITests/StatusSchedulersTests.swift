@testable import DatebookCLI
import DatebookCore
@testable import DatebookDaemon
import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook status`: the schedulers alive and who sent what, the same on SQLite and PostgreSQL.
struct StatusSchedulersTests {
    @Test func statusListsLiveSchedulersAndWhoSentEachDeliveryOnBothBackends() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let now = try #require(ISOInstant.parse("2026-12-04T12:31:00Z"))  // the sandbox's 13:31 in Berlin
        var outputs: [String] = []
        for backend in ["sqlite", "postgresql"] {
            var sandbox = Sandbox()
            sandbox.now = "2026-12-04 13:31"
            let config = try sandbox.writeConfig("""
                { channels: { hook: { type: "webhook", url: "\(sink.baseURL)/\(backend)" } }, alerts: { channels: ["hook"] } }
                """)
            let location = backend == "sqlite" ? sandbox.store : try TestPostgres.shared().makeDatabase()
            let file = sandbox.home + "/planner.json"
            try PostgresCommandTests.planner.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(sandbox.run(["import", file], storePath: location).code == 0)
            #expect(sandbox.run(["--config", config, "tick"], storePath: location).code == 0)
            let store = try StoreOpener.open(location)
            let hour = now.addingTimeInterval(-3600)
            try store.recordScheduler(SchedulerInstance(host: "kitchen", pid: 41, version: "0.1.0", started: hour,
                                                        lastSeen: now.addingTimeInterval(-20)))
            try store.recordScheduler(SchedulerInstance(host: "attic", pid: 7, version: "0.1.0", started: hour,
                                                        lastSeen: now.addingTimeInterval(-600)))
            let status = sandbox.run(["--config", config, "status"], storePath: location)
            #expect(status.code == 0, "\(status.err)")
            // The tick ran in this process: its claimant is this host and pid.
            outputs.append(status.out.replacingOccurrences(of: Scheduler.hostName + ":\(getpid())", with: "HOST:PID"))
        }
        #expect(outputs[1] == outputs[0])
        #expect(outputs[0].contains("  kitchen:41  since "), "\(outputs[0])")
        #expect(!outputs[0].contains("attic:7"), "a scheduler not seen for 10 minutes is not alive")
        #expect(outputs[0].contains(" to hook by HOST:PID\n"), "\(outputs[0])")
        snapshots.expect(outputs[0], named: "status-schedulers.txt")
    }

    /// A store that cannot be written (read-only here; a PostgreSQL server down in practice) misses
    /// a beat: the next one is still 30 s away, so the daemon's loop never spins on it.
    @Test func aHeartbeatThatCannotBeWrittenWaitsForTheNextBeat() throws {
        let sandbox = Sandbox()
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-12-04 10:00"]).code == 0)
        let readOnly = try Store(path: sandbox.store, readOnly: true)
        let start = Date(timeIntervalSince1970: 1_796_025_600)
        var heartbeat = Heartbeat(started: start, version: Datebook.version)
        #expect(heartbeat.isDue(now: start))
        heartbeat.beat(readOnly, now: start)
        #expect(heartbeat.nextBeat(now: start.addingTimeInterval(1)) == 29)
        #expect(try readOnly.schedulers(seenSince: .distantPast).isEmpty)
        let writable = try Store(path: sandbox.store)
        heartbeat.beat(writable, now: start.addingTimeInterval(30))
        #expect(try writable.schedulers(seenSince: .distantPast).map(\.lastSeen) == [start.addingTimeInterval(30)])
    }

    /// What the daemon asks before each beat: the file still holds the last beat written. Another
    /// store's bytes copied over it do not (the daemon then looks at the content before writing).
    @Test func aBeatIsHeldUntilOtherContentIsCopiedOverTheFile() throws {
        let sandbox = Sandbox()
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-12-04 10:00"]).code == 0)
        let other = Sandbox()
        #expect(other.run(["add", "Plumber", "--at", "2026-12-05 10:00"]).code == 0)
        let start = Date(timeIntervalSince1970: 1_796_025_600)
        var heartbeat = Heartbeat(started: start, version: Datebook.version)
        #expect(heartbeat.isHeld(inFile: sandbox.store), "before a beat: nothing to look for")
        do {
            let store = try Store(path: sandbox.store)
            heartbeat.beat(store, now: start)
            try store.emptyLog()
        }
        #expect(heartbeat.isHeld(inFile: sandbox.store))
        try Data(contentsOf: URL(fileURLWithPath: other.store)).write(to: URL(fileURLWithPath: sandbox.store))
        #expect(!heartbeat.isHeld(inFile: sandbox.store))
    }
}
