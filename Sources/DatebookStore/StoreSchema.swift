/// The store's schema, described once: every table's columns (type, nullability, default), key
/// and indexes, as the migrations of both backends leave them (docs/store.md, "The schema").
///
/// Both dialects' DDL comes from it (`createSQL`): copy it into a new migration, which stays
/// literal text (a migration is never built from live code). `SchemaTests` migrates a fresh store
/// on each backend and checks that what the database reports equals this description, and that
/// the DDL builds the same. A schema change is a migration on each backend *and* an edit here; the
/// test fails until both agree. What one backend has and the other lacks is marked `only:` with
/// the reason: a difference the test accepts because it is written down.
struct StoreSchema: Sendable {
    /// How a column is declared. SQLite keeps any integer in 8 bytes (its affinity is INTEGER for
    /// both integer types); PostgreSQL's `integer` is 4 bytes, so instants and counters are `bigint`.
    enum ColumnType: Sendable, Equatable {
        case text, integer, bigint
        /// A `bigint` numbered by a sequence (PostgreSQL's `BIGSERIAL`).
        case serial
    }

    struct Column: Sendable, Equatable {
        var name: String
        var type: ColumnType
        var nullable = false
        /// The default as SQL (`0`, `''`), if any.
        var defaultSQL: String?
        /// The one backend that has this column, or nil for both.
        var only: SQLDialect.Kind?
    }

    struct Index: Sendable, Equatable {
        var name: String
        var columns: [String]
        /// A partial index's condition (`recurrence IS NULL`).
        var condition: String?
        var only: SQLDialect.Kind?
    }

    struct Table: Sendable, Equatable {
        var name: String
        var columns: [Column]
        var key: [String]
        var indexes: [Index] = []
        /// SQLite stores the rows in the key's B-tree (`WITHOUT ROWID`).
        var withoutRowID = true
        var only: SQLDialect.Kind?
    }

    var tables: [Table]

    /// The tables, columns and indexes `kind` has.
    func on(_ kind: SQLDialect.Kind) -> StoreSchema {
        StoreSchema(tables: tables.filter { $0.only ?? kind == kind }.map { table in
            var table = table
            table.columns = table.columns.filter { $0.only ?? kind == kind }
            table.key = table.key.filter { name in table.columns.contains { $0.name == name } }
            table.indexes = table.indexes.filter { $0.only ?? kind == kind }
            return table
        })
    }

    /// The names of the columns of table `name` that both backends have, in declared order.
    func sharedColumns(of name: String) -> [String] {
        guard let table = tables.first(where: { $0.name == name }) else { preconditionFailure("no table \(name) in the schema") }
        return table.columns.filter { $0.only == nil }.map(\.name)
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements for every table `kind` has.
    func createSQL(_ kind: SQLDialect.Kind) -> String {
        on(kind).tables.map { Self.createSQL($0, kind) }.joined(separator: "\n")
    }

    static func createSQL(_ table: Table, _ kind: SQLDialect.Kind) -> String {
        var lines: [String] = table.columns.map { column in
            let defaultSQL = column.defaultSQL.map { " DEFAULT " + $0 } ?? ""
            return "    \(column.name) \(typeName(column.type, kind))\(column.nullable ? "" : " NOT NULL")\(defaultSQL)"
        }
        if !table.key.isEmpty { lines.append("    PRIMARY KEY (\(table.key.joined(separator: ", ")))") }
        let rowID = kind == .sqlite && table.withoutRowID ? " WITHOUT ROWID" : ""
        var statements = ["CREATE TABLE \(table.name) (\n\(lines.joined(separator: ",\n"))\n)\(rowID);"]
        for index in table.indexes {
            let condition = index.condition.map { " WHERE " + $0 } ?? ""
            statements.append("CREATE INDEX \(index.name) ON \(table.name) (\(index.columns.joined(separator: ", ")))\(condition);")
        }
        return statements.joined(separator: "\n")
    }

    static func typeName(_ type: ColumnType, _ kind: SQLDialect.Kind) -> String {
        switch (type, kind) {
        case (.text, _): "TEXT"
        case (.integer, _): "INTEGER"
        case (.bigint, .sqlite), (.serial, .sqlite): "INTEGER"
        case (.bigint, .postgres): "BIGINT"
        case (.serial, .postgres): "BIGSERIAL"
        }
    }
}

extension StoreSchema {
    /// The schema of this build (SQLite version 20, PostgreSQL version 14). A new table or column:
    /// add it here in the order the migration adds it (a column added by `ALTER TABLE` goes last).
    static let current = StoreSchema(tables: [
        Table(name: "events", columns: [
            text("id"), text("title"), bigint("start_key"), integer("all_day"), bigint("end_key", null: true),
            integer("end_all_day", null: true), text("time_zone"), text("symbol"), text("color"), text("notes", default: "''"),
            text("alerts", default: "''"), text("recurrence", null: true), integer("task_count", default: "0"),
            integer("open_count", default: "0"), text("location", default: "''"), text("url", default: "''"),
            integer("task_list", default: "0"),
        ], key: ["id"], indexes: [
            Index(name: "events_by_start", columns: ["start_key", "id"]),
            Index(name: "events_by_title", columns: ["title"]),
            // Covering indexes of the listings: SQLite's single-event listing reads `events_agenda`;
            // PostgreSQL's planner does well enough with `events_by_start` and keeps `events_recurring`.
            Index(name: "events_agenda", columns: ["start_key", "id", "all_day", "open_count", "task_count", "symbol", "color", "title"],
                  condition: "recurrence IS NULL", only: .sqlite),
            Index(name: "events_recurring_listing",
                  columns: ["id", "title", "start_key", "all_day", "symbol", "color", "task_count", "open_count"],
                  condition: "recurrence IS NOT NULL"),
            Index(name: "events_recurring", columns: ["id"], condition: "recurrence IS NOT NULL", only: .postgres),
            // The to-do lists (`Event.isTaskList`): listings leave them out, the list view reads them.
            Index(name: "events_task_lists", columns: ["id"], condition: "task_list = 1"),
        ], withoutRowID: false),
        Table(name: "tasks", columns: [text("event_id"), integer("position"), text("id"), text("text"), text("status"),
                                       bigint("due_key", null: true), integer("due_all_day", null: true),
                                       integer("priority", default: "0"), text("parent", null: true)],
              key: ["event_id", "position"]),
        // Materialised occurrences, on both since PostgreSQL 12 (docs/store.md "Occurrences").
        Table(name: "occurrences", columns: [text("event_id"), bigint("start_key")], key: ["event_id", "start_key"],
              indexes: [Index(name: "occurrences_by_start", columns: ["start_key", "event_id"])]),
        Table(name: "recurrence_spans", columns: [text("event_id"), bigint("from_key"), bigint("to_key")], key: ["event_id"]),
        Table(name: "event_sources", columns: [text("event_id"), text("calendar"), text("uid")], key: ["event_id"],
              indexes: [Index(name: "event_sources_by_calendar", columns: ["calendar"])]),
        Table(name: "feeds", columns: [
            text("name"), text("source"), integer("every"), text("etag", null: true), text("last_modified", null: true),
            bigint("last_checked", null: true), bigint("last_success", null: true), text("last_error", null: true),
            integer("event_count", default: "0"),
        ], key: ["name"]),
        Table(name: "deliveries", columns: [
            text("key"), text("kind"), text("event_id", null: true), bigint("occurrence_start", null: true), text("lead", null: true),
            text("digest", null: true), text("digest_date", null: true), text("channel"), bigint("due_at"), text("state"),
            text("reason", null: true), integer("attempts", default: "0"), bigint("next_attempt_at"),
            bigint("first_attempt_at", null: true), bigint("lease_until", null: true), text("claimed_by", null: true),
            bigint("created_at"), bigint("updated_at"), text("settled_by", null: true), text("progress", null: true),
        ], key: ["key"], indexes: [
            Index(name: "deliveries_due", columns: ["state", "next_attempt_at"]),
            Index(name: "deliveries_by_event", columns: ["event_id", "state"]),
            Index(name: "deliveries_by_update", columns: ["updated_at"]),
        ]),
        Table(name: "alert_lead_sets", columns: [text("alerts")], key: ["alerts"]),
        // The scheduler's marks (`last_pass`, …); PostgreSQL's also holds `schema_version`.
        Table(name: "meta", columns: [text("name"), bigint("value")], key: ["name"]),
        Table(name: "secrets", columns: [text("name"), text("value"), bigint("created_at")], key: ["name"]),
        Table(name: "used_action_links", columns: [text("id"), text("action"), text("event_id"), bigint("used_at"), bigint("expires_at")],
              key: ["id"], indexes: [Index(name: "used_action_links_by_expiry", columns: ["expires_at"])]),
        Table(name: "caldav_accounts", columns: [
            text("name"), text("url"), text("username"), text("password_source"), integer("every"), bigint("last_sync", null: true),
            text("last_error", null: true), text("ca_file", null: true), integer("failures", default: "0"),
            bigint("next_attempt", null: true), integer("login_refused", default: "0"), text("fingerprint", null: true),
            integer("timeout", null: true),
        ], key: ["name"]),
        Table(name: "caldav_calendars", columns: [
            text("account"), text("url"), text("display_name"), text("color", null: true), text("components"), integer("selected"),
            text("sync_token", null: true), text("ctag", null: true), bigint("local_changes", default: "0"),
            bigint("synced_changes", null: true),
        ], key: ["account", "url"]),
        Table(name: "caldav_resources", columns: [
            text("account"), text("calendar_url"), text("url"), text("etag", null: true), text("uid"), text("text"),
        ], key: ["account", "calendar_url", "url"]),
        // SQLite numbers the rows itself (its rowid); PostgreSQL has no rowid, so a sequence.
        Table(name: "caldav_conflicts", columns: [
            Column(name: "id", type: .serial, only: .postgres), text("account"), text("calendar_url"), bigint("at"), text("message"),
        ], key: ["id"], indexes: [Index(name: "caldav_conflicts_by_account", columns: ["account", "at"])], withoutRowID: false),
        Table(name: "schedulers", columns: [text("host"), integer("pid"), text("version"), bigint("started_at"), bigint("last_seen")],
              key: ["host", "pid"], withoutRowID: false),
        Table(name: "changed_events", columns: [text("event_id")], key: ["event_id"]),
        Table(name: "caldav_edits", columns: [text("event_id"), text("field"), bigint("changed_at")], key: ["event_id", "field"]),
    ])

    static func text(_ name: String, null: Bool = false, default value: String? = nil) -> Column {
        Column(name: name, type: .text, nullable: null, defaultSQL: value)
    }

    static func integer(_ name: String, null: Bool = false, default value: String? = nil) -> Column {
        Column(name: name, type: .integer, nullable: null, defaultSQL: value)
    }

    static func bigint(_ name: String, null: Bool = false, default value: String? = nil) -> Column {
        Column(name: name, type: .bigint, nullable: null, defaultSQL: value)
    }
}
