import CSQLite
import DatebookCore
import Foundation

/// The planner's SQLite database: events, tasks and (later) the delivery ledger.
///
/// One file in WAL mode with a busy timeout, so a second process waits instead of failing.
/// The schema is versioned with `PRAGMA user_version`; see `Store+Migrations.swift`.
public final class Store {
    public let path: String
    let db: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements of literal SQL, by the literal's address (see `statement(literal:)`).
    private var literalStatements: [UInt: SQLiteStatement] = [:]
    /// Where recurring events' occurrences are materialised when saved (see Store+Recurrence.swift).
    public var recurrenceHorizon: DateInterval?
    public var editTime: Date?

    /// The horizon every command and request sets: a week back, 92 days ahead of `now`.
    public static func standardHorizon(now: Date) -> DateInterval {
        DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
    }
    /// Which occurrence rows may exist in this transaction; nil until checked (spares bulk imports
    /// two deletes per event).
    var occurrenceRows: OccurrenceRows?
    /// The write an import read in batches began (`importTransaction`), while it runs.
    var importBulk: BulkWrite?
    /// Where an import's rows wait to go in in key order, while it runs.
    var importRuns: ImportRuns?

    /// Opens (creating on first use) the store at `path`.
    ///
    /// - Parameter readOnly: open for reading only; a missing file is then an empty in-memory store.
    public init(path: String, readOnly requestedReadOnly: Bool = false) throws {
        self.path = path
        let exists = try Self.checkRegularFile(path)
        var readOnly = requestedReadOnly
        // A read may meet a store from an older datebook: open it for writing so it can be upgraded.
        if readOnly, exists, Self.writeProblem(path) == nil, try Self.peekVersion(path) < Self.schemaVersion {
            readOnly = false
        }
        let openPath: String
        var flags = SQLITE_OPEN_NOMUTEX
        if readOnly, !exists {
            openPath = ":memory:"
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY
        } else if readOnly {
            openPath = path
            flags |= SQLITE_OPEN_READONLY
        } else {
            if !exists { try Self.createFile(at: path) }
            if let problem = Self.writeProblem(path) { throw problem }
            openPath = path
            flags |= SQLITE_OPEN_READWRITE
        }
        do {
            db = try readOnly && exists ? Self.openForReading(path) : SQLiteConnection(path: openPath, flags: flags)
        } catch let error as SQLiteError {
            throw StoreError.sqlite(path: path, message: error.message)
        }
        try prepareSchema(writable: !readOnly || !exists)
    }

    /// Whether `path` exists; throws unless it is a regular file (after symbolic links). SQLite
    /// would block for ever opening a FIFO with no writer, and read a device as a database.
    static func checkRegularFile(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return true
        case S_IFDIR: throw StoreError.isDirectory(path: path)
        case S_IFIFO: throw StoreError.notRegularFile(path: path, kind: "a FIFO (named pipe)")
        case S_IFCHR: throw StoreError.notRegularFile(path: path, kind: "a character device")
        case S_IFBLK: throw StoreError.notRegularFile(path: path, kind: "a block device")
        case S_IFSOCK: throw StoreError.notRegularFile(path: path, kind: "a socket")
        default: throw StoreError.notRegularFile(path: path, kind: "a special file")
        }
    }

    /// The schema version recorded in the file at `path`, read without changing anything.
    static func peekVersion(_ path: String) throws -> Int {
        do {
            let probe = try openForReading(path)
            let version = Int(try probe.integer("PRAGMA user_version"))
            try checkKnown(version: version, path: path)
            return version
        } catch let error as SQLiteError {
            if error.code & 0xFF == SQLITE_NOTADB { throw StoreError.notADatabase(path: path) }
            throw StoreError.sqlite(path: path, message: error.message)
        }
    }

    /// Creates the database file 0600 inside directories created 0700.
    static func createFile(at path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw StoreError.cannotCreate(path: path, reason: "cannot create directory \(directory)")
        }
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        close(fd)
    }

    /// True when no write bit is set: root ignores permission bits, so check them explicitly.
    static func isWriteProtected(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = attributes[.posixPermissions] as? Int else { return false }
        return mode & 0o222 == 0
    }

    /// A cached prepared statement for `sql`.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let prepared = try wrap { try db.prepare(sql) }
        statements[sql] = prepared
        return prepared
    }

    /// A cached prepared statement for SQL written as a literal, found by the literal's address:
    /// the write path of a bulk load asks for its statements once per row, and hashing a 600-byte
    /// SQL text each time cost more than some of the inserts.
    func statement(literal sql: StaticString) throws -> SQLiteStatement {
        try statement(key: sql, sql.withUTF8Buffer { String(decoding: $0, as: UTF8.self) })
    }

    /// A cached prepared statement found by `key`'s address; `sql` is made only the first time.
    func statement(key: StaticString, _ sql: @autoclosure () -> String) throws -> SQLiteStatement {
        let address = UInt(bitPattern: key.utf8Start)
        if let cached = literalStatements[address] { return cached }
        let prepared = try wrap { try db.prepare(sql()) }
        literalStatements[address] = prepared
        return prepared
    }

    /// Maps SQLite failures to `StoreError`s naming this store.
    @discardableResult
    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            switch error.code & 0xFF {
            case SQLITE_NOTADB: throw StoreError.notADatabase(path: path)
            case SQLITE_BUSY, SQLITE_LOCKED: throw StoreError.busy(path: path)
            case SQLITE_FULL: throw StoreError.full(path: path)
            case SQLITE_READONLY: throw Self.writeProblem(path) ?? StoreError.readOnly(path: path)
            default: throw StoreError.sqlite(path: path, message: error.message)
            }
        }
    }

    /// True inside `transaction` (SQLite is out of autocommit mode).
    var inTransaction: Bool { sqlite3_get_autocommit(db.handle) == 0 }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE): all of it or nothing.
    /// A call inside another transaction joins it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        try wrap { try db.execute("BEGIN IMMEDIATE") }
        occurrenceRows = nil
        do {
            let result = try body()
            try wrap { try db.execute("COMMIT") }
            return result
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}

extension Store: SQLStore {
    var dialect: SQLDialect { .sqlite }

    /// The shared SQL's `$n` parameters become SQLite's `?n` (SQLite reads `$1` as a parameter
    /// *named* `$1`, numbered in order of appearance, which would break `$2 … $1`).
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue], row: (SQLiteStatement) throws -> Void) throws -> Int {
        try wrap {
            let prepared: SQLiteStatement
            if let cached = statements[sql] {
                prepared = cached
            } else {
                prepared = try db.prepare(Self.numberedParameters(sql))
                statements[sql] = prepared
            }
            try prepared.bind(values)
            defer { sqlite3_reset(prepared.handle) }
            while try prepared.step() { try row(prepared) }
            return db.changes
        }
    }

    /// `bulkThreshold` events or more in bulk (Store+BulkLoad.swift): a row trigger on each insert
    /// had SQLite copy some 100k pages to statement journals for a calendar of 10,000 events.
    func writeSourceEvents(_ result: ICSImport, calendar: String) throws {
        try writeMany(result.events, sources: (calendar, { result.uids[result.events[$0].id] }), expansions: result.expansions)
    }

    /// `sql` with each `$` that starts a parameter number (outside quotes) written as `?`.
    static func numberedParameters(_ sql: String) -> String {
        var bytes = Array(sql.utf8)
        var quote: UInt8?
        for n in bytes.indices {
            let byte = bytes[n]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "$"), n + 1 < bytes.count, (48...57).contains(bytes[n + 1]) {
                bytes[n] = UInt8(ascii: "?")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Store {
    /// Runs `body` with commits that write the log but skip its fsync (`synchronous = NORMAL`):
    /// they survive a crash of this process at once, a power failure once a background thread has
    /// fsynced the log (every `syncInterval`, and when `body` ends). Checkpoints, which fsync too,
    /// wait until the log holds 40 MB instead of 4 MB.
    ///
    /// Figures (10,000 alerts to a local nginx, shared 2-core machine): a commit per group of
    /// outcomes with `synchronous = FULL` cost 5 ms each; with NORMAL but fsyncs and checkpoints on
    /// the sending thread, 230 fsyncs took about a second of a 2–3 s pass.
    public func withDeferredSync<T>(syncInterval: TimeInterval = 0.05, _ body: () throws -> T) throws -> T {
        try wrap {
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.execute("PRAGMA wal_autocheckpoint = 10000")
            try db.execute("PRAGMA journal_size_limit = 16777216")
        }
        let syncer = LogSyncer(path: path + "-wal", interval: syncInterval)
        defer {
            syncer.stop()
            try? db.execute("PRAGMA wal_autocheckpoint = 1000")
            try? db.execute("PRAGMA synchronous = FULL")
        }
        return try body()
    }
}

/// Fsyncs a write-ahead log on its own thread every `interval` until stopped, then once more.
private final class LogSyncer: Sendable {
    private let stopped = Monitor(false)
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, interval: TimeInterval) {
        Thread.detachNewThread { [self] in
            repeat {
                Self.sync(path)
            } while !stopped.wait(until: .now() + interval, for: { $0 })
            Self.sync(path)
            finished.signal()
        }
    }

    /// Stops the thread after its final fsync.
    func stop() {
        stopped.update { $0 = true }
        finished.wait()
    }

    /// Best effort: a failed fsync leaves those commits as durable as `synchronous = NORMAL` makes them.
    static func sync(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
