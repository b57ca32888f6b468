import CSQLite
import DatebookCore
import Foundation

/// Backing up and restoring a SQLite store while `datebook run` uses it (issue 27). A file copied
/// with `cp`, or moved over the store, meets the running daemon's write-ahead log, which belongs to
/// the old file: SQLite then applies the old log to the new file and damages it. These go through
/// SQLite's online backup API instead, which copies pages under SQLite's own locks.
extension Store {
    /// A consistent copy of the whole store into the new file `target` (one read transaction:
    /// writers carry on meanwhile and the copy is the store as of one commit).
    public func backup(to target: String) throws {
        guard !FileManager.default.fileExists(atPath: target) else {
            throw StoreError.cannotCreate(path: target, reason: "the file exists; give the name of a new file")
        }
        do {
            let copy = try SQLiteConnection(path: target, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
            try Self.copyPages(from: db, to: copy, path: target)
            try copy.execute("PRAGMA journal_mode = DELETE")
        } catch let error as SQLiteError {
            for file in [target, target + "-wal", target + "-shm", target + "-journal"] { try? FileManager.default.removeItem(atPath: file) }
            throw StoreError.cannotCreate(path: target, reason: error.message)
        }
    }

    /// Replaces the whole store with the copy in `source`, in one transaction on the store (a
    /// running daemon sees the new content at its next wake-up; it keeps the same file). The copy
    /// is checked first: it must be a datebook store of this version or older, and intact.
    public func restore(from source: String) throws {
        guard try Self.checkRegularFile(source) else {
            throw StoreError.cannotCreate(path: source, reason: "no such file")
        }
        let found = try Self.peekVersion(source)  // not a database, or a newer schema: refused here
        guard found > 0 else { throw StoreError.notADatabase(path: source) }
        do {
            let copy = try Self.openForReading(source)
            let check = try copy.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try check.step() { lines.append(check.text(0)) }
            guard lines == ["ok"] else {
                throw StoreError.sqlite(path: source, message: "damaged (\(lines.prefix(3).joined(separator: "; "))); the store was left untouched")
            }
            try Self.copyPages(from: copy, to: db, path: path)
        } catch let error as SQLiteError {
            throw StoreError.sqlite(path: path, message: "restore from \(source) failed: \(error.message); the store was left untouched")
        }
        // An older copy is brought up to this version as any store is when opened.
        try prepareSchema(writable: true)
    }

    /// Folds the write-ahead log into the file this connection has open and empties it. A daemon
    /// whose path came to name another file (or none) does this before it lets go of the old one:
    /// SQLite leaves the log of a moved file behind at the path's `-wal` name (it checkpoints on
    /// close only while the path still names the file), where a connection to the new file would
    /// apply it to that file and damage it.
    public func emptyLog() throws {
        try wrap { try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// `emptyLog` when no other connection is busy (a write or a read under way): never waits.
    /// `datebook run` does this when a pass ends, so an idle daemon's store file is whole, with an
    /// empty log: a file copied over it then meets no stale log (which SQLite would apply to it).
    /// False when another connection was busy (the log stays; the next pass tries again).
    @discardableResult
    public func emptyLogIfIdle() -> Bool {
        sqlite3_busy_timeout(db.handle, 0)
        defer { sqlite3_busy_timeout(db.handle, SQLiteConnection.busyTimeoutMilliseconds) }
        // One row: busy (1 when it could not finish), log frames, frames checkpointed.
        return (try? db.integer("PRAGMA wal_checkpoint(TRUNCATE)")) == 0
    }

    /// From here on, closing this connection leaves its write-ahead log as it is: the file's content
    /// was replaced under it (`cp` over a live store), and the log, which belongs to the old content,
    /// must not be folded into the new one.
    public func keepLogOnClose() {
        _ = datebook_sqlite_no_checkpoint_on_close(db.handle)
    }

    /// True when the store file at `path`, read through a connection of its own (another connection's
    /// cache may hold content the file no longer has), holds `instance` as last written.
    public static func holds(_ instance: SchedulerInstance, inFile path: String) throws -> Bool {
        let connection = try openForReading(path)
        let query = try connection.prepare("SELECT count(*) FROM schedulers WHERE host = ? AND pid = ? AND last_seen = ?")
        try query.bind(.text(instance.host), .int(instance.pid), .integer(millis(instance.lastSeen)))
        return try query.step() && query.int(0) == 1
    }

    /// An empty store in memory: what the daemon holds while its file is gone, so that nothing
    /// keeps the old file's connection open.
    public static func standIn() throws -> Store { try Store(path: "", readOnly: true) }

    /// All pages of `source`'s main database into `target`'s, in one step.
    static func copyPages(from source: SQLiteConnection, to target: SQLiteConnection, path: String) throws {
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target.handle), message: target.errorMessage)
        }
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, -1)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(50) }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(code: rc, message: target.errorMessage)
        }
    }
}
