import DatebookCore
import CSQLite
import Foundation

extension Store {
    /// The newest schema this build knows.
    public static let schemaVersion = migrations.count

    /// Entry `k` upgrades the schema from version `k` to `k + 1`, as SQL text written out whole: a
    /// migration is never edited once released, nor built from today's code (a column list, a
    /// constant the queries share); a change to the schema is a new entry at the end
    /// (docs/store.md). `MigrationTests` pins each text.
    static let migrations: [String] = [
        // Version 1.
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
        // Version 2. Recurrence, iCalendar sources and feeds (issue 6); see Store+Recurrence.swift, Store+Feeds.swift.
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
        // Version 3. Agenda listings read only these columns: a covering index spares a table lookup per row.
        """
        CREATE INDEX events_agenda ON events(start_key, id, all_day, open_count, task_count, symbol, color, title)
            WHERE recurrence IS NULL;
        """,
        // Version 4. The delivery ledger (issue 5); see Store+Ledger.swift.
        """
        CREATE TABLE deliveries (
            key TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('alert', 'digest')),
            event_id TEXT,
            occurrence_start INTEGER,
            lead TEXT,
            digest TEXT,
            digest_date TEXT,
            channel TEXT NOT NULL,
            due_at INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'sent-late', 'skipped', 'cancelled', 'failed')),
            reason TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            first_attempt_at INTEGER,
            claimed_until INTEGER,
            claimed_by TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
        CREATE INDEX deliveries_by_event ON deliveries(event_id, state);
        CREATE INDEX deliveries_by_update ON deliveries(updated_at);
        CREATE TABLE alert_lead_sets (alerts TEXT PRIMARY KEY) WITHOUT ROWID;
        INSERT OR IGNORE INTO alert_lead_sets SELECT DISTINCT alerts FROM events WHERE alerts > '';
        CREATE TRIGGER events_alert_sets_insert AFTER INSERT ON events WHEN NEW.alerts > ''
        BEGIN INSERT INTO alert_lead_sets SELECT NEW.alerts WHERE NOT EXISTS (SELECT 1 FROM alert_lead_sets WHERE alerts = NEW.alerts); END;
        CREATE TRIGGER events_alert_sets_update AFTER UPDATE OF alerts ON events WHEN NEW.alerts > ''
        BEGIN INSERT INTO alert_lead_sets SELECT NEW.alerts WHERE NOT EXISTS (SELECT 1 FROM alert_lead_sets WHERE alerts = NEW.alerts); END;
        CREATE TABLE scheduler_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        """,
        // Version 5. Listings look up the recurring events that occur in a window by id: a covering partial index
        // answers from its own pages instead of the id index plus a table row per event.
        """
        DROP INDEX events_recurring;
        CREATE INDEX events_recurring_listing ON events(id, title, start_key, all_day, symbol, color, task_count, open_count)
            WHERE recurrence IS NOT NULL;
        """,
        // Version 6. A CHECK of `x IN (three or more values)` makes SQLite build a temporary B-tree of the values
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
        // Version 7. Sources are looked up by calendar only (a feed's refresh); the UID in the index made every
        // key three times as long for nothing, and a 100k-event import rebuilds this index.
        """
        DROP INDEX event_sources_by_calendar;
        CREATE INDEX event_sources_by_calendar ON event_sources(calendar);
        """,
        // Version 8. Only `datebook tasks` looked tasks up by status, and its time is the events and tasks it
        // prints (2.0-2.5 s at 100k events with or without the index); rebuilding the index was the
        // largest single step of a 100k-event import's index rebuild (~0.2 s of 0.55 s).
        """
        DROP INDEX tasks_by_status;
        """,
        // Version 9. Floating times (RFC 5545 §3.3.5): `all_day` and `end_all_day` hold a `StartKind`, 0 an
        // instant, 1 a date, 2 a floating time keyed by its wall clock read as UTC. The columns
        // and the covering indexes stay as they are; the version keeps older builds, which would
        // read 2 as a date, from opening a store that may hold one.
        """
        SELECT 1;
        """,
        // Version 10. The action-link key and the links used (issue 16); see Store+ActionLinks.swift.
        """
        CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE used_action_links (
            id TEXT PRIMARY KEY,
            action TEXT NOT NULL,
            event_id TEXT NOT NULL,
            used_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX used_action_links_by_expiry ON used_action_links(expires_at);
        """,
        // Version 11. Location and link (issue 15). iCalendar imports used to fold LOCATION into the notes as a
        // `Location: …` line; `moveLocationLines` moves those lines into the new column.
        """
        ALTER TABLE events ADD COLUMN location TEXT NOT NULL DEFAULT '';
        ALTER TABLE events ADD COLUMN url TEXT NOT NULL DEFAULT '';
        """,
        // Version 12. CalDAV accounts, their calendars and each server resource's own text (issue 18); see Store+CalDAV.swift.
        """
        CREATE TABLE caldav_accounts (
            name TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            username TEXT NOT NULL,
            password_source TEXT NOT NULL,
            every INTEGER NOT NULL,
            last_sync INTEGER,
            last_error TEXT
        ) WITHOUT ROWID;
        CREATE TABLE caldav_calendars (
            account TEXT NOT NULL REFERENCES caldav_accounts(name) ON DELETE CASCADE,
            url TEXT NOT NULL,
            display_name TEXT NOT NULL,
            color TEXT,
            components TEXT NOT NULL,
            selected INTEGER NOT NULL,
            sync_token TEXT,
            ctag TEXT,
            local_digest TEXT,
            PRIMARY KEY (account, url)
        ) WITHOUT ROWID;
        CREATE TABLE caldav_resources (
            account TEXT NOT NULL,
            calendar_url TEXT NOT NULL,
            url TEXT NOT NULL,
            etag TEXT,
            uid TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (account, calendar_url, url),
            FOREIGN KEY (account, calendar_url) REFERENCES caldav_calendars(account, url) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE TABLE caldav_conflicts (
            account TEXT NOT NULL,
            calendar_url TEXT NOT NULL,
            at INTEGER NOT NULL,
            message TEXT NOT NULL,
            FOREIGN KEY (account, calendar_url) REFERENCES caldav_calendars(account, url) ON DELETE CASCADE
        );
        CREATE INDEX caldav_conflicts_by_account ON caldav_conflicts(account, at);
        """,
        // Version 13. The live scheduler instances and who settled each delivery (issue 17); see SchedulerInstance.swift.
        """
        CREATE TABLE schedulers (
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            version TEXT NOT NULL,
            started_at BIGINT NOT NULL,
            last_seen BIGINT NOT NULL,
            PRIMARY KEY (host, pid)
        );
        ALTER TABLE deliveries ADD COLUMN settled_by TEXT;
        """,
        // Version 14. Events whose alert times changed since the last pass, for the pass's look back; see Store+ChangedEvents.swift.
        """
        CREATE TABLE changed_events (event_id TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TRIGGER events_queue_insert AFTER INSERT ON events
        BEGIN INSERT INTO changed_events (event_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM changed_events WHERE event_id = NEW.id); END;
        CREATE TRIGGER events_queue_update AFTER UPDATE OF start_key, all_day, time_zone, alerts, recurrence ON events
        WHEN NEW.start_key IS NOT OLD.start_key OR NEW.all_day IS NOT OLD.all_day OR NEW.time_zone IS NOT OLD.time_zone OR NEW.alerts IS NOT OLD.alerts OR NEW.recurrence IS NOT OLD.recurrence
        BEGIN INSERT INTO changed_events (event_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM changed_events WHERE event_id = NEW.id); END;
        """,
        // Version 15. A CalDAV account's own CA file (issue 18); see CalDAVStore.swift.
        """
        ALTER TABLE caldav_accounts ADD COLUMN ca_file TEXT;
        """,
        // Version 16. Each CalDAV calendar's count of local changes, kept by triggers (issue 18); see CalDAVLocalChanges.swift.
        """
        ALTER TABLE caldav_calendars DROP COLUMN local_digest;
        ALTER TABLE caldav_calendars ADD COLUMN local_changes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE caldav_calendars ADD COLUMN synced_changes INTEGER;
        CREATE TRIGGER events_caldav_changes AFTER UPDATE ON events
        BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (SELECT calendar FROM event_sources WHERE event_id = NEW.id); END;
        CREATE TRIGGER event_sources_caldav_insert AFTER INSERT ON event_sources WHEN NEW.calendar LIKE 'caldav:%'
        BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (NEW.calendar); END;
        CREATE TRIGGER event_sources_caldav_delete AFTER DELETE ON event_sources WHEN OLD.calendar LIKE 'caldav:%'
        BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (OLD.calendar); END;
        CREATE TRIGGER event_sources_caldav_update AFTER UPDATE ON event_sources
        WHEN NEW.calendar LIKE 'caldav:%' OR OLD.calendar LIKE 'caldav:%'
        BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (NEW.calendar, OLD.calendar); END;
        """,
        // Version 17. Each CalDAV account's backoff after failed syncs (issue 31); see CalDAVBackoff.swift.
        """
        ALTER TABLE caldav_accounts ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE caldav_accounts ADD COLUMN next_attempt INTEGER;
        ALTER TABLE caldav_accounts ADD COLUMN login_refused INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE caldav_accounts ADD COLUMN fingerprint TEXT;
        """,
        // Version 18. What a channel accepted of a delivery sent in parts or to several recipients
        // (issue 28); see Store+Ledger.swift.
        """
        ALTER TABLE deliveries ADD COLUMN progress TEXT;
        """,
        // Version 19. One schema on both backends (issue 30; Sources/DatebookStore/StoreSchema.swift): the
        // lease's end is `lease_until` and the scheduler's marks live in `meta`, as in PostgreSQL.
        """
        ALTER TABLE deliveries RENAME COLUMN claimed_until TO lease_until;
        ALTER TABLE scheduler_meta RENAME TO meta;
        """,
        // Version 20. When each field of a CalDAV calendar's event was last changed here, for conflicts
        // (the later change wins), and each account's request timeout (issue 31); see CalDAVEdits.swift.
        """
        CREATE TABLE caldav_edits (
            event_id TEXT NOT NULL,
            field TEXT NOT NULL,
            changed_at INTEGER NOT NULL,
            PRIMARY KEY (event_id, field)
        ) WITHOUT ROWID;
        ALTER TABLE caldav_accounts ADD COLUMN timeout INTEGER;
        """,
        // Version 21 (issue 31). Stand-alone to-dos: an event may be a to-do list (on no date), and a task
        // has a due date, a priority and a parent task; see docs/caldav.md "Stand-alone to-dos".
        """
        ALTER TABLE events ADD COLUMN task_list INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN due_key INTEGER;
        ALTER TABLE tasks ADD COLUMN due_all_day INTEGER;
        ALTER TABLE tasks ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN parent TEXT;
        CREATE INDEX events_task_lists ON events (id) WHERE task_list = 1;
        """,
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
            try wrap { try Self.migrate(db, from: current, to: Self.schemaVersion) }
        }
    }

    /// Runs the migrations (and the data migrations) from version `current` up to `target` and
    /// records `target`, in the caller's transaction.
    static func migrate(_ db: SQLiteConnection, from current: Int, to target: Int) throws {
        for version in current..<target {
            try db.execute(migrations[version])
            try dataMigrations[version + 1]?(db)
        }
        try db.execute("PRAGMA user_version = \(target)")
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
}
