import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// The store file replaced, moved over, copied over or deleted under a live `run` (issue 27): the
/// daemon stops using the old file (or content) at its next wake-up and opens the new one; an alert
/// due a few seconds later in the new file is sent on time, and the new file stays intact.
@Suite(.serialized) struct ReplacedStoreTests {
    enum Fault: String, CaseIterable {
        /// `mv backup.sqlite3 datebook.sqlite3`
        case movedOver
        /// `rm datebook.sqlite3`, then a new store is made there (`datebook add`)
        case deleted
        /// `cp backup.sqlite3 datebook.sqlite3`: the same file (device and inode), other content
        case copiedOver
        /// `datebook store restore backup.sqlite3`, the safe way
        case restored
    }

    /// A whole store file at `path` holding `events`, closed (its write-ahead log folded in).
    static func writeBackup(_ path: String, _ events: [Event]) throws {
        let store = try Store(path: path)
        try store.save(events)
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// The size of the store's write-ahead log, 0 when there is none.
    static func logSize(_ store: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: store + "-wal"))?[.size] as? Int) ?? 0
    }

    /// The deleted files a process has open (`/proc/PID/fd` links ending in " (deleted)").
    static func deletedFilesOpen(by pid: Int32) -> [String] {
        let directory = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)).flatMap { $0.hasSuffix(" (deleted)") ? $0 : nil }
        }
    }

    @Test(arguments: Fault.allCases)
    func anAlertInTheNewStoreIsSentOnTimeAndTheStoreStaysIntact(_ fault: Fault) throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "10m")
        // The running store has many events, so a stale write-ahead log would reach pages the new file uses.
        try sandbox.save((0..<300).map { event("Old \($0)", at: Date().addingTimeInterval(86_400 + Double($0) * 60)) })
        let log = sandbox.directory + "/run.log"
        let daemon = try sandbox.start(["run"], log: log)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() } }
        #expect(StoreFaultTests.wait(seconds: 20) { Self.text(log).contains("started") })
        // Written after the daemon opened the store: in its write-ahead log.
        try sandbox.save((0..<100).map { event("Later \($0)", at: Date().addingTimeInterval(2 * 86_400 + Double($0) * 60)) })

        let backup = sandbox.directory + "/backup.sqlite3"
        let due = DaemonTests.wholeSecondsFromNow(5)
        let newEvent = event("In the new store", at: due.addingTimeInterval(600))
        switch fault {
        case .movedOver:
            try Self.writeBackup(backup, (0..<50).map { event("Fresh \($0)", at: Date().addingTimeInterval(3 * 86_400 + Double($0) * 60)) }
                                 + [newEvent])
            #expect(rename(backup, sandbox.store) == 0)
            #expect(StoreFaultTests.wait(seconds: 10) { Self.text(log).contains("now names another file") })
        case .deleted:
            #expect(unlink(sandbox.store) == 0)
            #expect(StoreFaultTests.wait(seconds: 10) { Self.text(log).contains("is gone") }, "daemon log: \(Self.text(log)); files: \((try? FileManager.default.contentsOfDirectory(atPath: sandbox.directory)) ?? [])")
            try sandbox.save([newEvent])
            #expect(StoreFaultTests.wait(seconds: 10) { Self.text(log).contains("is there again") }, "daemon log: \(Self.text(log))")
        case .copiedOver:
            try Self.writeBackup(backup, (0..<50).map { event("Fresh \($0)", at: Date().addingTimeInterval(3 * 86_400 + Double($0) * 60)) }
                                 + [newEvent])
            // The daemon's pass for the later events folds its log into the file when it ends: an idle
            // daemon's file is whole, so the copy meets no log of the old content.
            #expect(StoreFaultTests.wait(seconds: 20) { Self.logSize(sandbox.store) == 0 }, "daemon log: \(Self.text(log))")
            let copy = Process()
            copy.executableURL = URL(fileURLWithPath: "/bin/cp")
            copy.arguments = [backup, sandbox.store]
            try copy.run()
            copy.waitUntilExit()
            #expect(copy.terminationStatus == 0)
            #expect(StoreFaultTests.wait(seconds: 10) { Self.text(log).contains("has other content") }, "daemon log: \(Self.text(log))")
        case .restored:
            try Self.writeBackup(backup, [newEvent])
            let restore = try sandbox.start(["store", "restore", backup])
            restore.waitUntilExit()
            #expect(restore.terminationStatus == 0)
        }
        // No longer used is closed: no descriptor of the daemon names the old file (its space is freed,
        // and its write-ahead log index is not shared with the new file's).
        if fault == .movedOver || fault == .deleted {
            #expect(StoreFaultTests.wait(seconds: 10) { Self.deletedFilesOpen(by: daemon.processIdentifier).isEmpty },
                    "\(Self.deletedFilesOpen(by: daemon.processIdentifier))")
        }
        let key = AlertKeyText.make("In the new store", due.addingTimeInterval(600), "hook")
        #expect(StoreFaultTests.wait(seconds: 20) { (try? sink.counts()[key]) == 1 }, "daemon log: \(Self.text(log)); files: \((try? FileManager.default.contentsOfDirectory(atPath: sandbox.directory)) ?? [])")
        let sent = try #require(try sink.requests().first { $0.key == key })
        #expect(sent.time >= due.timeIntervalSince1970 - 0.05)
        #expect(sent.time - due.timeIntervalSince1970 < 5)
        // status tells the truth: the daemon alive in the new content, the alert sent by it.
        let status = try runDatebook(["status"], environment: sandbox.environment)
        let claimant = Scheduler.hostName + ":\(daemon.processIdentifier)"
        #expect(StoreFaultTests.wait(seconds: 10) {
            (try? runDatebook(["status"], environment: sandbox.environment).out.contains("\n  \(claimant)  since ")) == true
        }, "\(status.out)")
        #expect(try runDatebook(["status"], environment: sandbox.environment).out.contains("alert 'In the new store' (10m before) to hook by \(claimant)"))
        #expect(!Self.text(log).contains("damaged"), "\(Self.text(log))")
        kill(daemon.processIdentifier, SIGTERM)
        #expect(waitForExit(daemon, seconds: 10))
        #expect(daemon.terminationStatus == 0)
        let store = try Store(path: sandbox.store)
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.delivery(key: key)?.state == .sent)
        try? FileManager.default.removeItem(atPath: backup)
    }

    @Test func aBackupIsAnIntactCopyNeverWrittenOverAFileAndRestoreRefusesWhatIsNotAStore() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "10m")
        try sandbox.save((0..<200).map { event("Event \($0)", at: Date().addingTimeInterval(86_400 + Double($0) * 60)) })
        let backup = sandbox.directory + "/backup.sqlite3"
        #expect(try sandbox.run(["store", "backup", backup]) == 0)
        let copy = try Store(path: backup, readOnly: true)
        #expect(try copy.integrityCheck() == "ok")
        #expect(try copy.eventCount() == 200)
        #expect(try sandbox.run(["store", "backup", backup]) != 0)  // never over an existing file
        let junk = sandbox.directory + "/junk.sqlite3"
        try "not a database".write(toFile: junk, atomically: true, encoding: .utf8)
        let refused = try sandbox.start(["store", "restore", junk], log: sandbox.directory + "/restore.log")
        refused.waitUntilExit()
        #expect(refused.terminationStatus == 65)
        #expect(Self.text(sandbox.directory + "/restore.log").contains("store restore: \(junk) is not a datebook store (not SQLite); "
                                                                       + "the store \(sandbox.store) was left as it was"))
        #expect(try Store(path: sandbox.store).eventCount() == 200)
    }
}
