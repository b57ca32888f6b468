import Foundation

/// A CalDAV server login (issue 18). The password itself is never stored: `passwordSource` names
/// where to read it (`env:VAR`, `file:PATH`, or `config`: the config's `caldav` entry of that name).
public struct CalDAVAccount: Sendable, Equatable {
    public var name: String
    /// What the user gave (`caldav add`); discovery starts there.
    public var url: String
    public var username: String
    public var passwordSource: String
    /// Seconds between syncs by the daemon.
    public var every: Int
    /// PEM file of certificates to trust for this account's server (a private CA, a self-signed
    /// certificate); every request of the account uses it, before DATEBOOK_CA_FILE.
    public var caFile: String?
    /// Seconds a request may go without a byte from the server (`caldav add --timeout`, the
    /// config's `timeout`); nil: `defaultTimeout`.
    public var timeout: Int?
    public var lastSync: Date?
    /// Why the last sync failed; nil after a good one.
    public var lastError: String?
    /// Failures in a row and when the next sync may start (issue 31).
    public var backoff: CalDAVBackoff

    public init(name: String, url: String, username: String, passwordSource: String, every: Int = 15 * 60,
                caFile: String? = nil, timeout: Int? = nil, lastSync: Date? = nil, lastError: String? = nil,
                backoff: CalDAVBackoff = .healthy) {
        self.name = name
        self.url = url
        self.username = username
        self.passwordSource = passwordSource
        self.every = every
        self.caFile = caFile
        self.timeout = timeout
        self.lastSync = lastSync
        self.lastError = lastError
        self.backoff = backoff
    }
}

extension CalDAVAccount {
    /// Seconds a request may go without a byte from the server when the account names none: a
    /// server may think a long time before its first byte (Radicale's first answer on a cold
    /// calendar of 10,000 events took 76 s).
    public static let defaultTimeout = 120

    /// The account's no-data timeout in seconds.
    public var noDataTimeout: Int { timeout ?? Self.defaultTimeout }
}

/// One calendar collection of an account, with what the next sync starts from.
public struct CalDAVCalendar: Sendable, Equatable {
    public var account: String
    /// Absolute URL of the collection.
    public var url: String
    public var displayName: String
    public var color: String?
    /// Supported components (`VEVENT`, `VTODO`, …).
    public var components: [String]
    /// Synced (chosen with `calendars`, or all when none were chosen).
    public var selected: Bool
    /// RFC 6578 sync token of the copy held; nil before the first sync.
    public var syncToken: String?
    public var ctag: String?
    /// The count of writes to the calendar's events in datebook (`CalDAVLocalChanges`), as read.
    public var localChanges: Int64
    /// `localChanges` as the last sync left it in step with the server; nil: look for local
    /// changes at the next sync whatever the count says (a write was refused, or never synced).
    public var syncedChanges: Int64?

    public init(account: String, url: String, displayName: String, color: String? = nil, components: [String],
                selected: Bool = true, syncToken: String? = nil, ctag: String? = nil, localChanges: Int64 = 0,
                syncedChanges: Int64? = nil) {
        self.account = account
        self.url = url
        self.displayName = displayName
        self.color = color
        self.components = components
        self.selected = selected
        self.syncToken = syncToken
        self.ctag = ctag
        self.localChanges = localChanges
        self.syncedChanges = syncedChanges
    }

    /// Changed in datebook since its last sync (or its last sync left something to push).
    public var changedHere: Bool { syncedChanges != localChanges }

    /// The calendar name its events are recorded under in `event_sources` (and their ids derive from).
    public var sourceCalendar: String { "caldav:" + account + " " + url }
}

/// One server resource as last received: its ETag and the server's own text, kept whole so that
/// what datebook does not model survives a change made here.
public struct CalDAVResource: Sendable, Equatable {
    /// Absolute URL.
    public var url: String
    public var etag: String?
    public var uid: String
    public var text: String

    public init(url: String, etag: String?, uid: String, text: String) {
        self.url = url
        self.etag = etag
        self.uid = uid
        self.text = text
    }
}
