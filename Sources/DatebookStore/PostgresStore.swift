import DatebookCore
import Foundation

/// The planner in PostgreSQL: a team store several scheduler instances share (docs/postgresql.md).
///
/// Everything datebook creates lives in one schema (`datebook`, or `?schema=NAME` in the URL), so
/// the store can share a database. The schema is versioned in its `meta` table and migrated on
/// first use under an advisory lock; a schema written by a newer datebook is refused before
/// anything is changed. Events and tasks use the SQLite store's column lists (`EventColumn`,
/// `TaskColumn`) and row writers and readers, and the same materialised occurrences
/// (SQLStore+Occurrences.swift).
public final class PostgresStore: PlannerStore {
    /// The newest schema this build knows.
    public static let schemaVersion = migrations.count
    public static let defaultSchema = "datebook"

    public let location: String
    public var recurrenceHorizon: DateInterval?
    public var editTime: Date?
    public let schema: String
    let connection: PostgresConnection
    /// The URL as libpq takes it (with its password: never printed), for the change listener.
    private let conninfo: String
    /// The search path and the timeouts (`PostgresSession`); `sessionAtStartup` when they were set
    /// in the startup packet (PostgresStore+Open.swift), else by statements after connecting.
    let session: PostgresSession
    let sessionAtStartup: Bool
    /// Nesting depth of `transaction`: only the outermost begins and commits.
    private var depth = 0
    /// A statement met a lost connection: the next one outside a transaction connects again.
    private var lost = false
    /// What the current transaction knows of the occurrence rows (`SQLStore.writeOccurrences`).
    var occurrenceRows: OccurrenceRows?

    /// Connects to `url` (`postgresql://…` or `postgres://…`; libpq's parameters such as
    /// `sslmode` are honoured, `schema` is datebook's own) and prepares the schema.
    public convenience init(url: String) throws {
        try self.init(url: url, preparing: true)
    }

    private init(url: String, preparing: Bool) throws {
        location = StoreLocation.redacted(url)
        let (given, schema, session) = try Self.split(url, location: location)
        self.schema = schema
        self.session = session
        let (conninfo, sessionAtStartup) = Self.withStartupSettings(given, session: session)
        self.conninfo = conninfo
        self.sessionAtStartup = sessionAtStartup
        connection = try PostgresConnection(conninfo: conninfo, store: location)
        if preparing { try prepareSchema() }
    }

    /// The schema version recorded at `url`, read without creating or changing anything; nil when
    /// the schema has none yet. A version newer than this build knows throws.
    public static func recordedSchemaVersion(url: String) throws -> Int? {
        try PostgresStore(url: url, preparing: false).checkKnownVersion()
    }

    /// Takes datebook's own parameters (`schema`, the server settings of `PostgresSession`) out of
    /// the URL (libpq refuses parameters it does not know) and adds libpq's defaults it lacks.
    static func split(_ url: String, location: String) throws -> (conninfo: String, schema: String, session: PostgresSession) {
        guard var components = URLComponents(string: url) else {
            throw StoreError.postgres(store: location, message: "not a valid URL; write postgresql://USER@HOST:PORT/DATABASE "
                                      + "(percent-encode # / ? @ : and spaces in the password as %23 %2F %3F %40 %3A %20, or put it in PGPASSFILE)")
        }
        // Percent-encoded as given: a password's `%26` stays `%26` (decoded and encoded again, it might not).
        var items = components.percentEncodedQueryItems ?? []
        let schema = items.last(where: { $0.name == "schema" }).map { $0.value?.removingPercentEncoding ?? "" } ?? defaultSchema
        items.removeAll { $0.name == "schema" }
        let allowed = schema.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
        guard !schema.isEmpty, allowed, schema.utf8.count <= 63, !(schema.first?.isNumber ?? true) else {
            throw StoreError.postgres(store: location, message: "schema '\(schema)' is not a plain name; use lower-case letters, digits and _")
        }
        let session = try PostgresSession.take(from: &items, schema: schema, location: location)
        components.percentEncodedQueryItems = PostgresSession.withClientDefaults(items)
        return (components.string ?? url, schema, session)
    }

    /// `name` as a quoted identifier, so a reserved word (`user`, `order`) works as a schema name;
    /// `name` is a plain name (`split` checked it), so it holds no quote.
    static func quoted(_ name: String) -> String { "\"" + name + "\"" }

    /// The schema as an identifier in SQL.
    var quotedSchema: String { Self.quoted(schema) }

    /// Maps libpq failures to `StoreError`s naming this store (never its password).
    @discardableResult
    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            if error.isConnectionLoss {
                lost = true
                throw StoreError.connectionLost(store: location, reason: error.message)
            }
            if error.isTimeout { throw StoreError.timedOut(store: location, reason: error.message) }
            throw StoreError.postgres(store: location, message: error.message)
        }
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        try reconnectIfLost()
        return try wrap { try connection.query(sql, parameters) }
    }

    /// Outside a transaction, a connection lost earlier is opened again (same URL, the schema's
    /// search path) before the next statement: the statement that met the loss failed, the ones
    /// after it work again once the server answers. Inside a transaction nothing is retried.
    func reconnectIfLost() throws {
        guard depth == 0, lost || connection.isBroken else { return }
        try wrap {
            try connection.reset()
            if !sessionAtStartup { try connection.execute(session.statements) }
        }
        lost = false
    }

    /// Another connection that wakes a daemon when anyone commits a change (`LISTEN`/`NOTIFY`).
    public func changeListener() -> ChangeListener? {
        ChangeListener(conninfo: conninfo, location: location, schema: schema)
    }

    /// Runs `body` in one transaction: all of it or nothing. Nested calls join the outer one.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if depth > 0 {
            depth += 1
            defer { depth -= 1 }
            return try body()
        }
        try reconnectIfLost()
        try wrap { try connection.execute("BEGIN") }
        occurrenceRows = nil
        depth = 1
        defer { depth = 0 }
        do {
            let result = try body()
            try wrap { try connection.execute("COMMIT") }
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Commits inside `body` do not wait for the server's WAL flush (`synchronous_commit = off`), as
    /// SQLite's commits skip the fsync: a server crash may lose the last moments of recorded outcomes
    /// (each delivery then goes out again), never a delivery. With the flush, recording 10,000
    /// outcomes took 11.5 s instead of 7 s on the loaded test machine.
    public func withDeferredSync<T>(syncInterval: TimeInterval, _ body: () throws -> T) throws -> T {
        try wrap { try connection.execute("SET synchronous_commit TO off") }
        defer { try? connection.execute("RESET synchronous_commit") }
        return try body()
    }

    /// The server manages its own memory.
    public func limitPageCache(kibibytes: Int) throws {}

    /// The server keeps its own write-ahead log: nothing to fold in (`PlannerStore.emptyLog`).
    public func emptyLog() throws {}
    /// Nothing to fold in: never busy.
    public func emptyLogIfIdle() -> Bool { true }
    /// Closing a connection leaves nothing behind on the server.
    public func keepLogOnClose() {}

    /// Creates or migrates the schema; refuses one written by a newer datebook without changing it.
    /// A current schema costs one query: no transaction, no lock.
    func prepareSchema() throws {
        if try isCurrentSchema() { return }
        guard try checkKnownVersion() != Self.schemaVersion else {
            try setSession()
            return
        }
        try transaction {
            // One migrating process at a time; the others wait here, then find the work done.
            try query("SELECT pg_advisory_xact_lock(hashtext($1))", ["datebook schema " + schema])
            let exists = try query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]).count > 0
            try checkCreateRights(schemaExists: exists)
            if !exists { try wrap { try connection.execute("CREATE SCHEMA \(quotedSchema)") } }
            try wrap { try connection.execute("SET LOCAL search_path TO \(quotedSchema)") }
            try wrap { try Self.migrate(connection, store: location) }
        }
        try setSession()
    }

    /// The schema on the search path, and the timeouts when the startup packet did not set them.
    private func setSession() throws {
        try wrap { try connection.execute(sessionAtStartup ? "SET search_path TO \(quotedSchema)" : session.statements) }
    }

    /// Reads the version, if the schema has one, before anything is created; nil when it has none.
    private func checkKnownVersion() throws -> Int? {
        let table = try query("SELECT to_regclass($1)", [quotedSchema + ".meta"])
        guard table.count > 0, !table.isNull(0, 0) else { return nil }
        let rows = try query("SELECT value FROM \(quotedSchema).meta WHERE name = 'schema_version'")
        guard rows.count > 0 else { return nil }
        try Store.checkKnown(version: rows.int(0, 0), path: location, known: Self.schemaVersion)
        return rows.int(0, 0)
    }
}

extension PostgresStore: SQLStore {
    var dialect: SQLDialect { .postgres }

    /// libpq's text format: each value is sent as text (NULL as nil) and typed by the server from
    /// the statement, as the store's own queries always were.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue], row: (PostgresRow) throws -> Void) throws -> Int {
        let rows = try query(sql, values.map(\.text))
        for n in 0..<rows.count { try row(PostgresRow(rows: rows, row: n)) }
        return rows.changed
    }

    func sendAhead(_ statements: [(sql: String, values: [SQLValue])]) {
        guard depth > 0 || !(lost || connection.isBroken) else { return }
        connection.sendAhead(statements.map { ($0.sql, $0.values.map(\.text)) })
    }

    func writeSourceEvents(_ result: ICSImport, calendar: String) throws {
        try saveImport(result, calendar: calendar, progress: { _ in })
    }
}
