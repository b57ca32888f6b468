import DatebookCore
import Foundation

extension Store {
    static let resourceUpsert = calDAVResourceUpsert.replacingOccurrences(of: #"\$[0-9]"#, with: "?", options: .regularExpression)

    /// Adds an account with the calendars discovery found; false when one with this name exists.
    @discardableResult
    public func addCalDAVAccount(_ account: CalDAVAccount, calendars: [CalDAVCalendar]) throws -> Bool {
        try transaction {
            try wrap {
                try statement("""
                    INSERT OR IGNORE INTO caldav_accounts (name, url, username, password_source, every, ca_file) VALUES (?, ?, ?, ?, ?, ?)
                    """).bind(.text(account.name), .text(account.url), .text(account.username), .text(account.passwordSource),
                              .int(account.every), .optional(account.caFile)).run()
            }
            guard db.changes > 0 else { return false }
            for calendar in calendars {
                try wrap {
                    try statement("""
                        INSERT INTO caldav_calendars (account, url, display_name, color, components, selected, ctag)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """).bind(.text(account.name), .text(calendar.url), .text(calendar.displayName), .optional(calendar.color),
                                  .text(calendar.components.joined(separator: ",")), .int(calendar.selected ? 1 : 0),
                                  .optional(calendar.ctag)).run()
                }
            }
            return true
        }
    }

    public func updateCalDAVCalendars(_ calendars: [CalDAVCalendar]) throws {
        try transaction {
            for calendar in calendars {
                try wrap {
                    try statement("""
                        INSERT INTO caldav_calendars (account, url, display_name, color, components, selected, ctag)
                        VALUES (?, ?, ?, ?, ?, ?, ?) \(Self.calendarUpsert)
                        """).bind(.text(calendar.account), .text(calendar.url), .text(calendar.displayName), .optional(calendar.color),
                                  .text(calendar.components.joined(separator: ",")), .int(calendar.selected ? 1 : 0),
                                  .optional(calendar.ctag)).run()
                }
            }
        }
    }

    public func calDAVAccounts() throws -> [CalDAVAccount] {
        var result: [CalDAVAccount] = []
        try wrap {
            let rows = try statement("""
                SELECT name, url, username, password_source, every, last_sync, last_error, ca_file, \(Self.calDAVBackoffColumns)
                FROM caldav_accounts ORDER BY name
                """)
            try rows.bind([])
            while try rows.step() {
                result.append(CalDAVAccount(
                    name: rows.text(0), url: rows.text(1), username: rows.text(2), passwordSource: rows.text(3), every: rows.int(4),
                    caFile: rows.optionalText(7), lastSync: rows.isNull(5) ? nil : Date(timeIntervalSince1970: TimeInterval(rows.int64(5))),
                    lastError: rows.optionalText(6),
                    backoff: CalDAVBackoff(failures: rows.int(8),
                                           nextAttempt: rows.isNull(9) ? nil : Date(timeIntervalSince1970: TimeInterval(rows.int64(9))),
                                           loginRefused: rows.int(10) != 0, fingerprint: rows.optionalText(11))))
            }
        }
        return result
    }

    public func calDAVCalendars(account: String) throws -> [CalDAVCalendar] {
        var result: [CalDAVCalendar] = []
        try wrap {
            let rows = try statement("""
                SELECT url, display_name, color, components, selected, sync_token, ctag, local_changes, synced_changes FROM caldav_calendars
                WHERE account = ? ORDER BY display_name, url
                """)
            try rows.bind(.text(account))
            while try rows.step() {
                result.append(CalDAVCalendar(
                    account: account, url: rows.text(0), displayName: rows.text(1), color: rows.optionalText(2),
                    components: rows.text(3).split(separator: ",").map(String.init), selected: rows.int(4) != 0,
                    syncToken: rows.optionalText(5), ctag: rows.optionalText(6), localChanges: rows.int64(7),
                    syncedChanges: rows.isNull(8) ? nil : rows.int64(8)))
            }
        }
        return result
    }

    /// The resources held for one calendar, by URL.
    public func calDAVResources(of calendar: CalDAVCalendar) throws -> [String: CalDAVResource] {
        var result: [String: CalDAVResource] = [:]
        try wrap {
            let rows = try statement("SELECT url, etag, uid, text FROM caldav_resources WHERE account = ? AND calendar_url = ?")
            try rows.bind(.text(calendar.account), .text(calendar.url))
            while try rows.step() {
                let resource = CalDAVResource(url: rows.text(0), etag: rows.optionalText(1), uid: rows.text(2), text: rows.text(3))
                result[resource.url] = resource
            }
        }
        return result
    }

    /// Saves an event made in datebook into a CalDAV calendar, with the UID its resource will have,
    /// in one transaction: the next sync sends it (`PUT` with `If-None-Match: *`).
    public func save(_ event: Event, into calendar: CalDAVCalendar, uid: String) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try write(event)
            try saveSources(calendar: calendar.sourceCalendar, ids: [(event.id, uid)])
        }
    }

    public func saveOutsideCalDAV(_ event: Event) throws {
        try transaction {
            try removeOverrides(of: event.id)
            try write(event)
            try wrap { try statement("DELETE FROM event_sources WHERE event_id = ?").bind(.text(event.id)).run() }
        }
    }

    /// Removes the overrides the server made of the event (RECURRENCE-ID instances), when it is
    /// recorded under a CalDAV calendar: it is leaving that calendar.
    func removeOverrides(of id: String) throws {
        try wrap {
            let rows = try statement("SELECT calendar, uid FROM event_sources WHERE event_id = ? AND calendar LIKE 'caldav:%'")
            try rows.bind(.text(id))
            var source: (calendar: String, uid: String)?
            while try rows.step() { source = (rows.text(0), rows.text(1)) }
            guard let source else { return }
            // SQLite reads `$1`, `$2` as positional parameters, the second used twice.
            try statement("DELETE FROM events WHERE id IN (\(CalDAVLocalChanges.overridesQuery))")
                .bind(.text(source.calendar), .text(source.uid)).run()
        }
    }

    /// Event id → UID of every event recorded under the calendar (those of the server and those
    /// made here and not sent yet).
    public func calDAVEventUIDs(of calendar: CalDAVCalendar) throws -> [String: String] {
        var result: [String: String] = [:]
        try wrap {
            let rows = try statement("SELECT event_id, uid FROM event_sources WHERE calendar = ?")
            try rows.bind(.text(calendar.sourceCalendar))
            while try rows.step() { result[rows.text(0)] = rows.text(1) }
        }
        return result
    }

    /// Removes an account, its calendars, resources and events; false when there is none.
    @discardableResult
    public func removeCalDAVAccount(named name: String) throws -> Bool {
        let calendars = try calDAVCalendars(account: name)
        return try transaction {
            for calendar in calendars { try deleteSourceEvents(calendar: calendar.sourceCalendar) }
            try wrap { try statement("DELETE FROM caldav_accounts WHERE name = ?").bind(.text(name)).run() }
            return db.changes > 0
        }
    }

    /// Applies what one sync received for a calendar, in ONE transaction: the changed and removed
    /// resources, the calendar's events rebuilt from `events` (made from every resource now held),
    /// and the new sync token. A sync killed before this leaves the old copy and token, so the next
    /// one receives the same changes again; nothing is applied twice.
    @discardableResult
    public func applyCalDAVChanges(to calendar: CalDAVCalendar, changed: [CalDAVResource], removed: [String],
                                   events: ICSImport?, syncToken: String?, ctag: String?, pushedFrom: Int64?, settled: Bool,
                                   whenChangedHere: (() throws -> ICSImport)?) throws -> Bool {
        try transaction {
            // BEGIN IMMEDIATE holds the write lock: no change can come between the count's read and the rebuild.
            guard let (events, keptHere) = try calDAVEventsToWrite(events, of: calendar, pushedFrom: pushedFrom,
                                                                   whenChangedHere: whenChangedHere) else { return false }
            try wrap {
                let delete = try statement("DELETE FROM caldav_resources WHERE account = ? AND calendar_url = ? AND url = ?")
                for url in removed { try delete.bind(.text(calendar.account), .text(calendar.url), .text(url)).run() }
                for resource in changed { try upsertCalDAVResource(resource, in: calendar) }
                try statement("UPDATE caldav_calendars SET sync_token = ?, ctag = ? WHERE account = ? AND url = ?")
                    .bind(.optional(syncToken), .optional(ctag), .text(calendar.account), .text(calendar.url)).run()
            }
            if let events { try replaceSourceEvents(calendar: calendar.sourceCalendar, with: events) }
            try recordCalDAVSyncedChanges(after: pushedFrom, rebuilt: events != nil, settled: settled && !keptHere, of: calendar)
            return true
        }
    }

    /// Records what the server accepted for one resource (a PUT: its new text and ETag) or, with
    /// `text` nil, that it is gone (a DELETE), each in its own transaction: a sync killed after the
    /// server answered knows it at the next start.
    public func recordCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar, removed: Bool) throws {
        try transaction {
            try wrap {
                if removed {
                    try statement("DELETE FROM caldav_resources WHERE account = ? AND calendar_url = ? AND url = ?")
                        .bind(.text(calendar.account), .text(calendar.url), .text(resource.url)).run()
                } else {
                    try upsertCalDAVResource(resource, in: calendar)
                }
            }
        }
    }

    /// Writes one resource's held text and ETag (inside `wrap`, in the caller's transaction).
    private func upsertCalDAVResource(_ resource: CalDAVResource, in calendar: CalDAVCalendar) throws {
        try statement(Self.resourceUpsert).bind(.text(calendar.account), .text(calendar.url), .text(resource.url), .optional(resource.etag),
                                                .text(resource.uid), .text(resource.text)).run()
    }

    public func recordCalDAVMerge(_ resource: CalDAVResource, in calendar: CalDAVCalendar, conflicts: [String], now: Date, events ids: [String],
                                  update: ([String: Event]) throws -> (events: [Event], conflicts: [String])) throws -> ClosedRange<Int64>? {
        // BEGIN IMMEDIATE holds the write lock: the events read are the ones replaced.
        try transaction {
            let before = try calDAVLocalChanges(of: calendar)
            let (events, more) = try update(try self.events(ids: ids))
            for event in events { try write(event) }
            try wrap { try upsertCalDAVResource(resource, in: calendar) }
            try insertCalDAVConflicts(conflicts + more, in: calendar, now: now)
            return events.isEmpty ? nil : before...(try calDAVLocalChanges(of: calendar))
        }
    }

    public func calDAVLocalChanges(of calendar: CalDAVCalendar) throws -> Int64 {
        try wrap {
            let rows = try statement("SELECT local_changes FROM caldav_calendars WHERE account = ? AND url = ?")
            try rows.bind(.text(calendar.account), .text(calendar.url))
            var changes: Int64 = 0
            while try rows.step() { changes = rows.int64(0) }
            return changes
        }
    }

    /// Records the count the end of a sync left in step (in the caller's transaction, if any).
    public func recordCalDAVSyncedChanges(_ changes: Int64?, of calendar: CalDAVCalendar) throws {
        try wrap {
            try statement("UPDATE caldav_calendars SET synced_changes = ? WHERE account = ? AND url = ?")
                .bind(changes.map { .integer($0) } ?? .null, .text(calendar.account), .text(calendar.url)).run()
        }
    }

    /// Records what lost in the conflicts of one sync (`datebook caldav status` shows them).
    public func recordCalDAVConflicts(_ messages: [String], in calendar: CalDAVCalendar, now: Date) throws {
        guard !messages.isEmpty else { return }
        try transaction { try insertCalDAVConflicts(messages, in: calendar, now: now) }
    }

    /// Inserts conflicts in the caller's transaction.
    func insertCalDAVConflicts(_ messages: [String], in calendar: CalDAVCalendar, now: Date) throws {
        try wrap {
            let insert = try statement("INSERT INTO caldav_conflicts (account, calendar_url, at, message) VALUES (?, ?, ?, ?)")
            for message in messages {
                try insert.bind(.text(calendar.account), .text(calendar.url), .integer(Int64(now.timeIntervalSince1970)), .text(message)).run()
            }
        }
    }

    /// The conflicts recorded for an account, newest first: when, the calendar's display name, what lost.
    public func calDAVConflicts(account: String, limit: Int) throws -> [(at: Date, calendar: String, message: String)] {
        var result: [(at: Date, calendar: String, message: String)] = []
        try wrap {
            let rows = try statement("""
                SELECT k.at, c.display_name, k.message FROM caldav_conflicts k
                JOIN caldav_calendars c ON c.account = k.account AND c.url = k.calendar_url
                WHERE k.account = ? ORDER BY k.at DESC, k.rowid DESC LIMIT ?
                """)
            try rows.bind(.text(account), .int(limit))
            while try rows.step() {
                result.append((Date(timeIntervalSince1970: TimeInterval(rows.int64(0))), rows.text(1), rows.text(2)))
            }
        }
        return result
    }

    /// Records the end of an account's sync (`error` nil: it succeeded) and its backoff after it.
    public func recordCalDAVSync(account: String, now: Date, error: String?, backoff: CalDAVBackoff) throws {
        try transaction {
            try wrap {
                try statement("""
                    UPDATE caldav_accounts SET last_sync = ?, last_error = ?, failures = ?, next_attempt = ?, login_refused = ?, fingerprint = ?
                    WHERE name = ?
                    """).bind(.integer(Int64(now.timeIntervalSince1970)), .optional(error), .int(backoff.failures),
                              backoff.nextAttempt.map { .integer(Int64($0.timeIntervalSince1970.rounded(.up))) } ?? .null,
                              .int(backoff.loginRefused ? 1 : 0), .optional(backoff.fingerprint), .text(account)).run()
            }
        }
    }
}
