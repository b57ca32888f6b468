import DatebookCore
import Foundation

/// Feeds and iCalendar sources on PostgreSQL: the SQLite store's tables and rules (Store+Feeds.swift).
extension PostgresStore {
    static let feedColumns = "name, source, every, etag, last_modified, last_checked, last_success, last_error, event_count"

    @discardableResult
    public func addFeed(_ feed: Feed) throws -> Bool {
        try transaction {
            try query("INSERT INTO feeds (name, source, every) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                      [feed.name, feed.source, String(feed.every)]).changed > 0
        }
    }

    /// A changed source starts afresh: its validators and last check are forgotten.
    public func updateFeed(named name: String, source: String, every: Int) throws {
        try query("""
            UPDATE feeds SET etag = CASE WHEN source = $1 THEN etag END,
                last_modified = CASE WHEN source = $1 THEN last_modified END,
                last_checked = CASE WHEN source = $1 THEN last_checked END,
                source = $1, every = $2 WHERE name = $3
            """, [source, String(every), name])
    }

    public func feeds() throws -> [Feed] { try loadFeeds(where: "TRUE", []) }

    public func feed(named name: String) throws -> Feed? { try loadFeeds(where: "name = $1", [name]).first }

    func loadFeeds(where condition: String, _ values: [String?]) throws -> [Feed] {
        try query("SELECT \(Self.feedColumns) FROM feeds WHERE \(condition) ORDER BY name COLLATE \"C\"", values).all.map { row in
            func date(_ column: Int32) -> Date? { row.isNull(column) ? nil : Date(timeIntervalSince1970: TimeInterval(row.int64(column))) }
            return Feed(name: row.text(0), source: row.text(1), every: row.int(2), etag: row.optionalText(3),
                        lastModified: row.optionalText(4), lastChecked: date(5), lastSuccess: date(6),
                        lastError: row.optionalText(7), eventCount: row.int(8))
        }
    }

    @discardableResult
    public func removeFeed(named name: String) throws -> Bool {
        try transaction {
            try deleteEvents(calendar: Feed.calendar(name))
            return try query("DELETE FROM feeds WHERE name = $1", [name]).changed > 0
        }
    }

    func deleteEvents(calendar: String) throws {
        try query("DELETE FROM events WHERE id IN (SELECT event_id FROM event_sources WHERE calendar = $1)", [calendar])
    }

    public func feedName(ofEvent id: String) throws -> String? {
        try query("SELECT calendar FROM event_sources WHERE event_id = $1 AND calendar LIKE 'feed:%'", [id])
            .all.first.map { String($0.text(0).dropFirst(5)) }
    }

    /// Replaces a feed's events and records its validators in one transaction.
    public func replaceFeedEvents(_ feed: Feed, with result: ICSImport, etag: String?, lastModified: String?, now: Date) throws {
        let seconds = String(Int64(now.timeIntervalSince1970))
        try transaction {
            // Events written back with the alert times they had are not left in `changed_events` (`KeptAlertTimes`).
            for sql in KeptAlertTimes.remember(calendar: "$1") { try query(sql, sql.contains("$1") ? [feed.calendar] : []) }
            try deleteEvents(calendar: feed.calendar)
            try saveImport(result, calendar: feed.calendar, progress: { _ in })
            for sql in KeptAlertTimes.forget(same: { "\($0) IS NOT DISTINCT FROM \($1)" }) { try query(sql) }
            try query("""
                UPDATE feeds SET etag = $1, last_modified = $2, last_checked = $3, last_success = $3, last_error = NULL,
                    event_count = $4 WHERE name = $5
                """, [etag, lastModified, seconds, String(result.events.count), feed.name])
        }
    }

    public func recordFeedCheck(_ feed: Feed, now: Date, error: String?) throws {
        let seconds = String(Int64(now.timeIntervalSince1970))
        if let error {
            try query("UPDATE feeds SET last_checked = $1, last_error = $2 WHERE name = $3", [seconds, error, feed.name])
        } else {
            try query("UPDATE feeds SET last_checked = $1, last_success = $1, last_error = NULL WHERE name = $2", [seconds, feed.name])
        }
    }

    public func sourceUIDs() throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try query("SELECT event_id, uid FROM event_sources").all { result[row.text(0)] = row.text(1) }
        return result
    }

    /// Saves imported events and the iCalendar UID each came from, in one transaction.
    public func saveImport(_ result: ICSImport, calendar: String, progress: (Int) -> Void) throws {
        try transaction {
            try save(result.events, progress: progress)
            try saveSources(of: result.events, uids: result.uids, calendar: calendar)
        }
    }
}
