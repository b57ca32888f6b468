import Foundation

/// The PostgreSQL schema's migrations (docs/store.md).
extension PostgresStore {
    /// Creates `meta` if missing, then runs the migrations from the version it records up to
    /// `target` and records `target`: in the caller's transaction, in the schema its search path
    /// names. A recorded version newer than `target` throws, changing nothing.
    static func migrate(_ connection: PostgresConnection, store: String, to target: Int = schemaVersion) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)")
        let recorded = try connection.query("SELECT value FROM meta WHERE name = 'schema_version'")
        let current = recorded.count > 0 ? recorded.int(0, 0) : 0
        try Store.checkKnown(version: current, path: store, known: target)
        for version in current..<target { try connection.execute(migrations[version]) }
        try connection.query("INSERT INTO meta (name, value) VALUES ('schema_version', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                             [String(target)])
    }

    /// Entry `k` upgrades the schema from version `k` to `k + 1`, as SQL text written out whole: a
    /// migration is never edited once released, nor built from today's code; a change to the
    /// schema is a new entry at the end (docs/store.md). `MigrationTests` pins each text.
    static let migrations: [String] = [
        // Version 1. Its events table was built from `EventColumn` until the list was frozen: these are
        // the columns every released datebook created.
        """
        CREATE TABLE events (id TEXT PRIMARY KEY, title TEXT NOT NULL, start_key BIGINT NOT NULL, all_day INTEGER NOT NULL, end_key BIGINT, end_all_day INTEGER, time_zone TEXT NOT NULL, symbol TEXT NOT NULL, color TEXT NOT NULL, notes TEXT NOT NULL DEFAULT '', alerts TEXT NOT NULL DEFAULT '', recurrence TEXT, task_count INTEGER NOT NULL DEFAULT 0, open_count INTEGER NOT NULL DEFAULT 0, location TEXT NOT NULL DEFAULT '', url TEXT NOT NULL DEFAULT '');
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
        // Version 2. The action-link key and the links used (issue 16); see PostgresStore+ActionLinks.swift.
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
        // Version 3. Wake-ups: every transaction that changes what may be due notifies the daemons on commit
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
        // Version 4. The live scheduler instances and who settled each delivery; see SchedulerInstance.swift.
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
        // Version 5. CalDAV accounts (issue 18); see PostgresStore+CalDAV.swift.
        """
        CREATE TABLE caldav_accounts (
            name TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            username TEXT NOT NULL,
            password_source TEXT NOT NULL,
            every INTEGER NOT NULL,
            last_sync BIGINT,
            last_error TEXT
        );
        CREATE TABLE caldav_calendars (
            account TEXT NOT NULL REFERENCES caldav_accounts (name) ON DELETE CASCADE,
            url TEXT NOT NULL,
            display_name TEXT NOT NULL,
            color TEXT,
            components TEXT NOT NULL,
            selected INTEGER NOT NULL,
            sync_token TEXT,
            ctag TEXT,
            local_digest TEXT,
            PRIMARY KEY (account, url)
        );
        CREATE TABLE caldav_resources (
            account TEXT NOT NULL,
            calendar_url TEXT NOT NULL,
            url TEXT NOT NULL,
            etag TEXT,
            uid TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (account, calendar_url, url),
            FOREIGN KEY (account, calendar_url) REFERENCES caldav_calendars (account, url) ON DELETE CASCADE
        );
        CREATE TABLE caldav_conflicts (
            id BIGSERIAL PRIMARY KEY,
            account TEXT NOT NULL,
            calendar_url TEXT NOT NULL,
            at BIGINT NOT NULL,
            message TEXT NOT NULL,
            FOREIGN KEY (account, calendar_url) REFERENCES caldav_calendars (account, url) ON DELETE CASCADE
        );
        CREATE INDEX caldav_conflicts_by_account ON caldav_conflicts (account, at);
        """,
        // Version 6. Events whose alert times changed since the last pass; see PostgresStore+ChangedEvents.swift.
        """
        CREATE TABLE changed_events (event_id TEXT PRIMARY KEY);
        CREATE FUNCTION queue_inserted_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            INSERT INTO changed_events (event_id) SELECT id FROM inserted_events ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$;
        CREATE FUNCTION queue_moved_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            INSERT INTO changed_events (event_id) SELECT n.id FROM updated_events n JOIN previous_events o ON o.id = n.id
                WHERE (n.start_key, n.all_day, n.time_zone, n.alerts, n.recurrence)
                    IS DISTINCT FROM (o.start_key, o.all_day, o.time_zone, o.alerts, o.recurrence)
                ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$;
        CREATE TRIGGER events_queue_insert AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
            FOR EACH STATEMENT EXECUTE FUNCTION queue_inserted_events();
        CREATE TRIGGER events_queue_update AFTER UPDATE ON events
            REFERENCING OLD TABLE AS previous_events NEW TABLE AS updated_events
            FOR EACH STATEMENT EXECUTE FUNCTION queue_moved_events();
        """,
        // Version 7. A CalDAV account's own CA file (issue 18); see CalDAVStore.swift.
        """
        ALTER TABLE caldav_accounts ADD COLUMN ca_file TEXT;
        """,
        // Version 8. Each CalDAV calendar's count of local changes, kept by triggers (issue 18); see CalDAVLocalChanges.swift.
        """
        ALTER TABLE caldav_calendars DROP COLUMN local_digest;
        ALTER TABLE caldav_calendars ADD COLUMN local_changes BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE caldav_calendars ADD COLUMN synced_changes BIGINT;
        CREATE FUNCTION caldav_events_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (SELECT s.calendar FROM event_sources s JOIN touched_events t ON t.id = s.event_id); RETURN NULL; END $$;
        CREATE FUNCTION caldav_tasks_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (SELECT s.calendar FROM event_sources s JOIN touched_tasks t ON t.event_id = s.event_id); RETURN NULL; END $$;
        CREATE FUNCTION caldav_sources_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (SELECT calendar FROM touched_sources); RETURN NULL; END $$;
        CREATE FUNCTION caldav_sources_moved() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (SELECT calendar FROM touched_sources UNION SELECT calendar FROM previous_sources); RETURN NULL; END $$;
        CREATE TRIGGER events_caldav_changes AFTER UPDATE ON events REFERENCING NEW TABLE AS touched_events FOR EACH STATEMENT EXECUTE FUNCTION caldav_events_changed();
        CREATE TRIGGER tasks_caldav_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS touched_tasks FOR EACH STATEMENT EXECUTE FUNCTION caldav_tasks_changed();
        CREATE TRIGGER tasks_caldav_update AFTER UPDATE ON tasks REFERENCING NEW TABLE AS touched_tasks FOR EACH STATEMENT EXECUTE FUNCTION caldav_tasks_changed();
        CREATE TRIGGER tasks_caldav_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS touched_tasks FOR EACH STATEMENT EXECUTE FUNCTION caldav_tasks_changed();
        CREATE TRIGGER event_sources_caldav_insert AFTER INSERT ON event_sources REFERENCING NEW TABLE AS touched_sources FOR EACH STATEMENT EXECUTE FUNCTION caldav_sources_changed();
        CREATE TRIGGER event_sources_caldav_delete AFTER DELETE ON event_sources REFERENCING OLD TABLE AS touched_sources FOR EACH STATEMENT EXECUTE FUNCTION caldav_sources_changed();
        CREATE TRIGGER event_sources_caldav_update AFTER UPDATE ON event_sources REFERENCING OLD TABLE AS previous_sources NEW TABLE AS touched_sources FOR EACH STATEMENT EXECUTE FUNCTION caldav_sources_moved();
        """,
        // Version 9. Each CalDAV account's backoff after failed syncs (issue 31); see CalDAVBackoff.swift.
        """
        ALTER TABLE caldav_accounts ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE caldav_accounts ADD COLUMN next_attempt BIGINT;
        ALTER TABLE caldav_accounts ADD COLUMN login_refused INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE caldav_accounts ADD COLUMN fingerprint TEXT;
        """,
        // Version 10. Every function in the schema resolves names in its own schema, whoever writes
        // (issue 30): before, a DBA's `UPDATE datebook.tasks …` in psql found no `data_version`, and with
        // a second datebook schema first on the path a change was queued there. A later migration that
        // creates a function gives it the same `SET search_path` clause.
        """
        DO $$
        DECLARE
            fn regprocedure;
        BEGIN
            FOR fn IN SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                            WHERE n.nspname = current_schema() LOOP
                EXECUTE format('ALTER FUNCTION %s SET search_path = %I', fn, current_schema());
            END LOOP;
        END $$;
        """,
        // Version 11. What a channel accepted of a delivery sent in parts or to several recipients
        // (issue 28); see Store+Ledger.swift.
        """
        ALTER TABLE deliveries ADD COLUMN progress TEXT;
        """,
        // Version 12. Recurring events' occurrences materialised as in SQLite (issue 30): the same SQL answers
        // the same questions on both, and other programs reading the database see the occurrences; see
        // SQLStore+Occurrences.swift. A store upgraded from 11 gets its rows on the first opening for
        // writing (`extendRecurrenceHorizon`); until then listings expand what has no span.
        """
        CREATE TABLE occurrences (
            event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            start_key BIGINT NOT NULL,
            PRIMARY KEY (event_id, start_key)
        );
        CREATE INDEX occurrences_by_start ON occurrences (start_key, event_id);
        CREATE TABLE recurrence_spans (
            event_id TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
            from_key BIGINT NOT NULL,
            to_key BIGINT NOT NULL
        );
        CREATE INDEX events_recurring_listing ON events (id, title, start_key, all_day, symbol, color, task_count, open_count)
            WHERE recurrence IS NOT NULL;
        """,
        // Version 13. One schema on both backends (issue 30; Sources/DatebookStore/StoreSchema.swift): the
        // per-event alert lead lists in use are kept in `alert_lead_sets` by statement triggers, as SQLite
        // keeps them, so a pass reads a few rows instead of every event's.
        """
        CREATE TABLE alert_lead_sets (alerts TEXT PRIMARY KEY);
        INSERT INTO alert_lead_sets (alerts) SELECT DISTINCT alerts FROM events WHERE alerts > '';
        CREATE FUNCTION remember_alert_lead_sets() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            INSERT INTO alert_lead_sets (alerts) SELECT DISTINCT alerts FROM touched_events WHERE alerts > '' ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$;
        DO $$ BEGIN
            EXECUTE format('ALTER FUNCTION remember_alert_lead_sets() SET search_path = %I', current_schema());
        END $$;
        CREATE TRIGGER events_alert_sets_insert AFTER INSERT ON events REFERENCING NEW TABLE AS touched_events
            FOR EACH STATEMENT EXECUTE FUNCTION remember_alert_lead_sets();
        CREATE TRIGGER events_alert_sets_update AFTER UPDATE ON events REFERENCING NEW TABLE AS touched_events
            FOR EACH STATEMENT EXECUTE FUNCTION remember_alert_lead_sets();
        """,
        // Version 14. When each field of a CalDAV calendar's event was last changed here, for conflicts
        // (the later change wins), and each account's request timeout (issue 31); see CalDAVEdits.swift.
        """
        CREATE TABLE caldav_edits (
            event_id TEXT NOT NULL,
            field TEXT NOT NULL,
            changed_at BIGINT NOT NULL,
            PRIMARY KEY (event_id, field)
        );
        ALTER TABLE caldav_accounts ADD COLUMN timeout INTEGER;
        """,
        // Version 15 (issue 31). Stand-alone
        // to-dos, as SQLite's version 21: an event may be a to-do list, and a task has a due date, a priority
        // and a parent task.
        """
        ALTER TABLE events ADD COLUMN task_list INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN due_key BIGINT;
        ALTER TABLE tasks ADD COLUMN due_all_day INTEGER;
        ALTER TABLE tasks ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN parent TEXT;
        CREATE INDEX events_task_lists ON events (id) WHERE task_list = 1;
        """,
    ]
}
