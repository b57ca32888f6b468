import DatebookCore
import Foundation

/// What differs between the two databases, answered in one place (STYLE.md: the dialect answers).
///
/// The store's SQL is written once, with `$1…$n` parameters, `ON CONFLICT … DO NOTHING`, `TRUE`
/// and `IS NOT DISTINCT FROM`, which SQLite (3.40 on Debian 12) and PostgreSQL both read; what
/// neither text can say for both is asked of the dialect.
public struct SQLDialect: Sendable, Equatable {
    public enum Kind: Sendable { case sqlite, postgres }

    public let kind: Kind
    /// Whether the store is a file on this machine: the daemon watches it, `store backup` copies it,
    /// a replaced file is noticed by its inode. A server's changes arrive by `LISTEN`/`NOTIFY`.
    public let hasFile: Bool
    /// Appended to a `SELECT` that claims rows: PostgreSQL locks them and skips rows another
    /// transaction holds; SQLite's write transaction holds the whole file, so nothing is needed.
    let skipLocked: String
    /// Makes `ORDER BY text` byte order: SQLite's default (BINARY) already is; PostgreSQL's
    /// database collation is not, so it is asked for `COLLATE "C"`.
    let byteOrder: String
    /// Whether a transaction that reads rows and then writes what depends on them must lock them
    /// first (`SELECT … FOR UPDATE`): PostgreSQL's transactions run side by side; SQLite's write
    /// transaction (`BEGIN IMMEDIATE`) holds the whole store, so it locks nothing more.
    let locksRows: Bool
    /// The column that numbers a table's rows in the order they were inserted where the table has
    /// no key of its own (`caldav_conflicts`): SQLite's implicit `rowid`; PostgreSQL's `id BIGSERIAL`.
    let insertionOrder: String
    /// Begins the read-only transaction that reads a whole store as of one moment (`store copy`):
    /// SQLite's read transaction already is one; PostgreSQL's default (READ COMMITTED) is not.
    let beginSnapshot: String
    /// Follows `FROM events e` where a query reads the recurring events' listing columns: SQLite's
    /// planner otherwise takes the id index plus a table row per event over the covering partial
    /// index `events_recurring_listing`; PostgreSQL's planner picks its copy of that index itself.
    let recurringListing: String
    /// Run by `lockPlanning` inside a pass's transaction, if any: PostgreSQL's transaction-level
    /// advisory lock keyed by the schema (the key is the text datebook has always hashed); SQLite's
    /// `BEGIN IMMEDIATE` already holds the only write lock.
    let planningLock: String?
    /// A query whose one number changes whenever another connection commits (`dataVersion`):
    /// SQLite's `PRAGMA data_version`, the `data_version` sequence PostgreSQL's triggers bump.
    let dataVersion: String
    /// A query whose rows say `ok` or list what is damaged (`integrityCheck`): the server keeps its
    /// own pages, so PostgreSQL's answer is always `ok`.
    let integrityCheck: String
    /// A query whose one number is the schema version the store records (`userVersion`): SQLite's
    /// `PRAGMA user_version`, the `schema_version` row of PostgreSQL's `meta` table.
    let schemaVersion: String
    /// Whether a batch of rows runs as one plain statement per row (`SQLBatch.single`) rather than
    /// as multi-row statements: SQLite's statements are calls, not round trips, and its
    /// `WITH … AS (VALUES …) UPDATE … FROM` costs three times a keyed UPDATE for one row
    /// (bench/results-postgresql.md); PostgreSQL pays a round trip per statement.
    let rowStatements: Bool
    /// Whether a batch of rows runs as one statement taking one array parameter per column
    /// (`SQLBatch.arrays`, `unnest`): PostgreSQL's arrays; SQLite has none (it runs rows one by one).
    let columnArrays: Bool

    public static let sqlite = SQLDialect(kind: .sqlite, hasFile: true, skipLocked: "", byteOrder: "",
                                          locksRows: false, insertionOrder: "rowid", beginSnapshot: "BEGIN",
                                          recurringListing: " INDEXED BY events_recurring_listing",
                                          planningLock: nil, dataVersion: "PRAGMA data_version",
                                          integrityCheck: "PRAGMA integrity_check", schemaVersion: "PRAGMA user_version",
                                          rowStatements: true, columnArrays: false)
    public static let postgres = SQLDialect(kind: .postgres, hasFile: false, skipLocked: " FOR UPDATE SKIP LOCKED",
                                            byteOrder: " COLLATE \"C\"",
                                            locksRows: true, insertionOrder: "id",
                                            beginSnapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                                            recurringListing: "",
                                            planningLock: "SELECT pg_advisory_xact_lock(hashtext('datebook planning ' || current_schema()))",
                                            dataVersion: "SELECT last_value FROM data_version",
                                            integrityCheck: "SELECT 'ok'",
                                            schemaVersion: "SELECT value FROM meta WHERE name = 'schema_version'",
                                            rowStatements: false, columnArrays: true)

    /// The dialect of the store a location names: a `postgresql://` or `postgres://` URL, else a file.
    /// Code above the store asks this, not the location's spelling, what a store is (`hasFile`).
    public static func of(location: String) -> SQLDialect {
        location.hasPrefix("postgresql:") || location.hasPrefix("postgres:") ? .postgres : .sqlite
    }
}

/// One connection as the store's shared code uses it: one statement at a time, `$1…$n` bound to
/// `SQLValue`s, each result row read by position (`ColumnReader`), failures already mapped to
/// `StoreError`s that name the store. `Store` (SQLite) and `PostgresStore` conform.
protocol SQLDatabase: AnyObject {
    /// A result row as the backend reads it in place.
    associatedtype Row: ColumnReader

    var dialect: SQLDialect { get }

    /// Runs one statement with `values` bound to `$1…$n`, calling `row` for each result row in
    /// order; the number of rows an INSERT, UPDATE or DELETE changed. Statements are prepared once
    /// per connection and kept (by their text). `row` must not run the same SQL text again.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue], row: (Row) throws -> Void) throws -> Int

    /// Runs `body` in one transaction: all of it or nothing. A call inside another joins it.
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// Reads about to be run in this order, none needing another's rows: a server's backend may
    /// send them at once (PostgresPipeline.swift). Only a hint: each is still run with `run`.
    func sendAhead(_ statements: [(sql: String, values: [SQLValue])])
}

extension SQLDatabase {
    /// SQLite reads in this process: nothing to send.
    func sendAhead(_ statements: [(sql: String, values: [SQLValue])]) {}

    /// Runs a statement that returns no rows; the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: SQLValue...) throws -> Int {
        try run(sql, values, row: { _ in })
    }

    /// Each result row of `sql`, made into a value by `make`.
    func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ make: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try run(sql, values) { result.append(try make($0)) }
        return result
    }

    /// The first result row of `sql`, made into a value by `make`; nil when there is none.
    func first<T>(_ sql: String, _ values: [SQLValue] = [], _ make: (Row) throws -> T) throws -> T? {
        var result: T?
        try run(sql, values) { if result == nil { result = try make($0) } }
        return result
    }
}

/// The store written once: the `PlannerStore` requirements that the two databases answer with the
/// same SQL live in extensions of this protocol (files `SQLStore+*.swift`); each backend adds only
/// how it connects, begins a transaction and maps its errors (`SQLDatabase`), and what its dialect
/// says differs. A requirement implemented here must not be implemented again by a backend.
/// Both stores keep CalDAV sync too (`CalDAVStore`, SQLStore+CalDAV.swift).
protocol SQLStore: CalDAVStore, SQLDatabase {
    /// Writes `result`'s events and the UIDs they came from under `calendar` (in bulk where the
    /// backend has a bulk path); the caller holds the transaction and deleted the old ones.
    func writeSourceEvents(_ result: ICSImport, calendar: String) throws
    /// Writes a copy's events (with their tasks) and tables' rows into this store, which holds none
    /// of them, then runs `finish`, all in one transaction (`store copy`): the backend's bulk path
    /// (SQLite's `writeMany` and prepared inserts; PostgreSQL's COPY with its checks set aside).
    func writeCopy(events: [Event], tables: [CopiedRows], then finish: () throws -> Void) throws
    /// Replaces the queue of changed events with `ids` (a copy brings the source's queue along).
    func replaceChangedEvents(with ids: Set<String>) throws
    /// Upserts `event`'s row and replaces its tasks (its occurrences are `writeOccurrences`'s).
    func writeRows(_ event: Event) throws
    /// What the current write transaction knows of the occurrence rows; nil when it begins.
    var occurrenceRows: OccurrenceRows? { get set }
}

/// What a store says of itself that the dialect answers.
extension SQLStore {
    /// The store file, which the daemon watches (SQLite); nil for a server, whose changes arrive
    /// through `changeListener()`.
    public var watchedFile: String? { dialect.hasFile ? location : nil }

    /// The schema version the store records (0 before the first migration).
    public func userVersion() throws -> Int {
        try first(dialect.schemaVersion) { $0.int(0) } ?? 0
    }
}

extension SQLValue {
    /// A date as the store keeps it: whole seconds since 1970.
    static func seconds(_ date: Date) -> SQLValue { .integer(Int64(date.timeIntervalSince1970)) }
    static func seconds(_ date: Date?) -> SQLValue { date.map(seconds) ?? .null }

    /// The value as libpq's text format sends it (nil for NULL).
    var text: String? {
        switch self {
        case .null: nil
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }
}

extension ColumnReader {
    /// A column of whole seconds since 1970 as a date; nil for NULL.
    func date(_ column: Int32) -> Date? {
        isNull(column) ? nil : Date(timeIntervalSince1970: TimeInterval(int64(column)))
    }
}
