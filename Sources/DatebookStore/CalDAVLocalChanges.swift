import Foundation

/// Whether a CalDAV calendar was changed in datebook since its last sync, in one row read.
///
/// `caldav_calendars.local_changes` counts the writes to the calendar's events, tasks and
/// `event_sources` rows (an event added, changed, removed, moved in or out): triggers bump it in
/// the transaction of the write itself, so no write path can skip it. `synced_changes` is the
/// count the last sync left in step with the server (NULL: look for local changes at the next
/// sync, whatever the count says). A sync pushes only when the two differ, and its pull applies
/// the server's changes only while the count is still the one its push started from: a change
/// made here meanwhile is pushed first (`CalDAVSync.sync`), never overwritten by the server's copy.
///
/// SQLite: every task write goes with an upsert of its event's row (`Store.write`), so the
/// triggers are on `events` (update; a new event counts when its source row is written) and
/// `event_sources`. A bulk save that suspends the triggers on `events` (Store+BulkLoad.swift)
/// bumps every CalDAV calendar instead. PostgreSQL: statement triggers with transition tables on
/// `events`, `tasks` (its bulk merge may write tasks alone) and `event_sources`, one statement per
/// write however many rows it touched.
enum CalDAVLocalChanges {
    /// The statement that bumps the count of the calendars whose `event_sources.calendar` is in `calendars`.
    static func bump(_ calendars: String) -> String {
        "UPDATE caldav_calendars SET local_changes = local_changes + 1 WHERE 'caldav:' || account || ' ' || url IN (\(calendars));"
    }

    /// What a suspended `events_caldav_changes` trigger would have done for a bulk save, and more.
    static let bumpAll = "UPDATE caldav_calendars SET local_changes = local_changes + 1"

    /// The new columns; the same SQL on both backends but for the integer type.
    static func columns(integer: String) -> String {
        """
        ALTER TABLE caldav_calendars DROP COLUMN local_digest;
        ALTER TABLE caldav_calendars ADD COLUMN local_changes \(integer) NOT NULL DEFAULT 0;
        ALTER TABLE caldav_calendars ADD COLUMN synced_changes \(integer);
        """
    }

    static let sqliteTriggers: Set<String> = ["events_caldav_changes"]

    static let sqliteMigration = columns(integer: "INTEGER") + """

        CREATE TRIGGER events_caldav_changes AFTER UPDATE ON events
        BEGIN \(bump("SELECT calendar FROM event_sources WHERE event_id = NEW.id")) END;
        CREATE TRIGGER event_sources_caldav_insert AFTER INSERT ON event_sources WHEN NEW.calendar LIKE 'caldav:%'
        BEGIN \(bump("NEW.calendar")) END;
        CREATE TRIGGER event_sources_caldav_delete AFTER DELETE ON event_sources WHEN OLD.calendar LIKE 'caldav:%'
        BEGIN \(bump("OLD.calendar")) END;
        CREATE TRIGGER event_sources_caldav_update AFTER UPDATE ON event_sources
        WHEN NEW.calendar LIKE 'caldav:%' OR OLD.calendar LIKE 'caldav:%'
        BEGIN \(bump("NEW.calendar, OLD.calendar")) END;
        """

    /// A PostgreSQL trigger function that bumps the count of `calendars` (a query of the trigger's transition tables).
    static func function(_ name: String, _ calendars: String) -> String {
        "CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \(bump(calendars)) RETURN NULL; END $$;"
    }

    /// A PostgreSQL statement trigger (`AFTER \(on)`) with transition tables, calling `function`.
    static func trigger(_ name: String, _ on: String, _ tables: String, _ function: String) -> String {
        "CREATE TRIGGER \(name) AFTER \(on) REFERENCING \(tables) FOR EACH STATEMENT EXECUTE FUNCTION \(function)();"
    }

    static let postgresMigration = columns(integer: "BIGINT") + """

        \(function("caldav_events_changed", "SELECT s.calendar FROM event_sources s JOIN touched_events t ON t.id = s.event_id"))
        \(function("caldav_tasks_changed", "SELECT s.calendar FROM event_sources s JOIN touched_tasks t ON t.event_id = s.event_id"))
        \(function("caldav_sources_changed", "SELECT calendar FROM touched_sources"))
        \(function("caldav_sources_moved", "SELECT calendar FROM touched_sources UNION SELECT calendar FROM previous_sources"))
        \(trigger("events_caldav_changes", "UPDATE ON events", "NEW TABLE AS touched_events", "caldav_events_changed"))
        \(trigger("tasks_caldav_insert", "INSERT ON tasks", "NEW TABLE AS touched_tasks", "caldav_tasks_changed"))
        \(trigger("tasks_caldav_update", "UPDATE ON tasks", "NEW TABLE AS touched_tasks", "caldav_tasks_changed"))
        \(trigger("tasks_caldav_delete", "DELETE ON tasks", "OLD TABLE AS touched_tasks", "caldav_tasks_changed"))
        \(trigger("event_sources_caldav_insert", "INSERT ON event_sources", "NEW TABLE AS touched_sources", "caldav_sources_changed"))
        \(trigger("event_sources_caldav_delete", "DELETE ON event_sources", "OLD TABLE AS touched_sources", "caldav_sources_changed"))
        \(trigger("event_sources_caldav_update", "UPDATE ON event_sources", "OLD TABLE AS previous_sources NEW TABLE AS touched_sources",
                   "caldav_sources_moved"))
        """

    /// The events recorded under `calendar` (`$1`) whose UID is `$2` followed by `#`: the
    /// overrides (RECURRENCE-ID instances) the pull made of the event with that UID.
    static let overridesQuery = "SELECT event_id FROM event_sources WHERE calendar = $1 AND substr(uid, 1, length($2) + 1) = $2 || '#'"
}
