import DatebookCore
import Foundation

/// CalDAV accounts, calendars, the server's texts and the conflicts (`CalDAVStore`), on both databases.
extension SQLStore {
    /// Adds an account with the calendars discovery found; false when one with this name exists.
    @discardableResult
    public func addCalDAVAccount(_ account: CalDAVAccount, calendars: [CalDAVCalendar]) throws -> Bool {
        try transaction {
            guard try run("""
                INSERT INTO caldav_accounts (name, url, username, password_source, every, ca_file, timeout) VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (name) DO NOTHING
                """, .text(account.name), .text(account.url), .text(account.username), .text(account.passwordSource),
                      .int(account.every), .optional(account.caFile), account.timeout.map { .int($0) } ?? .null) > 0
            else { return false }
            for calendar in calendars { try writeCalDAVCalendar(calendar, account: account.name, upsert: "") }
            return true
        }
    }

    public func setCalDAVTimeout(_ seconds: Int?, account: String) throws {
        try run("UPDATE caldav_accounts SET timeout = $1 WHERE name = $2", seconds.map { .int($0) } ?? .null, .text(account))
    }

    public func updateCalDAVCalendars(_ calendars: [CalDAVCalendar]) throws {
        try transaction {
            for calendar in calendars {
                try writeCalDAVCalendar(calendar, account: calendar.account, upsert: """
                    ON CONFLICT (account, url) DO UPDATE SET display_name = excluded.display_name, color = excluded.color,
                        components = excluded.components, selected = excluded.selected
                    """)
            }
        }
    }

    /// Inserts one calendar row of `account`, `upsert` after its values (empty: a plain insert).
    private func writeCalDAVCalendar(_ calendar: CalDAVCalendar, account: String, upsert: String) throws {
        try run("""
            INSERT INTO caldav_calendars (account, url, display_name, color, components, selected, ctag)
            VALUES ($1, $2, $3, $4, $5, $6, $7) \(upsert)
            """, .text(account), .text(calendar.url), .text(calendar.displayName), .optional(calendar.color),
                .text(calendar.components.joined(separator: ",")), .int(calendar.selected ? 1 : 0), .optional(calendar.ctag))
    }

    public func calDAVAccounts() throws -> [CalDAVAccount] {
        try rows("""
            SELECT name, url, username, password_source, every, last_sync, last_error, ca_file,
                failures, next_attempt, login_refused, fingerprint, timeout
            FROM caldav_accounts ORDER BY name\(dialect.byteOrder)
            """) { row in
            CalDAVAccount(name: row.text(0), url: row.text(1), username: row.text(2), passwordSource: row.text(3), every: row.int(4),
                          caFile: row.optionalText(7), timeout: row.isNull(12) ? nil : row.int(12), lastSync: row.date(5),
                          lastError: row.optionalText(6),
                          backoff: CalDAVBackoff(failures: row.int(8), nextAttempt: row.date(9), loginRefused: row.int(10) != 0,
                                                 fingerprint: row.optionalText(11)))
        }
    }

    public func calDAVCalendars(account: String) throws -> [CalDAVCalendar] {
        try rows("""
            SELECT url, display_name, color, components, selected, sync_token, ctag, local_changes, synced_changes FROM caldav_calendars
            WHERE account = $1 ORDER BY display_name\(dialect.byteOrder), url\(dialect.byteOrder)
            """, [.text(account)]) { row in
            CalDAVCalendar(account: account, url: row.text(0), displayName: row.text(1), color: row.optionalText(2),
                           components: row.text(3).split(separator: ",").map(String.init), selected: row.int(4) != 0,
                           syncToken: row.optionalText(5), ctag: row.optionalText(6), localChanges: row.int64(7),
                           syncedChanges: row.isNull(8) ? nil : row.int64(8))
        }
    }

    public func calDAVResources(of calendar: CalDAVCalendar) throws -> [String: CalDAVResource] {
        var result: [String: CalDAVResource] = [:]
        try run("SELECT url, etag, uid, text FROM caldav_resources WHERE account = $1 AND calendar_url = $2",
                [.text(calendar.account), .text(calendar.url)]) { row in
            result[row.text(0)] = CalDAVResource(url: row.text(0), etag: row.optionalText(1), uid: row.text(2), text: row.text(3))
        }
        return result
    }

    public func save(_ event: Event, into calendar: CalDAVCalendar, uid: String) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try saveInTransaction(event)
            try run("INSERT INTO event_sources (event_id, calendar, uid) VALUES ($1, $2, $3) \(Store.sourcesUpsert)",
                    .text(event.id), .text(calendar.sourceCalendar), .text(uid))
        }
    }

    public func saveOutsideCalDAV(_ event: Event) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try saveInTransaction(event)
            try run("DELETE FROM event_sources WHERE event_id = $1", .text(event.id))
        }
    }

    /// Removes the overrides the server made of the event (RECURRENCE-ID instances), when it is
    /// recorded under a CalDAV calendar: it is leaving that calendar.
    func removeOverrides(of id: String) throws {
        guard let source = try first("SELECT calendar, uid FROM event_sources WHERE event_id = $1 AND calendar LIKE 'caldav:%'",
                                     [.text(id)], { ($0.text(0), $0.text(1)) })
        else { return }
        try run("DELETE FROM events WHERE id IN (\(CalDAVLocalChanges.overridesQuery))", .text(source.0), .text(source.1))
    }

    public func calDAVEventUIDs(of calendar: CalDAVCalendar) throws -> [String: String] {
        var result: [String: String] = [:]
        try run("SELECT event_id, uid FROM event_sources WHERE calendar = $1", [.text(calendar.sourceCalendar)]) {
            result[$0.text(0)] = $0.text(1)
        }
        return result
    }

    @discardableResult
    public func removeCalDAVAccount(named name: String) throws -> Bool {
        try transaction {
            for calendar in try calDAVCalendars(account: name) { try deleteSourceEvents(calendar: calendar.sourceCalendar) }
            let removed = try run("DELETE FROM caldav_accounts WHERE name = $1", .text(name)) > 0
            try forgetCalDAVEditsOfRemovedEvents()
            return removed
        }
    }

    @discardableResult
    public func applyCalDAVChanges(to calendar: CalDAVCalendar, changed: [CalDAVResource], removed: [String],
                                   events: ICSImport?, syncToken: String?, ctag: String?, pushedFrom: Int64?, settled: Bool,
                                   whenChangedHere: (() throws -> ICSImport)?) throws -> Bool {
        try transaction {
            if pushedFrom != nil, events != nil, dialect.locksRows {
                // The calendar's events first, then its row: the order a write here takes them (its
                // row, then the count's trigger), so the two wait for each other instead of deadlocking.
                // A change committed before these locks shows in the count; one after them waits for this rebuild.
                try run("SELECT e.id FROM events e JOIN event_sources s ON s.event_id = e.id WHERE s.calendar = $1 FOR UPDATE OF e",
                        .text(calendar.sourceCalendar))
                try lockCalDAVCalendar(calendar)
            }
            guard let (events, keptHere) = try calDAVEventsToWrite(events, of: calendar, pushedFrom: pushedFrom,
                                                                   whenChangedHere: whenChangedHere) else { return false }
            for url in removed { try deleteCalDAVResource(url, in: calendar) }
            for resource in changed { try upsertCalDAVResource(resource, in: calendar) }
            try run("UPDATE caldav_calendars SET sync_token = $1, ctag = $2 WHERE account = $3 AND url = $4",
                    .optional(syncToken), .optional(ctag), .text(calendar.account), .text(calendar.url))
            if let events {
                try replaceSourceEvents(calendar: calendar.sourceCalendar, with: events)
                try forgetCalDAVEditsOfRemovedEvents()
            }
            try recordCalDAVSyncedChanges(after: pushedFrom, rebuilt: events != nil, settled: settled && !keptHere, of: calendar)
            return true
        }
    }

    public func recordCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar, removed: Bool) throws {
        if removed {
            try deleteCalDAVResource(resource.url, in: calendar)
        } else {
            try upsertCalDAVResource(resource, in: calendar)
        }
    }

    private func deleteCalDAVResource(_ url: String, in calendar: CalDAVCalendar) throws {
        try run("DELETE FROM caldav_resources WHERE account = $1 AND calendar_url = $2 AND url = $3",
                .text(calendar.account), .text(calendar.url), .text(url))
    }

    /// Writes one resource's held text and ETag.
    private func upsertCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar) throws {
        try run("""
            INSERT INTO caldav_resources (account, calendar_url, url, etag, uid, text) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (account, calendar_url, url) DO UPDATE SET etag = excluded.etag, uid = excluded.uid, text = excluded.text
            """, .text(calendar.account), .text(calendar.url), .text(resource.url), .optional(resource.etag), .text(resource.uid),
                .text(resource.text))
    }

    /// Locks the calendar's row until the transaction ends (where the dialect locks rows).
    private func lockCalDAVCalendar(_ calendar: CalDAVCalendar) throws {
        try run("SELECT 1 FROM caldav_calendars WHERE account = $1 AND url = $2 FOR UPDATE", .text(calendar.account), .text(calendar.url))
    }

    public func recordCalDAVMerge(_ resource: CalDAVResource, in calendar: CalDAVCalendar, conflicts: [String], now: Date, events ids: [String],
                                  update: ([String: Event]) throws -> (events: [Event], conflicts: [String])) throws -> ClosedRange<Int64>? {
        try transaction {
            if dialect.locksRows {
                // The events, then the calendar's row (the order a write here takes them, as `applyCalDAVChanges`):
                // no other write comes between the count's reads. (SQLite's write transaction holds the whole store.)
                for id in ids.sorted() { try run("SELECT id FROM events WHERE id = $1 FOR UPDATE", .text(id)) }
                try lockCalDAVCalendar(calendar)
            }
            let before = try calDAVLocalChanges(of: calendar)
            let (events, more) = try update(try self.events(ids: ids))
            for event in events { try write(event) }  // the push's own write: no edit time (CalDAVEdits)
            try upsertCalDAVResource(resource, in: calendar)
            try recordCalDAVConflicts(conflicts + more, in: calendar, now: now)
            return events.isEmpty ? nil : before...(try calDAVLocalChanges(of: calendar))
        }
    }

    public func calDAVLocalChanges(of calendar: CalDAVCalendar) throws -> Int64 {
        try first("SELECT local_changes FROM caldav_calendars WHERE account = $1 AND url = $2",
                  [.text(calendar.account), .text(calendar.url)]) { $0.int64(0) } ?? 0
    }

    /// Records the count the end of a sync left in step (in the caller's transaction, if any).
    public func recordCalDAVSyncedChanges(_ changes: Int64?, of calendar: CalDAVCalendar) throws {
        try run("UPDATE caldav_calendars SET synced_changes = $1 WHERE account = $2 AND url = $3",
                changes.map { .integer($0) } ?? .null, .text(calendar.account), .text(calendar.url))
    }

    public func recordCalDAVConflicts(_ messages: [String], in calendar: CalDAVCalendar, now: Date) throws {
        guard !messages.isEmpty else { return }
        try transaction {
            for message in messages {
                try run("INSERT INTO caldav_conflicts (account, calendar_url, at, message) VALUES ($1, $2, $3, $4)",
                        .text(calendar.account), .text(calendar.url), .seconds(now), .text(message))
            }
        }
    }

    public func calDAVConflicts(account: String, limit: Int) throws -> [(at: Date, calendar: String, message: String)] {
        try rows("""
            SELECT k.at, c.display_name, k.message FROM caldav_conflicts k
            JOIN caldav_calendars c ON c.account = k.account AND c.url = k.calendar_url
            WHERE k.account = $1 ORDER BY k.at DESC, k.\(dialect.insertionOrder) DESC LIMIT $2
            """, [.text(account), .int(limit)]) { row in
            (row.date(0) ?? .distantPast, row.text(1), row.text(2))
        }
    }

    public func claimCalDAVAttempt(account: String, seen: CalDAVBackoff, as claimed: CalDAVBackoff) throws -> Bool {
        try run("""
            UPDATE caldav_accounts SET failures = $1, next_attempt = $2, login_refused = $3, fingerprint = $4
            WHERE name = $5 AND failures = $6 AND next_attempt IS NOT DISTINCT FROM $7 AND login_refused = $8
                AND fingerprint IS NOT DISTINCT FROM $9
            """, .int(claimed.failures), .seconds(Self.wholeSecond(claimed.nextAttempt)), .int(claimed.loginRefused ? 1 : 0),
                .optional(claimed.fingerprint), .text(account), .int(seen.failures), .seconds(seen.nextAttempt),
                .int(seen.loginRefused ? 1 : 0), .optional(seen.fingerprint)) == 1
    }

    /// A next attempt as stored: rounded up to the second, so it is never earlier than the wait.
    private static func wholeSecond(_ date: Date?) -> Date? {
        date.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.up)) }
    }

    public func recordCalDAVSync(account: String, now: Date, error: String?, backoff: CalDAVBackoff) throws {
        try run("""
            UPDATE caldav_accounts SET last_sync = $1, last_error = $2, failures = $3, next_attempt = $4, login_refused = $5, fingerprint = $6
            WHERE name = $7
            """, .seconds(now), .optional(error), .int(backoff.failures),
                .seconds(Self.wholeSecond(backoff.nextAttempt)),
                .int(backoff.loginRefused ? 1 : 0), .optional(backoff.fingerprint), .text(account))
    }
}
