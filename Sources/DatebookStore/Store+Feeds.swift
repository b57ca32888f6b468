import DatebookCore
import Foundation

/// A subscribed calendar: an iCalendar file or planner JSON document at a URL or a local path.
public struct Feed: Sendable, Equatable {
    public var name: String
    /// An `https://`/`http://` URL, or an absolute local path.
    public var source: String
    /// Seconds between refreshes.
    public var every: Int
    /// Validators of the last good copy: `ETag` and `Last-Modified` (for a local file: its mtime).
    public var etag: String?
    public var lastModified: String?
    public var lastChecked: Date?
    public var lastSuccess: Date?
    /// Why the last refresh failed; nil after a good one.
    public var lastError: String?
    public var eventCount: Int

    public init(name: String, source: String, every: Int, etag: String? = nil, lastModified: String? = nil,
                lastChecked: Date? = nil, lastSuccess: Date? = nil, lastError: String? = nil, eventCount: Int = 0) {
        self.name = name
        self.source = source
        self.every = every
        self.etag = etag
        self.lastModified = lastModified
        self.lastChecked = lastChecked
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.eventCount = eventCount
    }

    /// True for an http(s) URL; anything else is a local path.
    public var isRemote: Bool {
        let lowered = source.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// The calendar name its events are recorded under in `event_sources`.
    public var calendar: String { Self.calendar(name) }

    static func calendar(_ name: String) -> String { "feed:" + name }

    /// Due when never checked, or `every` seconds after the last check.
    public func isDue(now: Date) -> Bool {
        guard let lastChecked else { return true }
        return now.timeIntervalSince(lastChecked) >= TimeInterval(every)
    }
}

extension Store {
    static let feedColumns = "name, source, every, etag, last_modified, last_checked, last_success, last_error, event_count"

    /// Adds a feed; false when one with this name exists already.
    @discardableResult
    public func addFeed(_ feed: Feed) throws -> Bool {
        try transaction {
            try wrap {
                try statement("INSERT OR IGNORE INTO feeds (name, source, every) VALUES (?, ?, ?)")
                    .bind(.text(feed.name), .text(feed.source), .int(feed.every)).run()
            }
            return db.changes > 0
        }
    }

    /// Changes a feed's source and interval (a config edit); its events and validators stay until
    /// the next refresh, which starts afresh when the source changed.
    public func updateFeed(named name: String, source: String, every: Int) throws {
        try transaction {
            try wrap {
                try statement("""
                    UPDATE feeds SET etag = CASE WHEN source = ?1 THEN etag END,
                        last_modified = CASE WHEN source = ?1 THEN last_modified END,
                        last_checked = CASE WHEN source = ?1 THEN last_checked END,
                        source = ?1, every = ?2 WHERE name = ?3
                    """).bind(.text(source), .int(every), .text(name)).run()
            }
        }
    }

    public func feeds() throws -> [Feed] {
        try loadFeeds(where: "1", [])
    }

    public func feed(named name: String) throws -> Feed? {
        try loadFeeds(where: "name = ?", [.text(name)]).first
    }

    func loadFeeds(where condition: String, _ values: [SQLiteValue]) throws -> [Feed] {
        var result: [Feed] = []
        try wrap {
            let rows = try statement("SELECT \(Self.feedColumns) FROM feeds WHERE \(condition) ORDER BY name")
            try rows.bind(values)
            func date(_ column: Int32) -> Date? {
                rows.isNull(column) ? nil : Date(timeIntervalSince1970: TimeInterval(rows.int64(column)))
            }
            while try rows.step() {
                result.append(Feed(name: rows.text(0), source: rows.text(1), every: rows.int(2), etag: rows.optionalText(3),
                                   lastModified: rows.optionalText(4), lastChecked: date(5), lastSuccess: date(6),
                                   lastError: rows.optionalText(7), eventCount: rows.int(8)))
            }
        }
        return result
    }

    /// Removes a feed and its events (tasks attached to them go too); false when there is none.
    @discardableResult
    public func removeFeed(named name: String) throws -> Bool {
        try transaction {
            try deleteFeedEvents(calendar: Feed.calendar(name))
            try wrap { try statement("DELETE FROM feeds WHERE name = ?").bind(.text(name)).run() }
            return db.changes > 0
        }
    }

    func deleteFeedEvents(calendar: String) throws {
        try wrap {
            try statement("DELETE FROM events WHERE id IN (SELECT event_id FROM event_sources WHERE calendar = ?)")
                .bind(.text(calendar)).run()
        }
    }

    /// The name of the feed an event belongs to, or nil for the user's own events.
    public func feedName(ofEvent id: String) throws -> String? {
        var name: String?
        try wrap {
            let rows = try statement("SELECT calendar FROM event_sources WHERE event_id = ? AND calendar LIKE 'feed:%'")
            try rows.bind(.text(id))
            while try rows.step() { name = String(rows.text(0).dropFirst(5)) }
        }
        return name
    }

    /// Replaces all of a feed's events with `result` and records the new validators, in ONE
    /// transaction: a reader sees the old copy or the new one, never a mix.
    public func replaceFeedEvents(_ feed: Feed, with result: ICSImport, etag: String?, lastModified: String?,
                                  now: Date) throws {
        try transaction {
            try replaceSourceEvents(calendar: feed.calendar, with: result)
            try wrap {
                try statement("""
                    UPDATE feeds SET etag = ?, last_modified = ?, last_checked = ?, last_success = ?, last_error = NULL,
                        event_count = ? WHERE name = ?
                    """).bind(.optional(etag), .optional(lastModified), .integer(Int64(now.timeIntervalSince1970)),
                              .integer(Int64(now.timeIntervalSince1970)), .int(result.events.count), .text(feed.name)).run()
            }
        }
    }

    /// Replaces every event recorded under `calendar` in `event_sources` (a feed's, a CalDAV
    /// calendar's) with `result`'s; the caller holds the transaction.
    /// Events written back with the alert times they had are not left in `changed_events` (`KeptAlertTimes`).
    func replaceSourceEvents(calendar: String, with result: ICSImport) throws {
        try wrap {
            for sql in KeptAlertTimes.remember(calendar: "?") { try db.prepare(sql).bind(sql.contains("?") ? [.text(calendar)] : []).run() }
        }
        try deleteFeedEvents(calendar: calendar)
        // `bulkThreshold` events or more in bulk (Store+BulkLoad.swift): a row trigger on each insert
        // had SQLite copy some 100k pages to statement journals for a calendar of 10,000 events.
        try writeMany(result.events, sources: (calendar, { result.uids[result.events[$0].id] }), expansions: result.expansions)
        try wrap {
            for sql in KeptAlertTimes.forget(same: { "\($0) IS \($1)" }) { try db.execute(sql) }
        }
    }

    /// Records a check that changed nothing (`error` nil: unchanged; else why it failed).
    public func recordFeedCheck(_ feed: Feed, now: Date, error: String?) throws {
        try transaction {
            try wrap {
                if let error {
                    try statement("UPDATE feeds SET last_checked = ?, last_error = ? WHERE name = ?")
                        .bind(.integer(Int64(now.timeIntervalSince1970)), .text(error), .text(feed.name)).run()
                } else {
                    try statement("UPDATE feeds SET last_checked = ?, last_success = ?, last_error = NULL WHERE name = ?")
                        .bind(.integer(Int64(now.timeIntervalSince1970)), .integer(Int64(now.timeIntervalSince1970)),
                              .text(feed.name)).run()
                }
            }
        }
    }
}
