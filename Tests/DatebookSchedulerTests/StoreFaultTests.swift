import DatebookCore
import DatebookDelivery
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// A tmpfs of a few MiB that the test mounts and always unmounts (the tests run as root).
final class SmallDisk {
    let path: String

    /// Whether this machine lets the test mount a tmpfs (root with CAP_SYS_ADMIN, not in a
    /// restricted container), tried once on a scratch directory.
    static let canMount: Bool = {
        guard let disk = try? SmallDisk(kibibytes: 64) else { return false }
        disk.unmount()
        return true
    }()

    init(kibibytes: Int) throws {
        path = NSTemporaryDirectory() + "datebook-disk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.command(["/usr/bin/mount", "-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Writes a file until the file system has no space left; its path.
    @discardableResult
    func fill() -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        while fd >= 0, write(fd, chunk, chunk.count) > 0 {}
        close(fd)
        return filler
    }

    func unmount() {
        _ = Self.command(["/usr/bin/umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    static func command(_ argv: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The store fails under a `tick` that is sending (issue 27): its disk fills up, or another program
/// holds its write lock past the busy timeout. Nothing is sent while an outcome cannot be recorded,
/// so nothing is sent twice, and everything is sent once the store can be written again.
@Suite(.serialized) struct StoreFaultTests {
    static let count = 100
    static let base = utc("2026-12-01T10:00:00Z")

    /// A sandbox with `count` alerts due at `base − 10m` on one sink that answers each after 50 ms.
    static func sandbox(_ sink: Sink, store: String? = nil) throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook?delay=0.05"], lead: "10m", store: store)
        try sandbox.save((0..<count).map { event("Fault \($0)", at: base) })
        return sandbox
    }

    static func keys() -> [String] { (0..<count).map { AlertKeyText.make("Fault \($0)", base, "hook") } }

    /// Waits up to `seconds` for `condition`; false when it never held.
    static func wait(seconds: Double, for condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test(.enabled(if: SmallDisk.canMount, "mounting a tmpfs is refused on this machine (needs root with CAP_SYS_ADMIN)"))
    func aDiskFillingUpWhileTickSendsHoldsTheTransfersAndSendsEachAlertOnceWhenSpaceIsBack() throws {
        let disk = try SmallDisk(kibibytes: 4096)
        defer { disk.unmount() }
        let sink = try Sink()
        let sandbox = try Self.sandbox(sink, store: disk.path + "/store.sqlite3")
        let log = sink.directory + "/tick.log"
        let now = ISOInstant.format(Self.base.addingTimeInterval(-600))
        let tick = try sandbox.start(["--now", now, "tick"], log: log)
        defer { if tick.isRunning { kill(tick.processIdentifier, SIGKILL); tick.waitUntilExit() } }
        #expect(Self.wait(seconds: 30) { sink.requestCount() >= 10 || !tick.isRunning })
        let filler = disk.fill()
        let atFill = sink.requestCount()
        #expect(Self.wait(seconds: 30) { Self.text(log).contains("the disk is full") || !tick.isRunning })
        #expect(Self.text(log).contains("cannot record"))
        #expect(Self.text(log).contains("store \(sandbox.store): the disk is full (no space left on its file system)"))
        // Held: at most what was in flight went out after the disk filled.
        #expect(sink.requestCount() <= atFill + CrashTests.inFlightBound)
        #expect(tick.isRunning)

        // Another pass meanwhile cannot write either: a temporary failure that says why.
        let later = ISOInstant.format(Self.base.addingTimeInterval(-480))
        let second = try sandbox.start(["--now", later, "tick"], log: sink.directory + "/second.log")
        second.waitUntilExit()
        #expect(second.terminationStatus == 75)
        #expect(Self.text(sink.directory + "/second.log").contains("the disk is full"))

        try FileManager.default.removeItem(atPath: filler)
        #expect(waitForExit(tick, seconds: 60))
        #expect(tick.terminationStatus == 0)
        let counts = try sink.counts()
        #expect(Self.keys().filter { counts[$0] != 1 }.isEmpty, "each alert exactly once")
        let store = try Store(path: sandbox.store)
        #expect(try store.allDeliveries().allSatisfy { $0.state == .sent || $0.state == .sentLate })
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func aWriteLockHeldByAnotherProgramPastTheBusyTimeoutHoldsTheTransfersAndNamesNoDatebook() throws {
        let sink = try Sink()
        let sandbox = try Self.sandbox(sink)
        let log = sink.directory + "/tick.log"
        let tick = try sandbox.start(["--now", ISOInstant.format(Self.base.addingTimeInterval(-600)), "tick"], log: log)
        defer { if tick.isRunning { kill(tick.processIdentifier, SIGKILL); tick.waitUntilExit() } }
        #expect(Self.wait(seconds: 30) { sink.requestCount() >= 10 || !tick.isRunning })
        // A plain sqlite3 shell takes the write lock and keeps it until told to commit.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [sandbox.store]
        let input = Pipe(), output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        defer { if shell.isRunning { kill(shell.processIdentifier, SIGKILL); shell.waitUntilExit() } }
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            said += chunk
        }
        let atLock = sink.requestCount()
        #expect(Self.wait(seconds: 30) { Self.text(log).contains("cannot record") || !tick.isRunning })
        #expect(Self.text(log).contains("is locked by another program"))
        #expect(!Self.text(log).contains("another datebook process"))
        #expect(sink.requestCount() <= atLock + CrashTests.inFlightBound)
        input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        shell.waitUntilExit()
        #expect(waitForExit(tick, seconds: 60))
        #expect(tick.terminationStatus == 0)
        let counts = try sink.counts()
        #expect(Self.keys().filter { counts[$0] != 1 }.isEmpty, "each alert exactly once")
        #expect(try Store(path: sandbox.store).integrityCheck() == "ok")
    }

    /// A large import into an empty store keeps its batches' rows in a scratch file until the end
    /// (`ImportRuns`, in `$TMPDIR`). When that folder is full the import fails at once, saying where
    /// and why, exits 75 (try again) and keeps nothing; with room, the same import keeps every event
    /// and leaves nothing in the folder.
    @Test(.enabled(if: SmallDisk.canMount, "mounting a tmpfs is refused on this machine (needs root with CAP_SYS_ADMIN)"))
    func aLargeImportWhoseScratchFolderIsFullFailsNamingItAndKeepsNothing() throws {
        let disk = try SmallDisk(kibibytes: 256)
        defer { disk.unmount() }
        let folder = ScratchFolder("scratch-import")
        let ics = folder.path + "/big.ics"
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//test//EN\r\n"
        for n in 0..<10_000 {
            text += "BEGIN:VEVENT\r\nUID:e\(n)@example.org\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\n"
                + "SUMMARY:Event \(n)\r\nEND:VEVENT\r\nBEGIN:VTODO\r\nUID:t\(n)@example.org\r\nRELATED-TO:e\(n)@example.org\r\n"
                + "SUMMARY:Task \(n)\r\nEND:VTODO\r\n"
        }
        try (text + "END:VCALENDAR\r\n").write(toFile: ics, atomically: true, encoding: .utf8)
        let store = folder.path + "/store.sqlite3"
        let environment = ["HOME": folder.path, "DATEBOOK_STORE": store, "PATH": "/usr/bin:/bin", "DATEBOOK_TZ": "Europe/Berlin"]

        let full = try runDatebook(["import", ics], environment: environment.merging(["TMPDIR": disk.path]) { $1 })
        #expect(full.code == 75, "\(full.err)")
        #expect(full.err.contains("store \(store): the import's scratch file in \(disk.path) could not be written: No space left on device"),
                "\(full.err)")
        #expect(try Store(path: store).eventCount() == 0)

        let roomy = folder.path + "/tmp"
        try FileManager.default.createDirectory(atPath: roomy, withIntermediateDirectories: true)
        let fine = try runDatebook(["import", ics], environment: environment.merging(["TMPDIR": roomy]) { $1 })
        #expect(fine.code == 0, "\(fine.err)")
        let imported = try Store(path: store)
        #expect(try imported.eventCount() == 10_000)
        #expect(try imported.events(titled: "Event 9999").first?.tasks.map(\.text) == ["Task 9999"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: roomy).isEmpty)
    }
}
