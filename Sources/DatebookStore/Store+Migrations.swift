import DatebookCore
import CSQLite
import Foundation

extension Store {
    /// The newest schema this build knows.
    public static let schemaVersion = migrations.count

    /// Each entry upgrades the schema from version `index` to `index + 1`; append, never edit.
    static let migrations: [String] = [
        """
        CREATE TABLE events (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            start_key INTEGER NOT NULL,
            all_day INTEGER NOT NULL,
            end_key INTEGER,
            end_all_day INTEGER,
            time_zone TEXT NOT NULL,
            symbol TEXT NOT NULL,
            color TEXT NOT NULL,
            notes TEXT NOT NULL DEFAULT '',
            alerts TEXT NOT NULL DEFAULT '',
            recurrence TEXT,
            task_count INTEGER NOT NULL DEFAULT 0,
            open_count INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX events_by_start ON events(start_key, id);
        CREATE INDEX events_by_title ON events(title);
        CREATE TABLE tasks (
            event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            id TEXT NOT NULL,
            text TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('todo', 'doing', 'done')),
            PRIMARY KEY (event_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX tasks_by_status ON tasks(status, event_id);
        """,
        // Recurrence, iCalendar sources and feeds (issue 6); see Store+Recurrence.swift, Store+Feeds.swift.
        """
        CREATE INDEX events_recurring ON events(id) WHERE recurrence IS NOT NULL;
        CREATE TABLE occurrences (
            event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
            start_key INTEGER NOT NULL,
            PRIMARY KEY (event_id, start_key)
        ) WITHOUT ROWID;
        CREATE INDEX occurrences_by_start ON occurrences(start_key, event_id);
        CREATE TABLE recurrence_spans (
            event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
            from_key INTEGER NOT NULL,
            to_key INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE event_sources (
            event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
            calendar TEXT NOT NULL,
            uid TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX event_sources_by_calendar ON event_sources(calendar, uid);
        CREATE TABLE feeds (
            name TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            every INTEGER NOT NULL,
            etag TEXT,
            last_modified TEXT,
            last_checked INTEGER,
            last_success INTEGER,
            last_error TEXT,
            event_count INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        """,
        // Agenda listings read only these columns: a covering index spares a table lookup per row.
        """
        CREATE INDEX events_agenda ON events(start_key, id, all_day, open_count, task_count, symbol, color, title)
            WHERE recurrence IS NULL;
        """,
        // The delivery ledger (issue 5); see Store+Ledger.swift.
        ledgerMigration,
        // Listings look up the recurring events that occur in a window by id: a covering partial index
        // answers from its own pages instead of the id index plus a table row per event.
        """
        DROP INDEX events_recurring;
        CREATE INDEX events_recurring_listing ON events(id, title, start_key, all_day, symbol, color, task_count, open_count)
            WHERE recurrence IS NOT NULL;
        """,
        // A CHECK of `x IN (three or more values)` makes SQLite build a temporary B-tree of the values
        // every time the statement runs: per task row it cost more than the insert itself (a 100k-event
        // import spent over a second on it). The same rule as comparisons costs nothing; the tables are
        // rebuilt because SQLite cannot alter a constraint in place.
        """
        CREATE TABLE tasks_v6 (
            event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            id TEXT NOT NULL,
            text TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status = 'todo' OR status = 'doing' OR status = 'done'),
            PRIMARY KEY (event_id, position)
        ) WITHOUT ROWID;
        INSERT INTO tasks_v6 (event_id, position, id, text, status) SELECT event_id, position, id, text, status FROM tasks;
        DROP TABLE tasks;
        ALTER TABLE tasks_v6 RENAME TO tasks;
        CREATE INDEX tasks_by_status ON tasks(status, event_id);
        CREATE TABLE deliveries_v6 (
            key TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind = 'alert' OR kind = 'digest'),
            event_id TEXT,
            occurrence_start INTEGER,
            lead TEXT,
            digest TEXT,
            digest_date TEXT,
            channel TEXT NOT NULL,
            due_at INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state = 'pending' OR state = 'sending' OR state = 'sent' OR state = 'sent-late'
                                       OR state = 'skipped' OR state = 'cancelled' OR state = 'failed'),
            reason TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            first_attempt_at INTEGER,
            claimed_until INTEGER,
            claimed_by TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO deliveries_v6 SELECT key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at,
            state, reason, attempts, next_attempt_at, first_attempt_at, claimed_until, claimed_by, created_at, updated_at
            FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v6 RENAME TO deliveries;
        CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
        CREATE INDEX deliveries_by_event ON deliveries(event_id, state);
        CREATE INDEX deliveries_by_update ON deliveries(updated_at);
        """,
        // Sources are looked up by calendar only (a feed's refresh); the UID in the index made every
        // key three times as long for nothing, and a 100k-event import rebuilds this index.
        """
        DROP INDEX event_sources_by_calendar;
        CREATE INDEX event_sources_by_calendar ON event_sources(calendar);
        """,
        // Only `datebook tasks` looked tasks up by status, and its time is the events and tasks it
        // prints (2.0-2.5 s at 100k events with or without the index); rebuilding the index was the
        // largest single step of a 100k-event import's index rebuild (~0.2 s of 0.55 s).
        """
        DROP INDEX tasks_by_status;
        """,
        // Floating times (RFC 5545 §3.3.5): `all_day` and `end_all_day` hold a `StartKind`, 0 an
        // instant, 1 a date, 2 a floating time keyed by its wall clock read as UTC. The columns
        // and the covering indexes stay as they are; the version keeps older builds, which would
        // read 2 as a date, from opening a store that may hold one.
        """
        SELECT 1;
        """,
        // The action-link key and the links used (issue 16); see Store+ActionLinks.swift.
        actionLinksMigration,
        // Location and link (issue 15). iCalendar imports used to fold LOCATION into the notes as a
        // `Location: …` line; `moveLocationLines` moves those lines into the new column.
        """
        ALTER TABLE events ADD COLUMN location TEXT NOT NULL DEFAULT '';
        ALTER TABLE events ADD COLUMN url TEXT NOT NULL DEFAULT '';
        """,
        // CalDAV accounts, their calendars and each server resource's own text (issue 18); see Store+CalDAV.swift.
        calDAVMigration,
        // The live scheduler instances and who settled each delivery (issue 17); see SchedulerInstance.swift.
        schedulersMigration,
        // Events whose alert times changed since the last pass, for the pass's look back; see Store+ChangedEvents.swift.
        changedEventsMigration,
        // A CalDAV account's own CA file (issue 18); see CalDAVStore.swift.
        calDAVCAFileMigration,
        // Each CalDAV calendar's count of local changes, kept by triggers (issue 18); see CalDAVLocalChanges.swift.
        CalDAVLocalChanges.sqliteMigration,
        // Each CalDAV account's backoff after failed syncs (issue 31); see CalDAVBackoff.swift.
        calDAVBackoffMigration(seconds: "INTEGER"),
        // What a channel accepted of a delivery sent in parts or to several recipients (issue 28); see Store+Ledger.swift.
        deliveryProgressMigration,
    ]

    /// Work a migration's SQL cannot do, run right after it (keyed by the version it reaches).
    static let dataMigrations: [Int: @Sendable (SQLiteConnection) throws -> Void] = [11: moveLocationLines]

    /// Moves each event's `Location: …` notes line (the last one, if several) into `location`.
    static func moveLocationLines(_ db: SQLiteConnection) throws {
        var moved: [(id: String, notes: String, location: String)] = []
        let rows = try db.prepare("SELECT id, notes FROM events WHERE notes LIKE '%Location: %' AND location = ''")
        try rows.bind([])
        while try rows.step() {
            if let split = splitLocation(notes: rows.text(1)) { moved.append((rows.text(0), split.notes, split.location)) }
        }
        let update = try db.prepare("UPDATE events SET notes = ?, location = ? WHERE id = ?")
        for row in moved { try update.bind(.text(row.notes), .text(row.location), .text(row.id)).run() }
    }

    /// The notes without their last `Location: …` line, and that line's text; nil when there is none.
    static func splitLocation(notes: String) -> (notes: String, location: String)? {
        let prefix = "Location: "
        var lines = notes.split(separator: "\n", omittingEmptySubsequences: false)
        guard let index = lines.lastIndex(where: { $0.hasPrefix(prefix) }) else { return nil }
        let location = EventURL.cleanLocation(String(lines[index].dropFirst(prefix.count)))
        lines.remove(at: index)
        return (lines.joined(separator: "\n"), location)
    }

    /// Checks the version before touching anything, then switches to WAL and migrates.
    func prepareSchema(writable: Bool) throws {
        let found = Int(try wrap { try db.integer("PRAGMA user_version") })
        try Self.checkKnown(version: found, path: path)
        try wrap {
            try db.execute("PRAGMA foreign_keys = ON")
        }
        if writable {
            // 32 MB of page cache for writers: big imports stop spilling index pages through the WAL.
            try wrap { try db.execute("PRAGMA cache_size = -32768") }
        }
        guard writable else {
            guard found == Self.schemaVersion else { throw StoreError.readOnly(path: path) }
            return
        }
        try wrap {
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = FULL")
        }
        guard found < Self.schemaVersion else { return }
        try transaction {
            // Re-read inside the write lock: another process may have migrated meanwhile.
            let current = Int(try wrap { try db.integer("PRAGMA user_version") })
            for version in current..<Self.schemaVersion {
                try wrap {
                    try db.execute(Self.migrations[version])
                    try Self.dataMigrations[version + 1]?(db)
                }
            }
            try wrap { try db.execute("PRAGMA user_version = \(Self.schemaVersion)") }
        }
    }

    /// Throws unless `version` is one this datebook can open or migrate (0 … `known`).
    static func checkKnown(version: Int, path: String, known: Int = schemaVersion) throws {
        guard version >= 0 else { throw StoreError.unknownSchema(path: path, found: version) }
        guard version <= known else {
            throw StoreError.newerSchema(path: path, found: version, known: known)
        }
    }

    /// The schema version recorded in the file at `path`, read without opening it for writing
    /// (an open would upgrade an older store); nil when there is no file yet.
    public static func recordedSchemaVersion(at path: String) throws -> Int? {
        guard try checkRegularFile(path) else { return nil }
        return try peekVersion(path)
    }

    /// The schema version recorded in the file.
    public func userVersion() throws -> Int {
        Int(try wrap { try db.integer("PRAGMA user_version") })
    }
}
