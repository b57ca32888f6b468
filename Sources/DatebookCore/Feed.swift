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

    public static func calendar(_ name: String) -> String { "feed:" + name }

    /// Due when never checked, or `every` seconds after the last check.
    public func isDue(now: Date) -> Bool {
        guard let lastChecked else { return true }
        return now.timeIntervalSince(lastChecked) >= TimeInterval(every)
    }
}
