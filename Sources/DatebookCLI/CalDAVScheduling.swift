import DatebookScheduler
import DatebookStore
import DatebookSync
import Foundation

/// The scheduler's part of CalDAV: before a pass (`tick`, each pass of `run`) every account whose
/// `every` has passed since its last sync is synced both ways, like a `caldav sync` of it, so that
/// alerts follow the server's changes. Accounts of the config are registered on the first one.
/// Problems are logged and recorded on the account (`caldav list` shows them); the pass goes on.
enum CalDAVScheduling {
    /// How long `datebook run` waits after a store change before it syncs the accounts whose
    /// calendars changed here, so that a burst of edits goes up in one sync.
    static let afterLocalChange: Duration = .seconds(2)

    /// - Parameter localChanges: also sync, whatever their `every`, the accounts with a calendar
    ///   changed in datebook since its last sync (its count of local changes moved, `CalDAVLocalChanges`).
    static func syncDue(store: any PlannerStore, config: Config, environment: [String: String], timeZone: TimeZone,
                        now: Date, localChanges: Bool = false, log: (String) -> Void) {
        do {
            guard let store = store as? any CalDAVStore else { return }
            let known = Set(try store.calDAVAccounts().map(\.name))
            for entry in config.caldav where !known.contains(entry.name) {
                let account = CalDAVAccount(name: entry.name, url: entry.url, username: entry.username, passwordSource: "config",
                                            every: Int(entry.every))
                do {
                    let calendars = try CalDAVCommand.register(account, chosen: entry.calendars, store, config: config, environment: environment)
                    log("caldav '\(entry.name)': added from the config with \(calendars.count) calendar(s)")
                } catch {
                    log("caldav '\(entry.name)' (config): \(ErrorTranslator.translate(error).message)")
                }
            }
            for account in try store.calDAVAccounts() where try isDue(account, now: now) || localChanges && changedHere(account, store) {
                var failure: String?
                do {
                    let sync = CalDAVSync(store: store, client: try CalDAVCommand.client(for: account, config: config, environment: environment),
                                          timeZone: timeZone)
                    for calendar in try store.calDAVCalendars(account: account.name) where calendar.selected {
                        let (pushed, _) = try CalDAVCommand.unavailableOnFailure { try sync.sync(calendar, now: now) }
                        for line in pushed.conflicts { log("caldav '\(account.name)' \(calendar.displayName): conflict: \(line)") }
                        for line in pushed.refused { log("caldav '\(account.name)' \(calendar.displayName): not sent: \(line)") }
                        failure = pushed.refused.last.map { "not sent: " + $0 } ?? failure
                    }
                } catch {
                    failure = ErrorTranslator.translate(error).message
                    log("caldav '\(account.name)': \(failure ?? "")")
                }
                try store.recordCalDAVSync(account: account.name, now: now, error: failure)
            }
        } catch {
            log("caldav accounts not synced: \(ErrorTranslator.translate(error).message)")
        }
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
    static func hasAccounts(_ store: any PlannerStore) -> Bool {
        guard let store = store as? any CalDAVStore else { return false }
        return (try? store.calDAVAccounts().isEmpty) == false
    }

    /// The store as CalDAV sees it (both stores hold CalDAV accounts).
    static func calDAVStore(_ store: any PlannerStore) throws -> any CalDAVStore {
        guard let store = store as? any CalDAVStore else {
            throw CLIError(message: "\(store.location) cannot hold CalDAV accounts", code: ExitCode.unavailable)
        }
        return store
    }
}
