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
/// (The columns and triggers: `Store.migrations` version 16, `PostgresStore.migrations` version 8.)
enum CalDAVLocalChanges {
    /// What a suspended `events_caldav_changes` trigger would have done for a bulk save, and more.
    static let bumpAll = "UPDATE caldav_calendars SET local_changes = local_changes + 1"

    static let sqliteTriggers: Set<String> = ["events_caldav_changes"]

    /// The events recorded under `calendar` (`$1`) whose UID is `$2` followed by `#`: the
    /// overrides (RECURRENCE-ID instances) the pull made of the event with that UID.
    static let overridesQuery = "SELECT event_id FROM event_sources WHERE calendar = $1 AND substr(uid, 1, length($2) + 1) = $2 || '#'"
}
