import DatebookCore
import DatebookDelivery
import Foundation

/// The whole `config.json5`: zone, locale, channels, digest schedules, alert policy and feeds.
public struct Config: Sendable, Equatable {
    public var timeZone: String?
    public var locale: String?
    /// User templates directory (default `$XDG_CONFIG_HOME/datebook/templates`).
    public var templates: String?
    public var channels: [Channel]
    public var digests: [DigestSchedule]
    public var alerts: AlertPolicy
    public var feeds: [FeedSubscription]
    /// The store: a SQLite file path or a `postgresql://` URL (a secret: the URL may hold a password).
    public var store: SecretSource?

    public init(timeZone: String? = nil, locale: String? = nil, templates: String? = nil, channels: [Channel] = [],
                digests: [DigestSchedule] = [], alerts: AlertPolicy = AlertPolicy(), feeds: [FeedSubscription] = []) {
        self.timeZone = timeZone
        self.locale = locale
        self.templates = templates
        self.channels = channels
        self.digests = digests
        self.alerts = alerts
        self.feeds = feeds
    }

    public func channel(named name: String) -> Channel? { channels.first { $0.name == name } }
}

/// A wall-clock time of day, `HH:MM`.
public struct TimeOfDay: Sendable, Hashable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Parses `07:00` or `7:05`; nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        self.init(hour: h, minute: m)
    }

    public var description: String { String(format: "%02d:%02d", hour, minute) }
    public var minutes: Int { hour * 60 + minute }
}

/// A named digest sent at a time of day on some weekdays.
public struct DigestSchedule: Sendable, Equatable {
    public var name: String
    public var at: TimeOfDay
    /// Weekdays it runs on, 0 = Sunday … 6 = Saturday.
    public var weekdays: Set<Int>
    public var channels: [String]
    public var format: MessageFormat
    public var template: String?

    public init(name: String, at: TimeOfDay, weekdays: Set<Int> = Set(0...6), channels: [String],
                format: MessageFormat = .text, template: String? = nil) {
        self.name = name
        self.at = at
        self.weekdays = weekdays
        self.channels = channels
        self.format = format
        self.template = template
    }

    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// `mon-fri`, `sat,sun`, `daily`, `weekdays`, `weekends`, `mon-wed,fri`.
    static func parseDays(_ text: String) -> Set<Int>? {
        switch text.lowercased() {
        case "daily", "every day", "all": return Set(0...6)
        case "weekdays": return Set(1...5)
        case "weekends": return [0, 6]
        default: break
        }
        var days = Set<Int>()
        for part in text.lowercased().split(separator: ",") {
            let range = part.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
            guard (1...2).contains(range.count) else { return nil }
            guard let first = dayNames.firstIndex(of: String(range[0].prefix(3))),
                  let last = dayNames.firstIndex(of: String(range[range.count - 1].prefix(3))) else { return nil }
            var day = first
            while true {
                days.insert(day)
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        return days.isEmpty ? nil : days
    }
}

/// Quiet hours defer alerts (never drop them) to the end of the window.
public struct QuietHours: Sendable, Equatable {
    public var start: TimeOfDay
    public var end: TimeOfDay

    public init(start: TimeOfDay, end: TimeOfDay) {
        self.start = start
        self.end = end
    }

    /// True when the wall-clock minute-of-day `minutes` falls inside (windows may wrap midnight).
    public func contains(minutes: Int) -> Bool {
        if start.minutes == end.minutes { return false }
        if start.minutes < end.minutes { return minutes >= start.minutes && minutes < end.minutes }
        return minutes >= start.minutes || minutes < end.minutes
    }
}

/// Default alert lead times, channels, quiet hours, lateness and cancellation policy.
public struct AlertPolicy: Sendable, Equatable {
    public var before: [LeadTime]
    public var channels: [String]
    public var quietHours: QuietHours?
    /// How late an alert may still be sent before it is recorded as skipped instead.
    public var lateness: TimeInterval
    /// Cancel pending alerts of events whose tasks are all done.
    public var cancelWhenDone: Bool

    public init(before: [LeadTime] = [], channels: [String] = [], quietHours: QuietHours? = nil,
                lateness: TimeInterval = 6 * 3600, cancelWhenDone: Bool = false) {
        self.before = before
        self.channels = channels
        self.quietHours = quietHours
        self.lateness = lateness
        self.cancelWhenDone = cancelWhenDone
    }
}

/// A calendar subscribed by URL or path, refreshed every `every` seconds.
public struct FeedSubscription: Sendable, Equatable {
    public var name: String
    public var source: SecretSource
    public var every: TimeInterval

    public init(name: String, source: SecretSource, every: TimeInterval = 1800) {
        self.name = name
        self.source = source
        self.every = every
    }
}
