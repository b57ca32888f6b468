import DatebookCore
import Foundation

/// Subscribed calendars (`Feed`) and the events of a source calendar, on both databases.
extension SQLStore {
    static var feedColumns: String { "name, source, every, etag, last_modified, last_checked, last_success, last_error, event_count" }

    /// Adds a feed; false when one with this name exists already.
    @discardableResult
    public func addFeed(_ feed: Feed) throws -> Bool {
        try run("INSERT INTO feeds (name, source, every) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                .text(feed.name), .text(feed.source), .int(feed.every)) > 0
    }

    /// Changes a feed's source and interval (a config edit); its events and validators stay until
    /// the next refresh, which starts afresh when the source changed.
    public func updateFeed(named name: String, source: String, every: Int) throws {
        try run("""
            UPDATE feeds SET etag = CASE WHEN source = $1 THEN etag END,
                last_modified = CASE WHEN source = $1 THEN last_modified END,
                last_checked = CASE WHEN source = $1 THEN last_checked END,
                source = $1, every = $2 WHERE name = $3
            """, .text(source), .int(every), .text(name))
    }

    public func feeds() throws -> [Feed] { try loadFeeds(where: "TRUE", []) }

    public func feed(named name: String) throws -> Feed? { try loadFeeds(where: "name = $1", [.text(name)]).first }

    func loadFeeds(where condition: String, _ values: [SQLValue]) throws -> [Feed] {
        try rows("SELECT \(Self.feedColumns) FROM feeds WHERE \(condition) ORDER BY name\(dialect.byteOrder)", values) { row in
            Feed(name: row.text(0), source: row.text(1), every: row.int(2), etag: row.optionalText(3),
                 lastModified: row.optionalText(4), lastChecked: row.date(5), lastSuccess: row.date(6),
                 lastError: row.optionalText(7), eventCount: row.int(8))
        }
    }

    /// Removes a feed and its events (tasks attached to them go too); false when there is none.
    @discardableResult
    public func removeFeed(named name: String) throws -> Bool {
        try transaction {
            try deleteSourceEvents(calendar: Feed.calendar(name))
            return try run("DELETE FROM feeds WHERE name = $1", .text(name)) > 0
        }
    }

    /// Deletes the events recorded under `calendar` in `event_sources` (their tasks go too).
    func deleteSourceEvents(calendar: String) throws {
        try run("DELETE FROM events WHERE id IN (SELECT event_id FROM event_sources WHERE calendar = $1)", .text(calendar))
    }

    /// The name of the feed an event belongs to, or nil for the user's own events.
    public func feedName(ofEvent id: String) throws -> String? {
        try first("SELECT calendar FROM event_sources WHERE event_id = $1 AND calendar LIKE 'feed:%'", [.text(id)]) {
            String($0.text(0).dropFirst(5))
        }
    }

    /// Replaces all of a feed's events with `result` and records the new validators, in ONE
    /// transaction: a reader sees the old copy or the new one, never a mix.
    public func replaceFeedEvents(_ feed: Feed, with result: ICSImport, etag: String?, lastModified: String?,
                                  now: Date) throws {
        try transaction {
            try replaceSourceEvents(calendar: feed.calendar, with: result)
            try run("""
                UPDATE feeds SET etag = $1, last_modified = $2, last_checked = $3, last_success = $3, last_error = NULL,
                    event_count = $4 WHERE name = $5
                """, .optional(etag), .optional(lastModified), .seconds(now), .int(result.events.count), .text(feed.name))
        }
    }

    /// Replaces every event recorded under `calendar` in `event_sources` (a feed's, a CalDAV
    /// calendar's) with `result`'s; the caller holds the transaction. Events written back with the
    /// alert times they had are not left in `changed_events` (`KeptAlertTimes`).
    func replaceSourceEvents(calendar: String, with result: ICSImport) throws {
        for sql in KeptAlertTimes.remember { try run(sql, sql.contains("$1") ? [.text(calendar)] : [], row: { _ in }) }
        try deleteSourceEvents(calendar: calendar)
        try writeSourceEvents(result, calendar: calendar)
        for sql in KeptAlertTimes.forget { try run(sql) }
    }

    /// Records a check that changed nothing (`error` nil: unchanged; else why it failed).
    public func recordFeedCheck(_ feed: Feed, now: Date, error: String?) throws {
        if let error {
            try run("UPDATE feeds SET last_checked = $1, last_error = $2 WHERE name = $3", .seconds(now), .text(error), .text(feed.name))
        } else {
            try run("UPDATE feeds SET last_checked = $1, last_success = $1, last_error = NULL WHERE name = $2", .seconds(now), .text(feed.name))
        }
    }

    /// Event id → iCalendar UID for every event that came from iCalendar.
    public func sourceUIDs() throws -> [String: String] {
        var result: [String: String] = [:]
        try run("SELECT event_id, uid FROM event_sources", []) { result[$0.text(0)] = $0.text(1) }
        return result
    }
}
