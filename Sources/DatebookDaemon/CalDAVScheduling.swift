import DatebookCore
import DatebookScheduler
import DatebookStore
import DatebookSync
import Foundation

/// The scheduler's part of CalDAV: before a pass (`tick`, each pass of `run`) every account whose
/// `every` has passed since its last sync is synced both ways, like a `caldav sync` of it, so that
/// alerts follow the server's changes. Accounts of the config are registered on the first one.
/// Problems are logged and recorded on the account (`caldav list` shows them); the pass goes on.
public enum CalDAVScheduling {
    /// How long `datebook run` waits after a store change before it syncs the accounts whose
    /// calendars changed here, so that a burst of edits goes up in one sync.
    public static let afterLocalChange: Duration = .seconds(2)

    /// - Parameter localChanges: also sync, whatever their `every`, the accounts with a calendar
    ///   changed in datebook since its last sync (its count of local changes moved, `CalDAVLocalChanges`).
    public static func syncDue(store: any PlannerStore, config: Config, environment: [String: String], timeZone: TimeZone,
                               now: Date, localChanges: Bool = false, accounts: any CalDAVAccountAccess, log: (String) -> Void) {
        do {
            guard let store = store as? any CalDAVStore else { return }
            let known = Set(try store.calDAVAccounts().map(\.name))
            for entry in config.caldav where !known.contains(entry.name) {
                let account = CalDAVAccount(name: entry.name, url: entry.url, username: entry.username, passwordSource: "config",
                                            every: Int(entry.every))
                do {
                    let calendars = try accounts.register(account, chosen: entry.calendars, store, config: config, environment: environment)
                    log("caldav '\(entry.name)': added from the config with \(calendars.count) calendar(s)")
                } catch {
                    // Held without calendars, the failure recorded: it backs off like any failing account, and
                    // its next attempt discovers the calendars (`followConfig`), instead of one at every pass.
                    log("caldav '\(entry.name)' (config): \(accounts.describe(error))")
                    try store.addCalDAVAccount(account, calendars: [])
                    try record(account, failure: failure(error, accounts: accounts), store, config: config, environment: environment,
                               accounts: accounts, now: now)
                }
            }
            for account in try store.calDAVAccounts().map({ configured($0, config) }) {
                // A failing account waits for its backoff (issue 31), whatever changed here; new settings end it at once.
                let fingerprint = account.backoff.isFailing ? Self.fingerprint(account, config: config, environment: environment, accounts: accounts) : ""
                guard account.backoff.allowsAttempt(at: now, fingerprint: fingerprint) else { continue }
                let settingsChanged = account.backoff.isFailing && !account.backoff.settingsUnchanged(fingerprint)
                guard try settingsChanged || isDue(account, now: now) || localChanges && changedHere(account, store) else { continue }
                // One try per wait, however many schedulers read the account at once: the try is claimed as the
                // failure it would be (new settings included), so the others find the wait moved on.
                if account.backoff.isFailing {
                    let claimed = account.backoff.failed(.other, at: now, every: TimeInterval(account.every), fingerprint: fingerprint,
                                                         jitter: 0)
                    guard try store.claimCalDAVAttempt(account: account.name, seen: account.backoff, as: claimed) else { continue }
                }
                var failure: (message: String, kind: CalDAVBackoff.Failure)?
                do {
                    try followConfig(account, store, config: config, environment: environment, accounts: accounts)
                    if isDue(account, now: now), firstOfItsDay(account, now: now) {
                        for found in try discoverNew(account, store, config: config, environment: environment, accounts: accounts) {
                            log("caldav '\(account.name)': found calendar '\(found.displayName)' on the server; syncing it")
                        }
                    }
                    let sync = CalDAVSync(store: store, client: try accounts.client(for: account, config: config, environment: environment),
                                          timeZone: timeZone)
                    for calendar in try store.calDAVCalendars(account: account.name) where calendar.selected {
                        let pushed: CalDAVSync.PushOutcome
                        do {
                            pushed = try sync.sync(calendar, now: now).pushed
                        } catch {
                            guard let gone = try gone(error, calendar, store, now: now) else { throw error }
                            log("caldav '\(account.name)' \(calendar.displayName): \(gone)")
                            continue
                        }
                        for line in pushed.conflicts { log("caldav '\(account.name)' \(calendar.displayName): conflict: \(line)") }
                        for line in pushed.refused { log("caldav '\(account.name)' \(calendar.displayName): not sent: \(line)") }
                        if let last = pushed.refused.last { failure = ("not sent: " + last, .other) }
                    }
                } catch {
                    failure = Self.failure(error, accounts: accounts)
                    log("caldav '\(account.name)': \(failure?.message ?? "")")
                }
                try record(account, failure: failure, store, config: config, environment: environment, accounts: accounts, now: now)
            }
        } catch {
            log("caldav accounts not synced: \(accounts.describe(error))")
        }
    }

    /// The account with the `every` and `timeout` of its config entry, for an account the config
    /// registered: the config stays its source, so a change applies without registering it again.
    public static func configured(_ account: CalDAVAccount, _ config: Config) -> CalDAVAccount {
        guard account.passwordSource == "config", let entry = config.caldav.first(where: { $0.name == account.name }) else { return account }
        var account = account
        account.every = Int(entry.every)
        account.timeout = entry.timeout.map(Int.init)
        return account
    }

    /// A calendar deleted on the server (its own URL answers 404 or 410) no longer blocks its
    /// account: it is no longer synced (`caldav list` shows it `(not synced)`), its events and any
    /// change made here that was not sent stay in datebook, and what happened is recorded
    /// (`caldav status`). The copy of the server's texts and the sync token are dropped: should the
    /// calendar be synced again (`caldav edit`, `caldav add` again), its events go up as made here.
    /// Returns the message; nil for any other error.
    public static func gone(_ error: Error, _ calendar: CalDAVCalendar, _ store: any CalDAVStore, now: Date) throws -> String? {
        guard case let .status(url, method, code)? = error as? CalDAVError, code == 404 || code == 410,
              url == CalDAVClient.shown(calendar.url) else { return nil }
        var stopped = calendar
        stopped.selected = false
        try store.updateCalDAVCalendars([stopped])
        try store.applyCalDAVChanges(to: calendar, changed: [], removed: Array(try store.calDAVResources(of: calendar).keys), events: nil,
                                     syncToken: nil, ctag: nil)
        try store.recordCalDAVSyncedChanges(nil, of: calendar)
        let events = try store.calDAVEventUIDs(of: calendar).values.filter { !$0.contains("#") && $0 != "tasks" }.count
        let message = "the calendar is gone from the server (\(method) answered HTTP \(code)); its \(events) event"
            + (events == 1 ? " stays" : "s stay") + " in datebook, no longer synced"
            + (calendar.changedHere ? ", with the changes made here that were not sent" : "")
            + "; 'datebook caldav edit \(calendar.account)' syncs it again once the server has it again"
        try store.recordCalDAVConflicts([message], in: calendar, now: now)
        return message
    }

    /// The config's `calendars` of an account it registered, honoured when they change: the
    /// calendars are discovered again and those it names synced, the others kept but no longer
    /// synced (a name the server has no calendar of fails the sync, exit 65, saying so). Nothing
    /// is asked of the server while the synced calendars are the ones the config names. An
    /// account whose registration failed (held without calendars) has them discovered here.
    public static func followConfig(_ account: CalDAVAccount, _ store: any CalDAVStore, config: Config, environment: [String: String],
                                    accounts: any CalDAVAccountAccess) throws {
        guard account.passwordSource == "config", let entry = config.caldav.first(where: { $0.name == account.name }) else { return }
        let calendars = try store.calDAVCalendars(account: account.name)
        // None held: its registration failed (the server down, say); discovered now.
        guard !entry.calendars.isEmpty || calendars.isEmpty else { return }
        guard calendars.isEmpty || Set(calendars.filter(\.selected).map(\.displayName)) != Set(entry.calendars) else { return }
        _ = try accounts.refreshed(account, chosen: entry.calendars, store, config: config, environment: environment)
    }

    /// Whether a sync at `now` is the account's first of the (UTC) day: the scheduler looks for new
    /// calendars then, once a day, so a sync with nothing changed stays one request the rest of the day.
    static func firstOfItsDay(_ account: CalDAVAccount, now: Date) -> Bool {
        guard let last = account.lastSync else { return false }
        return (last.timeIntervalSince1970 / 86_400).rounded(.down) != (now.timeIntervalSince1970 / 86_400).rounded(.down)
    }

    /// The calendars made on the server since, for an account that syncs all of them (each one it
    /// holds synced; from the config, one without `calendars`): added and synced. Returns them.
    static func discoverNew(_ account: CalDAVAccount, _ store: any CalDAVStore, config: Config,
                            environment: [String: String], accounts: any CalDAVAccountAccess) throws -> [CalDAVCalendar] {
        if account.passwordSource == "config", config.caldav.first(where: { $0.name == account.name })?.calendars.isEmpty == false { return [] }
        let held = try store.calDAVCalendars(account: account.name)
        guard !held.isEmpty, held.allSatisfy(\.selected) else { return [] }
        let known = Set(held.map(\.url))
        let new = try accounts.discover(account, chosen: [], config: config, environment: environment, verb: "synced")
            .filter { !known.contains($0.url) }
        if !new.isEmpty { try store.updateCalDAVCalendars(new) }
        return new
    }

    /// The message and kind of a failed sync: a refused login (401/403) or anything else.
    static func failure(_ error: Error, accounts: any CalDAVAccountAccess) -> (message: String, kind: CalDAVBackoff.Failure) {
        if let error = error as? CalDAVError { return (error.description, error.refusesLogin ? .loginRefused : .other) }
        return (accounts.describe(error), .other)
    }

    /// Records the end of an account's sync: healthy after a success; after a failure, one more
    /// failure and the wait before the next attempt (none after a refused login until the settings change).
    public static func record(_ account: CalDAVAccount, failure: (message: String, kind: CalDAVBackoff.Failure)?, _ store: any CalDAVStore,
                              config: Config, environment: [String: String], accounts: any CalDAVAccountAccess, now: Date) throws {
        guard let failure else { return try store.recordCalDAVSync(account: account.name, now: now, error: nil) }
        let backoff = account.backoff.failed(failure.kind, at: now, every: TimeInterval(account.every),
                                             fingerprint: fingerprint(account, config: config, environment: environment, accounts: accounts),
                                             jitter: Double.random(in: 0..<1))
        try store.recordCalDAVSync(account: account.name, now: now, error: failure.message, backoff: backoff)
    }

    /// The account's settings as they stand (URL, username, where the password comes from, CA file,
    /// `every`, the config entry's calendars) and 16 bits of a hash of its password: enough to see
    /// that the user changed something since a failure, too little to test guesses of the password against.
    static func fingerprint(_ account: CalDAVAccount, config: Config, environment: [String: String],
                            accounts: any CalDAVAccountAccess) -> String {
        var settings = [account.url, account.username, account.passwordSource, account.caFile ?? "", String(account.every)]
        if account.passwordSource == "config", let entry = config.caldav.first(where: { $0.name == account.name }) {
            settings += [entry.url, entry.username, entry.caFile ?? "", String(entry.every), entry.calendars.joined(separator: "\u{1F}")]
        }
        let password = (try? accounts.password(for: account, config: config, environment: environment)) ?? ""
        let hashed = String(SHA256.hash(Data((account.name + "\u{0}" + password).utf8)).hexString.prefix(4))
        return String(SHA256.hash(Data(settings.joined(separator: "\u{0}").utf8)).hexString.prefix(16)) + "-" + hashed
    }

    /// The earliest moment a failing account's backoff ends (not after a refused login, which
    /// waits for new settings): the daemon wakes then.
    public static func nextAttempt(_ store: any PlannerStore) -> Date? {
        guard let store = store as? any CalDAVStore, let accounts = try? store.calDAVAccounts() else { return nil }
        return accounts.compactMap { $0.backoff.isFailing && !$0.backoff.loginRefused ? $0.backoff.nextAttempt : nil }.min()
    }

    /// The sum of the synced calendars' counts of local changes: a store change that leaves it
    /// (such as a failed sync's record) is not a change for CalDAV to send.
    public static func localChangesMark(_ store: any PlannerStore) -> Int64? {
        guard let store = store as? any CalDAVStore, let accounts = try? store.calDAVAccounts() else { return nil }
        var mark: Int64 = 0
        for account in accounts {
            guard let calendars = try? store.calDAVCalendars(account: account.name) else { return nil }
            for calendar in calendars where calendar.selected { mark &+= calendar.localChanges }
        }
        return mark
    }

    /// Never synced, or `every` seconds after the last sync.
    static func isDue(_ account: CalDAVAccount, now: Date) -> Bool {
        guard let last = account.lastSync else { return true }
        return now.timeIntervalSince(last) >= TimeInterval(account.every)
    }

    /// Whether one of the account's synced calendars was changed in datebook since its last sync.
    static func changedHere(_ account: CalDAVAccount, _ store: any CalDAVStore) throws -> Bool {
        try store.calDAVCalendars(account: account.name).contains { $0.selected && $0.changedHere }
    }

    /// True when the store has a CalDAV account.
    public static func hasAccounts(_ store: any PlannerStore) -> Bool {
        guard let store = store as? any CalDAVStore else { return false }
        return (try? store.calDAVAccounts().isEmpty) == false
    }
}

/// How the scheduler reaches a CalDAV account's server (discovery, login, its password) and words an
/// error for the log: the command line's account handling (`CalDAVCommand`), given to the daemon.
public protocol CalDAVAccountAccess: Sendable {
    /// Discovers the account's calendars and stores the account with them; returns them.
    func register(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                  environment: [String: String]) throws -> [CalDAVCalendar]
    /// Discovers the calendars again and selects those `chosen`.
    func refreshed(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                   environment: [String: String]) throws -> (found: [CalDAVCalendar], stopped: [CalDAVCalendar])
    /// The account's calendars as the server lists them now.
    func discover(_ account: CalDAVAccount, chosen: [String], config: Config, environment: [String: String],
                  verb: String) throws -> [CalDAVCalendar]
    /// A client logged in as the account.
    func client(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> CalDAVClient
    /// The account's password, read now.
    func password(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> String
    /// The message for an error, as the command line words it.
    func describe(_ error: any Error) -> String
}
