import DatebookCore
import Foundation

/// The planner in PostgreSQL: a team store several scheduler instances share (docs/postgresql.md).
///
/// Everything datebook creates lives in one schema (`datebook`, or `?schema=NAME` in the URL), so
/// the store can share a database. The schema is versioned in its `meta` table and migrated on
/// first use under an advisory lock; a schema written by a newer datebook is refused before
/// anything is changed. Events and tasks use the SQLite store's column lists (`EventColumn`,
/// `TaskColumn`) and row writers and readers; recurring events are expanded in Swift with the
/// same `RecurrenceExpander`, not materialised.
public final class PostgresStore: PlannerStore {
    /// The newest schema this build knows.
    public static let schemaVersion = migrations.count
    public static let defaultSchema = "datebook"

    public let location: String
    public var recurrenceHorizon: DateInterval?
    /// No file: other instances' changes arrive through `changeListener()`.
    public var watchedFile: String? { nil }
    public let schema: String
    let connection: PostgresConnection
    /// The URL as libpq takes it (with its password: never printed), for the change listener.
    private let conninfo: String
    /// The search path was set in the startup packet (PostgresStore+Open.swift).
    let searchPathAtStartup: Bool
    /// Nesting depth of `transaction`: only the outermost begins and commits.
    private var depth = 0
    /// A statement met a lost connection: the next one outside a transaction connects again.
    private var lost = false

    /// Connects to `url` (`postgresql://…` or `postgres://…`; libpq's parameters such as
    /// `sslmode` are honoured, `schema` is datebook's own) and prepares the schema.
    public convenience init(url: String) throws {
        try self.init(url: url, preparing: true)
    }

    private init(url: String, preparing: Bool) throws {
        location = StoreLocation.redacted(url)
        let (given, schema) = try Self.split(url, location: location)
        self.schema = schema
        let (conninfo, searchPathAtStartup) = Self.withStartupSearchPath(given, schema: schema)
        self.conninfo = conninfo
        self.searchPathAtStartup = searchPathAtStartup
        connection = try PostgresConnection(conninfo: conninfo, store: location)
        if preparing { try prepareSchema() }
    }

    /// The schema version recorded at `url`, read without creating or changing anything; nil when
    /// the schema has none yet. A version newer than this build knows throws.
    public static func recordedSchemaVersion(url: String) throws -> Int? {
        try PostgresStore(url: url, preparing: false).checkKnownVersion()
    }

    /// Takes datebook's `schema` parameter out of the URL (libpq refuses parameters it does not know).
    static func split(_ url: String, location: String) throws -> (conninfo: String, schema: String) {
        guard var components = URLComponents(string: url) else {
            throw StoreError.postgres(store: location, message: "not a valid URL; write postgresql://USER@HOST:PORT/DATABASE")
        }
        var schema = defaultSchema
        if let items = components.queryItems, let given = items.first(where: { $0.name == "schema" }) {
            schema = given.value ?? ""
            let rest = items.filter { $0.name != "schema" }
            components.queryItems = rest.isEmpty ? nil : rest
        }
        let allowed = schema.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
        guard !schema.isEmpty, allowed, schema.utf8.count <= 63, !(schema.first?.isNumber ?? true) else {
            throw StoreError.postgres(store: location, message: "schema '\(schema)' is not a plain name; use lower-case letters, digits and _")
        }
        return (components.string ?? url, schema)
    }

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
            try connection.execute("SET search_path TO \(schema)")
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

    public func integrityCheck() throws -> String { "ok" }

    /// The schema version recorded in `meta`.
    public func userVersion() throws -> Int {
        let rows = try query("SELECT value FROM meta WHERE name = 'schema_version'")
        return rows.count > 0 ? rows.int(0, 0) : 0
    }

    /// Creates or migrates the schema; refuses one written by a newer datebook without changing it.
    /// A current schema costs one query: no transaction, no lock.
    func prepareSchema() throws {
        if try isCurrentSchema() { return }
        guard try checkKnownVersion() != Self.schemaVersion else {
            try wrap { try connection.execute("SET search_path TO \(schema)") }
            return
        }
        try transaction {
            // One migrating process at a time; the others wait here, then find the work done.
            try query("SELECT pg_advisory_xact_lock(hashtext($1))", ["datebook schema " + schema])
            let exists = try query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]).count > 0
            try checkCreateRights(schemaExists: exists)
            if !exists { try wrap { try connection.execute("CREATE SCHEMA \(schema)") } }
            try wrap { try connection.execute("SET LOCAL search_path TO \(schema)") }
            try wrap { try connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)") }
            let current = try userVersion()
            try Store.checkKnown(version: current, path: location, known: Self.schemaVersion)
            for version in current..<Self.schemaVersion {
                try wrap { try connection.execute(Self.migrations[version]) }
            }
            try query("INSERT INTO meta (name, value) VALUES ('schema_version', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                      [String(Self.schemaVersion)])
        }
        try wrap { try connection.execute("SET search_path TO \(schema)") }
    }

    /// Reads the version, if the schema has one, before anything is created; nil when it has none.
    private func checkKnownVersion() throws -> Int? {
        let table = try query("SELECT to_regclass($1)", [schema + ".meta"])
        guard table.count > 0, !table.isNull(0, 0) else { return nil }
        let rows = try query("SELECT value FROM \(schema).meta WHERE name = 'schema_version'")
        guard rows.count > 0 else { return nil }
        try Store.checkKnown(version: rows.int(0, 0), path: location, known: Self.schemaVersion)
        return rows.int(0, 0)
    }

    /// Each entry upgrades the schema from version `index` to `index + 1`; append, never edit.
    static let migrations: [String] = [
        """
        CREATE TABLE events (\(EventColumn.allCases.map { $0.name + " " + $0.postgresType }.joined(separator: ", ")));
        CREATE INDEX events_by_start ON events (start_key, id);
        CREATE INDEX events_by_title ON events (title);
        CREATE INDEX events_recurring ON events (id) WHERE recurrence IS NOT NULL;
        CREATE TABLE tasks (
            event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            id TEXT NOT NULL,
            text TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('todo', 'doing', 'done')),
            PRIMARY KEY (event_id, position)
        );
        CREATE TABLE deliveries (
            key TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('alert', 'digest')),
            event_id TEXT,
            occurrence_start BIGINT,
            lead TEXT,
            digest TEXT,
            digest_date TEXT,
            channel TEXT NOT NULL,
            due_at BIGINT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'sent-late', 'skipped', 'cancelled', 'failed')),
            reason TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL,
            first_attempt_at BIGINT,
            lease_until BIGINT,
            claimed_by TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        );
        CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
        CREATE INDEX deliveries_by_event ON deliveries (event_id, state);
        CREATE INDEX deliveries_by_update ON deliveries (updated_at);
        CREATE TABLE feeds (
            name TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            every INTEGER NOT NULL,
            etag TEXT,
            last_modified TEXT,
            last_checked BIGINT,
            last_success BIGINT,
            last_error TEXT,
            event_count INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE event_sources (
            event_id TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
            calendar TEXT NOT NULL,
            uid TEXT NOT NULL
        );
        CREATE INDEX event_sources_by_calendar ON event_sources (calendar);
        CREATE SEQUENCE data_version;
        CREATE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM nextval('data_version'); RETURN NULL; END $$;
        CREATE TRIGGER events_changed AFTER INSERT OR UPDATE OR DELETE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
        CREATE TRIGGER tasks_changed AFTER INSERT OR UPDATE OR DELETE ON tasks
            FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
        CREATE TRIGGER deliveries_changed AFTER INSERT OR UPDATE OR DELETE ON deliveries
            FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
        """,
        // The action-link key and the links used (issue 16); see PostgresStore+ActionLinks.swift.
        """
        CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at BIGINT NOT NULL);
        CREATE TABLE used_action_links (
            id TEXT PRIMARY KEY,
            action TEXT NOT NULL,
            event_id TEXT NOT NULL,
            used_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX used_action_links_by_expiry ON used_action_links (expires_at);
        """,
        // Wake-ups: every transaction that changes what may be due notifies the daemons on commit
        // (ChangeListener.swift). Statement triggers fire even for statements that change no row,
        // so the ledger notifies only for inserts (plans, snoozes): a pass's claims and outcomes
        // would otherwise wake every daemon again, itself included, without end.
        """
        CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_notify('datebook_changes', TG_TABLE_SCHEMA); RETURN NULL; END $$;
        CREATE TRIGGER events_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
        CREATE TRIGGER tasks_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tasks
            FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
        CREATE TRIGGER deliveries_notify AFTER INSERT ON deliveries
            FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
        CREATE TRIGGER feeds_notify AFTER INSERT OR DELETE ON feeds
            FOR EACH STATEMENT EXECUTE FUNCTION notify_change();
        """,
        // The live scheduler instances and who settled each delivery; see SchedulerInstance.swift.
        Store.schedulersMigration,
        // CalDAV accounts (issue 18); see PostgresStore+CalDAV.swift.
        calDAVMigration,
        // Events whose alert times changed since the last pass; see PostgresStore+ChangedEvents.swift.
        changedEventsMigration,
        // A CalDAV account's own CA file (issue 18); see CalDAVStore.swift.
        calDAVCAFileMigration,
        // Each CalDAV calendar's count of local changes, kept by triggers (issue 18); see CalDAVLocalChanges.swift.
        CalDAVLocalChanges.postgresMigration,
        // Each CalDAV account's backoff after failed syncs (issue 31); see CalDAVBackoff.swift.
        calDAVBackoffMigration(seconds: "BIGINT"),
        // What a channel accepted of a delivery sent in parts or to several recipients (issue 28); see Store+Ledger.swift.
        Store.deliveryProgressMigration,
    ]

    /// A value the next write by any connection changes (a sequence bumped by statement triggers).
    public func dataVersion() throws -> Int {
        let rows = try query("SELECT last_value FROM data_version")
        return rows.count > 0 ? rows.int(0, 0) : 0
    }
}

extension EventColumn {
    /// The column's type in the PostgreSQL schema (the SQLite one is in Store+Migrations.swift).
    var postgresType: String {
        switch self {
        case .id: "TEXT PRIMARY KEY"
        case .title, .timeZone, .symbol, .color: "TEXT NOT NULL"
        case .startKey: "BIGINT NOT NULL"
        case .allDay: "INTEGER NOT NULL"
        case .endKey: "BIGINT"
        case .endAllDay: "INTEGER"
        case .notes, .alerts, .location, .url: "TEXT NOT NULL DEFAULT ''"
        case .recurrence: "TEXT"
        case .taskCount, .openCount: "INTEGER NOT NULL DEFAULT 0"
        }
    }
}
