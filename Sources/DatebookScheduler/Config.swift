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
    /// `datebook serve` (and `run --serve`): where it listens, its public address and its token.
    public var serve: ServeConfig
    /// CalDAV accounts (issue 18); `datebook caldav sync` registers each in the store on its first sync.
    public var caldav: [CalDAVAccountConfig] = []
    /// The store: a SQLite file path or a `postgresql://` URL (a secret: the URL may hold a password).
    public var store: SecretSource?

    public init(timeZone: String? = nil, locale: String? = nil, templates: String? = nil, channels: [Channel] = [],
                digests: [DigestSchedule] = [], alerts: AlertPolicy = AlertPolicy(), feeds: [FeedSubscription] = [],
                serve: ServeConfig = ServeConfig()) {
        self.timeZone = timeZone
        self.locale = locale
        self.templates = templates
        self.channels = channels
        self.digests = digests
        self.alerts = alerts
        self.feeds = feeds
        self.serve = serve
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
    /// A pass that comes more than this after the last one warns that the clock may have jumped
    /// ahead before it skips what is over the lateness (docs/scheduler.md, "Faults").
    public var clockJump: TimeInterval = 86_400

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

/// The `serve` key: the web server's address, the address people reach it at, and its token.
public struct ServeConfig: Sendable, Equatable {
    /// `HOST:PORT` to listen on (default 127.0.0.1:8650).
    public var listen: String?
    /// The address people reach the server at (behind a reverse proxy: its https URL), for links.
    public var baseURL: String?
    /// Required when listening anywhere but loopback: the login form's password and the API's bearer token.
    public var token: SecretSource?
    /// When set, `/feeds/FEEDTOKEN/calendar.ics` (and `/calendar.ics?token=FEEDTOKEN`) serve the feed
    /// without a login, for calendar apps that cannot sign in.
    public var feedToken: SecretSource?
    /// One line per request on stderr (default true); false turns the access log off (errors are still logged).
    public var accessLog: Bool
    /// Reverse proxies' addresses: a request from one of them is counted under the client its
    /// `Forwarded`/`X-Forwarded-For` names (failed logins), not under the proxy's address.
    public var trustedProxies: [String]
    /// The server's worker threads (nil: one per core, at least 2).
    public var workers: Int?

    public init(listen: String? = nil, baseURL: String? = nil, token: SecretSource? = nil, feedToken: SecretSource? = nil, accessLog: Bool = true,
                trustedProxies: [String] = [], workers: Int? = nil) {
        self.listen = listen
        self.baseURL = baseURL
        self.token = token
        self.feedToken = feedToken
        self.accessLog = accessLog
        self.trustedProxies = trustedProxies
        self.workers = workers
    }
}

/// One entry of the config's `caldav` list.
public struct CalDAVAccountConfig: Sendable, Equatable {
    public var name: String
    public var url: String
    public var username: String
    public var password: SecretSource
    /// Display names of the calendars to sync; empty: all.
    public var calendars: [String]
    public var every: TimeInterval
    /// PEM file of certificates to trust for this server (`~` expanded; checked readable when read).
    public var caFile: String?
    /// How long a request may go without a byte from the server before it is given up (`timeout`);
    /// nil: `CalDAVAccount.defaultTimeout`.
    public var timeout: TimeInterval?

    public init(name: String, url: String, username: String, password: SecretSource, calendars: [String] = [],
                every: TimeInterval = 900, caFile: String? = nil, timeout: TimeInterval? = nil) {
        self.name = name
        self.url = url
        self.username = username
        self.password = password
        self.calendars = calendars
        self.every = every
        self.caFile = caFile
        self.timeout = timeout
    }
}
