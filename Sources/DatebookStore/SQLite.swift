import CSQLite
import Foundation

/// An SQLite failure with the database's own message.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { message }
}

/// Owns one `sqlite3` connection and closes it in `deinit`.
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Process-wide settings, applied once before the first connection.
    private static let configured: Bool = {
        _ = datebook_sqlite_disable_memstatus()
        return sqlite3_initialize() == SQLITE_OK
    }()

    init(path: String, flags: Int32) throws {
        _ = Self.configured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Before the first statement: a connection that meets a lock held for a moment (another
        // connection's checkpoint on close, a WAL recovery, a writer) waits for it instead of
        // failing with "database is locked" (`serve` opens one connection per request).
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
    }

    /// How long a statement waits for another connection's lock before failing.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    deinit { sqlite3_close_v2(handle) }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else {
            throw SQLiteError(code: rc, message: errorMessage)
        }
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil))
        guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Reads one integer, e.g. `PRAGMA user_version`.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// Owns one prepared statement; values are bound with SQLITE_TRANSIENT so SQLite copies them.
final class SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to parameters 1…n.
    @discardableResult
    func bind(_ values: SQLValue...) throws -> SQLiteStatement {
        try bind(values)
    }

    @discardableResult
    func bind(_ values: [SQLValue]) throws -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (n, value) in values.enumerated() {
            let index = Int32(n + 1)
            switch value {
            case .null: try setNull(index)
            case .integer(let v): try set(index, v)
            case .text(let v): try set(index, v)
            }
        }
        return self
    }

    private func set(_ index: Int32, _ value: Int64) throws {
        try connection.check(sqlite3_bind_int64(handle, index, value))
    }

    private func set(_ index: Int32, _ value: String) throws {
        var value = value
        // The byte count, not -1: no strlen, and a NUL inside the text does not cut it short.
        let rc = value.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { chars in
                // Empty text needs a real pointer: a nil one binds NULL.
                guard let base = chars.baseAddress, !chars.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, datebook_sqlite_transient()) }
                return sqlite3_bind_text(handle, index, base, Int32(chars.count), datebook_sqlite_transient())
            }
        }
        try connection.check(rc)
    }

    private func setNull(_ index: Int32) throws {
        try connection.check(sqlite3_bind_null(handle, index))
    }

    /// Steps once; true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = SQLiteError(code: rc, message: connection.errorMessage)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Lends a text column's UTF-8 bytes (valid only inside `body`) without creating a String.
    func withTextBytes<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let pointer = sqlite3_column_text(handle, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}

enum SQLValue {
    case null
    case integer(Int64)
    case text(String)

    static func int(_ v: Int) -> SQLValue { .integer(Int64(v)) }
    static func optional(_ v: String?) -> SQLValue { v.map(SQLValue.text) ?? .null }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether both buffers hold the same bytes (a length check, then memcmp): ids and column
    /// values are matched this way without making Strings of them.
    func sameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard let base = baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base, otherBase, count) == 0
    }
}

/// A result row as the readers both backends share (`Store.event(from:)`, `LedgerSQL.entry(from:)`)
/// see it: columns by position. `SQLiteStatement` reads SQLite's row in place; `PostgresRow` a
/// libpq result's.
protocol ColumnReader {
    func text(_ column: Int32) -> String
    func int64(_ column: Int32) -> Int64
    func isNull(_ column: Int32) -> Bool
    func withTextBytes<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
}

extension ColumnReader {
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}

extension SQLiteStatement: ColumnReader {}
