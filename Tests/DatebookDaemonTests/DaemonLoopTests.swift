import DatebookCore
import DatebookDaemon
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import DatebookSync
import DatebookTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// `Daemon` driven in the test's own process, without `datebook run`: a pass at start, a wake-up
/// that reloads the config, and a stop that waits for the passes and removes the daemon's row.
/// Serialized: a daemon handles SIGTERM, SIGINT and SIGHUP for the whole process while it lives.
@Suite(.serialized) struct DaemonLoopTests {
    /// The daemon's log lines, with a wait for one to appear.
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        private let added = DispatchSemaphore(value: 0)

        func write(_ line: String) {
            lines.withLock { $0.append(line) }
            added.signal()
        }

        var all: [String] { lines.withLock { $0 } }

        /// Waits (at most a minute) until a line holds `text`.
        func wait(for text: String) -> Bool {
            let deadline = DispatchTime.now() + .seconds(60)
            while !all.contains(where: { $0.contains(text) }) {
                if added.wait(timeout: deadline) == .timedOut { return false }
            }
            return true
        }
    }

    /// A value shared with the threads that watch the daemon.
    final class Shared<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        var current: Value { value.withLock { $0 } }
        func update(_ change: (inout Value) -> Void) { value.withLock { change(&$0) } }
    }

    /// No CalDAV account is ever reached in these tests.
    struct NoAccounts: CalDAVAccountAccess {
        struct Refused: Error {}
        func register(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                      environment: [String: String]) throws -> [CalDAVCalendar] { throw Refused() }
        func refreshed(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                       environment: [String: String]) throws -> (found: [CalDAVCalendar], stopped: [CalDAVCalendar]) { throw Refused() }
        func discover(_ account: CalDAVAccount, chosen: [String], config: Config, environment: [String: String],
                      verb: String) throws -> [CalDAVCalendar] { throw Refused() }
        func client(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> CalDAVClient { throw Refused() }
        func password(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> String { throw Refused() }
        func describe(_ error: any Error) -> String { "\(error)" }
    }

    /// Waits (at most a minute) until `condition` holds, looking again every 20 ms.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    @Test func aPassRunsAtStartAReloadWakesTheLoopAndAStopEndsItWithoutItsRow() throws {
        let folder = ScratchFolder("daemon-loop")
        let path = folder.file("datebook.sqlite3")
        let log = Log()
        let reloads = Shared(0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let host = Daemon.Host(
            storePath: path, configPath: folder.file("config.json5"), config: Config(), calendar: calendar, environment: [:],
            version: "test", openStore: { try StoreOpener.open(path) },
            scheduler: { Scheduler(store: $0, config: $1, calendar: calendar) },
            digestRenderer: { _ in PlainDigestRenderer() },
            reloadConfig: {
                reloads.update { $0 += 1 }
                return Config()
            },
            accounts: NoAccounts(), log: { log.write($0) })
        let daemon = try Daemon(host)
        let wakeups = daemon.wakeups
        // The loop runs on this thread; another one watches it and wakes it.
        let watched = Shared<[String: Bool]>([:])
        let watcher = DispatchSemaphore(value: 0)
        Thread {
            defer { wakeups.post(.stop) }
            defer { watcher.signal() }
            let started = log.wait(for: "started (pid")
            guard let observer = try? Store(path: path) else { return }
            let passed = (try? DaemonLoopTests.eventually { try observer.lastPass() != nil }) ?? false
            let listed = (try? DaemonLoopTests.eventually { try !observer.schedulers(seenSince: .distantPast).isEmpty }) ?? false
            wakeups.post(.reload)
            let reloaded = log.wait(for: "config reloaded from " + folder.file("config.json5"))
            watched.update { $0 = ["started": started, "passed": passed, "listed": listed, "reloaded": reloaded] }
        }.start()
        try daemon.run()
        watcher.wait()
        #expect(watched.current == ["started": true, "passed": true, "listed": true, "reloaded": true])
        #expect(reloads.current == 1)
        #expect(log.all.last == "stopping: in-flight deliveries finished")
        #expect(try Store(path: path).schedulers(seenSince: .distantPast).isEmpty)
    }

    /// Wake-ups for other reasons (store changes, passes ending) all around an alert's due moment:
    /// the first one after it starts the pass, though the next due moment read then is later (else
    /// the loop sleeps on to its heartbeat, 30 s late, or for as long as the wake-ups go on).
    @Test func aWakeUpStormAroundTheDueMomentStillSendsTheAlert() throws {
        let folder = ScratchFolder("daemon-storm")
        let path = folder.file("datebook.sqlite3")
        let out = folder.file("alerts.txt")
        let log = Log()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.up))
        try Store(path: path).save(Event(id: "storm", title: "Stormy", start: .instant(due.addingTimeInterval(60)), timeZone: "UTC",
                                         symbol: .star, color: .primary))
        let config = Config(timeZone: "UTC", channels: [Channel(name: "file", kind: .file(path: out, format: .text))],
                            alerts: AlertPolicy(before: [LeadTime(seconds: 60)], channels: ["file"]))
        let host = Daemon.Host(
            storePath: path, configPath: folder.file("config.json5"), config: config, calendar: calendar, environment: [:],
            version: "test", openStore: { try StoreOpener.open(path) },
            scheduler: { Scheduler(store: $0, config: $1, calendar: calendar, log: { log.write($0) }) },
            digestRenderer: { _ in PlainDigestRenderer() }, reloadConfig: { config },
            accounts: NoAccounts(), log: { log.write($0) })
        let daemon = try Daemon(host)
        let wakeups = daemon.wakeups
        let sentAt = Shared<Date?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            defer { wakeups.post(.stop) }
            _ = log.wait(for: "started (pid")
            // From a second before the due moment to 3 s after it, a store-change wake-up every
            // millisecond (nothing changed: no pass of its own); the alert is looked for meanwhile.
            let storm = due.addingTimeInterval(-1)
            while Date() < storm { Thread.sleep(forTimeInterval: 0.01) }
            while Date() < due.addingTimeInterval(3) {
                wakeups.post(.storeChanged)
                if sentAt.current == nil, FileManager.default.fileExists(atPath: out) { sentAt.update { $0 = Date() } }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }.start()
        try daemon.run()
        done.wait()
        let sent = try #require(sentAt.current, "\(log.all)")
        #expect(sent.timeIntervalSince(due) < 2, "\(log.all)")
        #expect(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("Stormy"))
    }

    @Test func aDaemonGoneLeavesTheSignalsAsTheyWere() throws {
        let folder = ScratchFolder("daemon-signals")
        do {
            let wakeups = Wakeups(watchingStore: folder.file("datebook.sqlite3"))
            #expect(wakeups.watchesStore)
        }
        var action = sigaction()
        #expect(sigaction(SIGTERM, nil, &action) == 0)
        #expect(action.__sigaction_handler.sa_handler == nil)  // SIG_DFL
    }
}
