import DatebookCore
import DatebookDaemon
import DatebookScheduler
import DatebookStore
import DatebookSync
import Foundation

/// The daemon's way to a CalDAV account's server: `CalDAVCommand`'s discovery, login and password
/// rules, and `ErrorTranslator`'s words for an error.
struct CommandLineAccounts: CalDAVAccountAccess {
    func register(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                  environment: [String: String]) throws -> [CalDAVCalendar] {
        try CalDAVCommand.register(account, chosen: chosen, store, config: config, environment: environment)
    }

    func refreshed(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                   environment: [String: String]) throws -> (found: [CalDAVCalendar], stopped: [CalDAVCalendar]) {
        try CalDAVCommand.refreshed(account, chosen: chosen, store, config: config, environment: environment)
    }

    func discover(_ account: CalDAVAccount, chosen: [String], config: Config, environment: [String: String],
                  verb: String) throws -> [CalDAVCalendar] {
        try CalDAVCommand.discover(account, chosen: chosen, config: config, environment: environment, verb: verb)
    }

    func client(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> CalDAVClient {
        try CalDAVCommand.client(for: account, config: config, environment: environment)
    }

    func password(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> String {
        try CalDAVCommand.password(for: account, config: config, environment: environment)
    }

    func describe(_ error: any Error) -> String { ErrorTranslator.translate(error).message }
}

extension CalDAVScheduling {
    /// The store as CalDAV sees it (both stores hold CalDAV accounts).
    static func calDAVStore(_ store: any PlannerStore) throws -> any CalDAVStore {
        guard let store = store as? any CalDAVStore else {
            throw CLIError(message: "\(store.location) cannot hold CalDAV accounts", code: ExitCode.unavailable)
        }
        return store
    }
}
