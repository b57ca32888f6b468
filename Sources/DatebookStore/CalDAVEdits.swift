import DatebookCore
import DatebookICal
import Foundation

/// When each field of an event of a CalDAV calendar was last changed in datebook (issue 31), so a
/// conflict goes to the later change: the sync compares these times with the server's
/// `LAST-MODIFIED` (else `DTSTAMP`) property by property, instead of counting datebook's change
/// as made when the sync noticed it.
///
/// A save of at most `stampedAtMost` events (every command, the web planner, action links) reads
/// the CalDAV events it replaces and records, in its transaction, one row per field it changed
/// (`caldav_edits`, version 20 of the SQLite migrations, 14 of PostgreSQL's), at the store's
/// `editTime` (a command's `--now`) or the system clock. A bigger save (an import) records none: a
/// conflict over such a change falls back to the time of the sync that sends it. The sync's own
/// writes (a pull's rebuild, a merged PUT's record) record nothing either.
public enum CalDAVEdits {
    /// The largest save whose changes are timed.
    static let stampedAtMost = 100

    /// The field names, as the iCalendar properties the push writes for them.
    public static let title = "SUMMARY", start = "DTSTART", end = "DTEND", notes = "DESCRIPTION", location = "LOCATION",
                      url = "URL", recurrence = "RRULE", symbol = ICalEvent.symbolProperty, color = "COLOR", alerts = "VALARM"

    /// The field of a task's text or status: `VTODO <task id> SUMMARY` / `STATUS`.
    public static func task(_ id: String, _ property: String) -> String { "VTODO \(id) \(property)" }

    /// The fields `new` changed from `old`.
    public static func fields(from old: Event, to new: Event) -> [String] {
        var fields: [String] = []
        if old.title != new.title { fields.append(title) }
        if old.start != new.start || old.timeZone != new.timeZone { fields.append(start) }
        if old.end != new.end || old.timeZone != new.timeZone { fields.append(end) }
        if old.notes != new.notes { fields.append(notes) }
        if old.location != new.location { fields.append(location) }
        if old.url != new.url { fields.append(url) }
        if old.recurrence != new.recurrence { fields.append(recurrence) }
        if old.symbol != new.symbol { fields.append(symbol) }
        if old.color != new.color { fields.append(color) }
        if old.alerts != new.alerts { fields.append(alerts) }
        let before = Dictionary(old.tasks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for task in new.tasks {
            guard let was = before[task.id] else { continue }
            if was.text != task.text { fields.append(Self.task(task.id, "SUMMARY")) }
            if was.status != task.status { fields.append(Self.task(task.id, "STATUS")) }
        }
        return fields
    }
}

extension SQLStore {
    /// The events of `events` recorded under a CalDAV calendar, as the store holds them before
    /// they are written (none for a save larger than `CalDAVEdits.stampedAtMost`).
    func calDAVEditBase(_ events: [Event]) throws -> [String: Event] {
        guard !events.isEmpty, events.count <= CalDAVEdits.stampedAtMost else { return [:] }
        var synced: [String] = []
        for event in events {
            if try first("SELECT 1 FROM event_sources WHERE event_id = $1 AND calendar LIKE 'caldav:%'", [.text(event.id)], { _ in true }) != nil {
                synced.append(event.id)
            }
        }
        return synced.isEmpty ? [:] : try self.events(ids: synced)
    }

    /// Records when each field `events` changed from `before` (`calDAVEditBase`) was changed.
    func recordCalDAVEdits(_ events: [Event], replacing before: [String: Event]) throws {
        guard !before.isEmpty else { return }
        let at = editTime ?? Date()
        for event in events {
            guard let old = before[event.id] else { continue }
            for field in CalDAVEdits.fields(from: old, to: event) {
                try run("""
                    INSERT INTO caldav_edits (event_id, field, changed_at) VALUES ($1, $2, $3)
                    ON CONFLICT (event_id, field) DO UPDATE SET changed_at = excluded.changed_at
                    """, .text(event.id), .text(field), .seconds(at))
            }
        }
    }

    public func calDAVEditTimes(of ids: [String]) throws -> [String: [String: Date]] {
        var times: [String: [String: Date]] = [:]
        for id in Set(ids) {
            try run("SELECT field, changed_at FROM caldav_edits WHERE event_id = $1", [.text(id)]) { row in
                times[id, default: [:]][row.text(0)] = row.date(1)
            }
        }
        return times
    }

    /// Forgets the times of events that are gone (after a pull rebuilt a calendar, an account removed).
    func forgetCalDAVEditsOfRemovedEvents() throws {
        try run("DELETE FROM caldav_edits WHERE event_id NOT IN (SELECT id FROM events)")
    }
}
