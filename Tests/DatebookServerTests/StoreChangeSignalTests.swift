@testable import DatebookServer
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// `StoreChangeSignal` (the `-shm` mapping and the inotify watch behind `StoreCache`'s key) gives the
/// answer of the plain check: after every change another process makes, the cached value is what a
/// fresh read of the store says.
struct StoreChangeSignalTests {
    /// What the cache under test keeps: the store's content read through a new read-only connection.
    static func content(_ path: String) throws -> Int {
        Int(try Store.openForReading(path).integer("SELECT coalesce(sum(v), 0) * 1000 + count(*) FROM t"))
    }

    /// Threads at once (more than there are watches, so some share one and some wait) each get
    /// the plain check's answer after every commit.
    @Test func threadsCheckingAtOnceEachGetThePlainAnswer() throws {
        let directory = makeScratchFolder("change-signal-threads")
        defer { removeScratchFolder(directory) }
        let store = directory + "/store.sqlite3"
        let changes = StoreChangeSignal()
        let writer = try SQLiteWriter(store)
        defer { try? writer.close() }
        try writer.run("CREATE TABLE t (v INTEGER)")
        let wrong = Mutex<[String]>([])
        for round in 0..<30 {
            try writer.run("INSERT INTO t VALUES (\(round))")
            let plain = StoreCache<Int>.plainSignature(store)
            DispatchQueue.concurrentPerform(iterations: 6) { thread in
                for _ in 0..<20 {
                    let got = changes.signature(of: store, plain: StoreCache<Int>.plainSignature)
                    if got != plain { wrong.withLock { $0.append("round \(round), thread \(thread): \(got) ≠ \(plain)") } }
                }
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
    }

    @Test func theCachedValueIsTheStoresAfterEveryKindOfChangeByAnotherProcess() throws {
        let directory = makeScratchFolder("change-signal")
        defer { removeScratchFolder(directory) }
        let store = directory + "/store.sqlite3"
        let cache = StoreCache<Int>()
        func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let cached = try cache.value(storePath: store) { _ in try Self.content(store) }
            #expect(cached == (try Self.content(store)), "after \(step)", sourceLocation: sourceLocation)
        }

        var writer = try SQLiteWriter(store)
        try writer.run("CREATE TABLE t (v INTEGER)")
        try writer.run("INSERT INTO t VALUES (1)")
        try check("the first commit")
        // Unchanged: the answer comes from the mapped header, no plain check.
        let plainBefore = cache.changes.plainChecks.withLock { $0 }
        for _ in 0..<20 { try check("nothing") }
        #expect(cache.changes.plainChecks.withLock { $0 } == plainBefore, "the plain check ran while nothing changed")

        for value in 2...5 {
            try writer.run("INSERT INTO t VALUES (\(value))")
            try check("a commit by another process (\(value))")
        }
        try writer.run("PRAGMA wal_checkpoint(PASSIVE)")
        try check("a checkpoint")
        // The next commit starts the write-ahead log again from its first frame, at the same size.
        try writer.run("INSERT INTO t VALUES (6)")
        try check("a WAL reset")
        try writer.run("UPDATE t SET v = 7 WHERE v = 6")
        try check("a commit after the reset")

        // The last connection's close removes -wal and -shm; the next writer makes a new -shm.
        try writer.close()
        try check("the last connection closed")
        writer = try SQLiteWriter(store)
        try writer.run("INSERT INTO t VALUES (8)")
        try check("a commit into a new -shm")
        try writer.close()

        // A -shm too short to hold the header (left by a crash; SQLite rebuilds it at the next
        // opening): a short read, the plain check (a page mapped past its end would be SIGBUS).
        #expect(FileManager.default.createFile(atPath: store + "-shm", contents: Data()))
        try check("an empty -shm")
        writer = try SQLiteWriter(store)
        try writer.run("INSERT INTO t VALUES (9)")
        try check("a commit after the -shm was rebuilt")
        try writer.close()

        // A store with other content moved in place under the live cache, then written to.
        let other = directory + "/other.sqlite3"
        var replacement = try SQLiteWriter(other)
        try replacement.run("CREATE TABLE t (v INTEGER)")
        try replacement.run("INSERT INTO t VALUES (100)")
        try replacement.close()
        #expect(rename(other, store) == 0)
        try check("a store moved in place")
        replacement = try SQLiteWriter(store)
        try replacement.run("INSERT INTO t VALUES (200)")
        try check("a commit into the moved store")
        try replacement.close()
    }

    /// A store path through a symbolic link: always the plain check, which reads `-wal` and `-shm`
    /// beside the link's target, where SQLite keeps them.
    @Test func aStoreThroughASymbolicLinkTakesThePlainCheck() throws {
        let directory = makeScratchFolder("change-signal-link")
        defer { removeScratchFolder(directory) }
        try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: true)
        let writer = try SQLiteWriter(directory + "/real/store.sqlite3")
        try writer.run("CREATE TABLE t (v INTEGER)")
        try FileManager.default.createSymbolicLink(atPath: directory + "/store.sqlite3", withDestinationPath: directory + "/real/store.sqlite3")
        let cache = StoreCache<Int>()
        for value in 1...3 {
            try writer.run("INSERT INTO t VALUES (\(value))")
            let cached = try cache.value(storePath: directory + "/store.sqlite3") { _ in try Self.content(directory + "/store.sqlite3") }
            #expect(cached == value * (value + 1) / 2 * 1000 + value)
        }
        #expect(cache.changes.plainChecks.withLock { $0 } == 3)
        try writer.close()
    }
}

/// Another process holding a SQLite connection (WAL mode) and running one statement per line.
final class SQLiteWriter {
    let process = Process()
    let input = Pipe(), output = Pipe()

    static let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        print("ok", flush=True)
        for line in sys.stdin:
            if line.strip() == "close":
                db.close()
                print("ok", flush=True)
                break
            db.execute(line).fetchall()
            print("ok", flush=True)
        """

    init(_ path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script, path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        Reaper.watch(process)
        try answered()
    }

    /// Runs `sql` and waits until it is committed.
    func run(_ sql: String) throws {
        input.fileHandleForWriting.write(Data((sql + "\n").utf8))
        try answered()
    }

    /// Closes the connection (the last one checkpoints and removes `-wal` and `-shm`) and waits for the process.
    func close() throws {
        try run("close")
        process.waitUntilExit()
        Reaper.forget(group: process.processIdentifier)
    }

    private func answered() throws {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ServerError("the SQLite writer ended early") }
            line.append(chunk)
        }
        guard line == Data("ok\n".utf8) else { throw ServerError("the SQLite writer said \(String(decoding: line, as: UTF8.self))") }
    }

    deinit { Reaper.stop(process) }
}
