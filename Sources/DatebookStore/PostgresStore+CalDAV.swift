import DatebookCore
import Foundation

/// CalDAV accounts on PostgreSQL: the SQLite store's tables and rules (Store+CalDAV.swift).
extension PostgresStore: CalDAVStore {
    static let resourceUpsert = calDAVResourceUpsert

    @discardableResult
    public func addCalDAVAccount(_ account: CalDAVAccount, calendars: [CalDAVCalendar]) throws -> Bool {
        try transaction {
            guard try query("""
                INSERT INTO caldav_accounts (name, url, username, password_source, every, ca_file) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (name) DO NOTHING
                """, [account.name, account.url, account.username, account.passwordSource, String(account.every), account.caFile]).changed > 0
            else { return false }
            for calendar in calendars {
                try query("""
                    INSERT INTO caldav_calendars (account, url, display_name, color, components, selected, ctag)
                    VALUES ($1, $2, $3, $4, $5, $6, $7)
                    """, [account.name, calendar.url, calendar.displayName, calendar.color, calendar.components.joined(separator: ","),
                          calendar.selected ? "1" : "0", calendar.ctag])
            }
            return true
        }
    }

    public func updateCalDAVCalendars(_ calendars: [CalDAVCalendar]) throws {
        try transaction {
            for calendar in calendars {
                try query("""
                    INSERT INTO caldav_calendars (account, url, display_name, color, components, selected, ctag)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) \(Self.calendarUpsert)
                    """, [calendar.account, calendar.url, calendar.displayName, calendar.color, calendar.components.joined(separator: ","),
                          calendar.selected ? "1" : "0", calendar.ctag])
            }
        }
    }

    public func calDAVAccounts() throws -> [CalDAVAccount] {
        try query("""
            SELECT name, url, username, password_source, every, last_sync, last_error, ca_file, \(Self.calDAVBackoffColumns)
            FROM caldav_accounts ORDER BY name COLLATE "C"
            """).all.map { row in
            CalDAVAccount(name: row.text(0), url: row.text(1), username: row.text(2), passwordSource: row.text(3), every: row.int(4),
                          caFile: row.optionalText(7), lastSync: row.isNull(5) ? nil : Date(timeIntervalSince1970: TimeInterval(row.int64(5))),
                          lastError: row.optionalText(6),
                          backoff: CalDAVBackoff(failures: row.int(8),
                                                 nextAttempt: row.isNull(9) ? nil : Date(timeIntervalSince1970: TimeInterval(row.int64(9))),
                                                 loginRefused: row.int(10) != 0, fingerprint: row.optionalText(11)))
        }
    }

    public func calDAVCalendars(account: String) throws -> [CalDAVCalendar] {
        try query("""
            SELECT url, display_name, color, components, selected, sync_token, ctag, local_changes, synced_changes FROM caldav_calendars
            WHERE account = $1 ORDER BY display_name COLLATE "C", url COLLATE "C"
            """, [account]).all.map { row in
            CalDAVCalendar(account: account, url: row.text(0), displayName: row.text(1), color: row.optionalText(2),
                           components: row.text(3).split(separator: ",").map(String.init), selected: row.int(4) != 0,
                           syncToken: row.optionalText(5), ctag: row.optionalText(6), localChanges: row.int64(7),
                           syncedChanges: row.isNull(8) ? nil : row.int64(8))
        }
    }

    public func calDAVResources(of calendar: CalDAVCalendar) throws -> [String: CalDAVResource] {
        var result: [String: CalDAVResource] = [:]
        for row in try query("SELECT url, etag, uid, text FROM caldav_resources WHERE account = $1 AND calendar_url = $2",
                             [calendar.account, calendar.url]).all {
            result[row.text(0)] = CalDAVResource(url: row.text(0), etag: row.optionalText(1), uid: row.text(2), text: row.text(3))
        }
        return result
    }

    public func save(_ event: Event, into calendar: CalDAVCalendar, uid: String) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try saveImport(ICSImport(events: [event], uids: [event.id: uid], warnings: []), calendar: calendar.sourceCalendar,
                           progress: { _ in })
        }
    }

    public func saveOutsideCalDAV(_ event: Event) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try save([event], progress: { _ in })
            try query("DELETE FROM event_sources WHERE event_id = $1", [event.id])
        }
    }

    /// Removes the overrides the server made of the event (RECURRENCE-ID instances), when it is
    /// recorded under a CalDAV calendar: it is leaving that calendar.
    func removeOverrides(of id: String) throws {
        guard let source = try query("SELECT calendar, uid FROM event_sources WHERE event_id = $1 AND calendar LIKE 'caldav:%'", [id])
            .all.first else { return }
        try query("DELETE FROM events WHERE id IN (\(CalDAVLocalChanges.overridesQuery))", [source.text(0), source.text(1)])
    }

    public func calDAVEventUIDs(of calendar: CalDAVCalendar) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try query("SELECT event_id, uid FROM event_sources WHERE calendar = $1", [calendar.sourceCalendar]).all {
            result[row.text(0)] = row.text(1)
        }
        return result
    }

    @discardableResult
    public func removeCalDAVAccount(named name: String) throws -> Bool {
        let calendars = try calDAVCalendars(account: name)
        return try transaction {
            for calendar in calendars { try deleteSourceEvents(calendar: calendar.sourceCalendar) }
            return try query("DELETE FROM caldav_accounts WHERE name = $1", [name]).changed > 0
        }
    }

    @discardableResult
    public func applyCalDAVChanges(to calendar: CalDAVCalendar, changed: [CalDAVResource], removed: [String],
                                   events: ICSImport?, syncToken: String?, ctag: String?, pushedFrom: Int64?, settled: Bool,
                                   whenChangedHere: (() throws -> ICSImport)?) throws -> Bool {
        try transaction {
            if pushedFrom != nil, events != nil {
                // The calendar's events first, then its row: the order a write here takes them (its
                // row, then the count's trigger), so the two wait for each other instead of deadlocking.
                // A change committed before these locks shows in the count; one after them waits for this rebuild.
                try query("SELECT e.id FROM events e JOIN event_sources s ON s.event_id = e.id WHERE s.calendar = $1 FOR UPDATE OF e",
                          [calendar.sourceCalendar])
                try query("SELECT 1 FROM caldav_calendars WHERE account = $1 AND url = $2 FOR UPDATE", [calendar.account, calendar.url])
            }
            guard let (events, keptHere) = try calDAVEventsToWrite(events, of: calendar, pushedFrom: pushedFrom,
                                                                   whenChangedHere: whenChangedHere) else { return false }
            for url in removed {
                try query("DELETE FROM caldav_resources WHERE account = $1 AND calendar_url = $2 AND url = $3",
                          [calendar.account, calendar.url, url])
            }
            for resource in changed { try recordCalDAVResource(resource, in: calendar, removed: false) }
            try query("UPDATE caldav_calendars SET sync_token = $1, ctag = $2 WHERE account = $3 AND url = $4",
                      [syncToken, ctag, calendar.account, calendar.url])
            if let events {
                try deleteSourceEvents(calendar: calendar.sourceCalendar)
                try saveImport(events, calendar: calendar.sourceCalendar, progress: { _ in })
            }
            try recordCalDAVSyncedChanges(after: pushedFrom, rebuilt: events != nil, settled: settled && !keptHere, of: calendar)
            return true
        }
    }

    public func recordCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar, removed: Bool) throws {
        if removed {
            try query("DELETE FROM caldav_resources WHERE account = $1 AND calendar_url = $2 AND url = $3",
                      [calendar.account, calendar.url, resource.url])
        } else {
            try query(Self.resourceUpsert, [calendar.account, calendar.url, resource.url, resource.etag, resource.uid, resource.text])
        }
    }

    public func recordCalDAVMerge(_ resource: CalDAVResource, in calendar: CalDAVCalendar, conflicts: [String], now: Date, events ids: [String],
                                  update: ([String: Event]) throws -> (events: [Event], conflicts: [String])) throws -> ClosedRange<Int64>? {
        try transaction {
            // The events, then the calendar's row (the order a write here takes them, as `applyCalDAVChanges`):
            // no other write comes between the count's reads.
            try query("SELECT id FROM events WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE", [Self.arrayLiteral(ids)])
            try query("SELECT 1 FROM caldav_calendars WHERE account = $1 AND url = $2 FOR UPDATE", [calendar.account, calendar.url])
            let before = try calDAVLocalChanges(of: calendar)
            let (events, more) = try update(try self.events(ids: ids))
            for event in events { try write(event) }
            try recordCalDAVResource(resource, in: calendar, removed: false)
            try recordCalDAVConflicts(conflicts + more, in: calendar, now: now)
            return events.isEmpty ? nil : before...(try calDAVLocalChanges(of: calendar))
        }
    }

    public func calDAVLocalChanges(of calendar: CalDAVCalendar) throws -> Int64 {
        try query("SELECT local_changes FROM caldav_calendars WHERE account = $1 AND url = $2", [calendar.account, calendar.url])
            .all.first?.int64(0) ?? 0
    }

    public func recordCalDAVSyncedChanges(_ changes: Int64?, of calendar: CalDAVCalendar) throws {
        try query("UPDATE caldav_calendars SET synced_changes = $1 WHERE account = $2 AND url = $3",
                  [changes.map(String.init), calendar.account, calendar.url])
    }

    public func recordCalDAVConflicts(_ messages: [String], in calendar: CalDAVCalendar, now: Date) throws {
        guard !messages.isEmpty else { return }
        try transaction {
            for message in messages {
                try query("INSERT INTO caldav_conflicts (account, calendar_url, at, message) VALUES ($1, $2, $3, $4)",
                          [calendar.account, calendar.url, String(Int64(now.timeIntervalSince1970)), message])
            }
        }
    }

    public func calDAVConflicts(account: String, limit: Int) throws -> [(at: Date, calendar: String, message: String)] {
        try query("""
            SELECT k.at, c.display_name, k.message FROM caldav_conflicts k
            JOIN caldav_calendars c ON c.account = k.account AND c.url = k.calendar_url
            WHERE k.account = $1 ORDER BY k.at DESC, k.id DESC LIMIT $2
            """, [account, String(limit)]).all.map { row in
            (Date(timeIntervalSince1970: TimeInterval(row.int64(0))), row.text(1), row.text(2))
        }
    }

    public func recordCalDAVSync(account: String, now: Date, error: String?, backoff: CalDAVBackoff) throws {
        try query("""
            UPDATE caldav_accounts SET last_sync = $1, last_error = $2, failures = $3, next_attempt = $4, login_refused = $5, fingerprint = $6
            WHERE name = $7
            """, [String(Int64(now.timeIntervalSince1970)), error, String(backoff.failures),
                  backoff.nextAttempt.map { String(Int64($0.timeIntervalSince1970.rounded(.up))) }, backoff.loginRefused ? "1" : "0",
                  backoff.fingerprint, account])
    }
}
