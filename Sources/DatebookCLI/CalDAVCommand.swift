import DatebookCore
import DatebookDaemon
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import DatebookSync
import Foundation

/// `datebook caldav add|list|sync|rm`: CalDAV accounts (issue 18; this build pulls, see docs/caldav.md).
enum CalDAVCommand: Command {
    static let actions = ["add", "edit", "list", "sync", "status", "rm"]

    static let spec = CommandSpec(
        name: "caldav", summary: "sync calendars and to-do lists from CalDAV servers",
        usage: "add NAME URL --username USER (--password-env VAR | --password-file PATH) [--calendar NAME]… [--ca-file PATH] [--timeout DURATION] | edit NAME [--calendar NAME]… [--timeout DURATION] | list | sync [NAME] | status [NAME] | rm NAME",
        options: [.value("--username", "USER", "the account's login"),
                  .value("--password-env", "VAR", "read the password from this environment variable at every sync"),
                  .value("--password-file", "PATH", "read the password from this file at every sync"),
                  .value("--calendar", "NAME", repeatable: true, "sync only the calendars with these display names (default: all)"),
                  .value("--every", "DURATION", "how often the daemon will sync it (default 15m)"),
                  .value("--ca-file", "PATH", "a PEM file of certificates to trust for this server (a private CA, a self-signed one)"),
                  .value("--timeout", "DURATION", "how long a request may wait for a byte from the server (default 2m)")],
        positionals: 0...3,
        examples: ["datebook caldav add home https://dav.example.org/ --username ann --password-env DAV_PASSWORD",
                   "datebook caldav sync", "datebook caldav list", "datebook caldav rm home"],
        details: """
        'caldav add' finds the account's calendars (/.well-known/caldav, current-user-principal,
        calendar-home-set) and prints them; nothing is fetched until 'caldav sync'. The password is
        never stored: only where to read it. VEVENTs become events, VTODOs tasks (of the event named
        by RELATED-TO, else of the calendar's "Tasks" event). --ca-file (the config's caFile) names a
        PEM file of certificates to trust for the account's server, kept with the account and used
        by its every request; without one, DATEBOOK_CA_FILE. 'caldav edit NAME' (or 'caldav add'
        again with the same URL and username) discovers the calendars again: new ones are added,
        --calendar picks which are synced (all without it). A calendar deleted on the server is
        reported and no longer synced; its events stay in datebook. --timeout (the config's timeout)
        is how long a request may go without a byte from the server before it is given up (default
        2m: a server may think that long over a big calendar); a whole request may take ten times
        that, at least 5 minutes.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals
        let action = try Subcommands.action(words, command: "caldav", counts: [("add", 3...3), ("edit", 2...2), ("list", 0...1), ("sync", 1...2),
                                                                              ("status", 1...2), ("rm", 2...2)],
                                            usage: spec.usage)
        let store = try CalDAVScheduling.calDAVStore(try context.openStore())
        switch action {
        case "add": return try add(name: words[1], url: words[2], arguments, store, context)
        case "edit":
            guard var account = try store.calDAVAccounts().first(where: { $0.name == words[1] }) else { throw try noSuchAccount(words[1], store) }
            if let timeout = try Subcommands.timeout(arguments) {
                account.timeout = timeout
                try store.setCalDAVTimeout(timeout, account: account.name)
            }
            return try refresh(account, chosen: arguments.all("--calendar"), store, context)
        case "rm":
            guard try store.removeCalDAVAccount(named: words[1]) else { throw try noSuchAccount(words[1], store) }
            context.out.write("removed caldav account '\(words[1])' and its events\n")
            return ExitCode.ok
        case "sync": return try sync(words.count > 1 ? words[1] : nil, store, context)
        case "status": return try status(words.count > 1 ? words[1] : nil, store, context)
        default: return try list(store, context)
        }
    }

    static func add(name: String, url: String, _ arguments: ParsedArguments, _ store: any CalDAVStore, _ context: Context) throws -> Int32 {
        try Subcommands.checkName(name, what: "caldav account")
        guard let components = URLComponents(string: url), ["https", "http"].contains(components.scheme?.lowercased() ?? ""),
            components.host?.isEmpty == false
        else { throw CLIError.usage("caldav URL '\(CalDAVClient.shown(url))': expected an https:// or http:// URL") }
        guard components.user == nil, components.password == nil else {
            throw CLIError.usage("caldav URL: put the login in --username and --password-env/--password-file, not in the URL")
        }
        guard let username = arguments.value("--username"), !username.isEmpty else {
            throw CLIError.usage("caldav add: --username USER is required")
        }
        let source: String
        switch (arguments.value("--password-env"), arguments.value("--password-file")) {
        case (let variable?, nil): source = "env:" + variable
        case (nil, let path?): source = "file:" + absolute(XDGPaths.expand(path, context.environment))
        default: throw CLIError.usage("caldav add: give one of --password-env VAR or --password-file PATH (the password is never stored)")
        }
        let every = try Subcommands.every(arguments, default: 15 * 60)
        let caFile = try arguments.value("--ca-file").map { path in
            let file = absolute(XDGPaths.expand(path, context.environment))
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw CLIError.usage("caldav add --ca-file: cannot read \(file); give a readable PEM file of the certificates to trust")
            }
            return file
        }
        let timeout = try Subcommands.timeout(arguments)
        let account = CalDAVAccount(name: name, url: url, username: username, passwordSource: source, every: every, caFile: caFile,
                                    timeout: timeout)
        if var existing = try store.calDAVAccounts().first(where: { $0.name == name }) {
            // Added again: its calendars are discovered again (new ones added, --calendar choosing which are synced).
            guard existing.url == url, existing.username == username else {
                throw CLIError.usage("a caldav account named '\(name)' exists already with another URL or username; "
                                     + "'datebook caldav rm \(name)' first to replace it")
            }
            if let timeout {
                existing.timeout = timeout
                try store.setCalDAVTimeout(timeout, account: name)
            }
            return try refresh(existing, chosen: arguments.all("--calendar"), store, context)
        }
        try register(account, chosen: arguments.all("--calendar"), store, context)
        context.out.write("'datebook caldav sync \(name)' fetches them\n")
        return ExitCode.ok
    }

    /// `path`, from the working directory when relative: what a stored account keeps.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Discovers the account's calendars, stores the account with them (those in `chosen`, or all,
    /// selected) and prints what it found.
    static func register(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, _ context: Context) throws {
        let calendars = try register(account, chosen: chosen, store, config: context.config, environment: context.environment)
        context.out.write("added caldav account '\(account.name)' (\(CalDAVClient.shown(account.url))) with \(calendars.count) calendar"
                          + (calendars.count == 1 ? "" : "s") + ":\n")
        for calendar in calendars { context.out.write(describe(calendar)) }
    }

    /// Discovers the account's calendars and stores the account with them; returns them.
    static func register(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                         environment: [String: String]) throws -> [CalDAVCalendar] {
        let calendars = try discover(account, chosen: chosen, config: config, environment: environment, verb: "added")
        try store.addCalDAVAccount(account, calendars: calendars)
        return calendars
    }

    /// The account's calendars as the server lists them now, those `chosen` names (all when empty)
    /// selected; a name the server has no calendar of is refused (exit 65).
    static func discover(_ account: CalDAVAccount, chosen: [String], config: Config, environment: [String: String],
                         verb: String) throws -> [CalDAVCalendar] {
        let found = try unavailableOnFailure { try client(for: account, config: config, environment: environment).discover(account.url) }
        for wanted in chosen where !found.contains(where: { $0.displayName == wanted }) {
            throw CLIError.data("caldav account '\(account.name)' not \(verb): no calendar named '\(wanted)'"
                                + Suggestion.hint(for: wanted, in: found.map(\.displayName)))
        }
        return found.map {
            var calendar = $0
            calendar.account = account.name
            calendar.selected = chosen.isEmpty || chosen.contains(calendar.displayName)
            return calendar
        }
    }

    /// `caldav edit NAME [--calendar NAME]…` and `caldav add` of an account held already: its calendars
    /// discovered again, the new ones added, those `chosen` names synced (all when none), the others
    /// kept with their events but no longer synced; prints them.
    static func refresh(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, _ context: Context) throws -> Int32 {
        let (calendars, stopped) = try refreshed(account, chosen: chosen, store, config: context.config, environment: context.environment)
        context.out.write("updated caldav account '\(account.name)' (\(CalDAVClient.shown(account.url))): \(calendars.count) calendar"
                          + (calendars.count == 1 ? "" : "s") + " on the server:\n")
        for calendar in calendars { context.out.write(describe(calendar)) }
        for calendar in stopped { context.out.write(String(describe(calendar).dropLast()) + " (gone from the server; its events stay)\n") }
        return ExitCode.ok
    }

    /// What `refresh` does, without printing: returns the calendars found and those held that the
    /// server no longer lists (no longer synced).
    static func refreshed(_ account: CalDAVAccount, chosen: [String], _ store: any CalDAVStore, config: Config,
                          environment: [String: String]) throws -> (found: [CalDAVCalendar], stopped: [CalDAVCalendar]) {
        let calendars = try discover(account, chosen: chosen, config: config, environment: environment, verb: "changed")
        let found = Set(calendars.map(\.url))
        var stopped = try store.calDAVCalendars(account: account.name).filter { !found.contains($0.url) && $0.selected }
        for index in stopped.indices { stopped[index].selected = false }
        try store.updateCalDAVCalendars(calendars + stopped)
        return (calendars, stopped)
    }

    /// `  Personal  VEVENT, VTODO  #1E90FF  https://…` (`(not synced)` when not chosen).
    static func describe(_ calendar: CalDAVCalendar) -> String {
        var line = "  \(TextWidth.clean(calendar.displayName))  \(calendar.components.joined(separator: ", "))"
        if let color = calendar.color { line += "  \(TextWidth.clean(color))" }
        line += "  \(CalDAVClient.shown(calendar.url))"
        if !calendar.selected { line += "  (not synced)" }
        return line + "\n"
    }

    static func sync(_ name: String?, _ store: any CalDAVStore, _ context: Context) throws -> Int32 {
        var failures: [CLIError] = []
        // The config's accounts are registered on their first sync (their password stays in the config).
        let known = Set(try store.calDAVAccounts().map(\.name))
        for entry in context.config.caldav where !known.contains(entry.name) && (name == nil || name == entry.name) {
            let account = CalDAVAccount(name: entry.name, url: entry.url, username: entry.username, passwordSource: "config",
                                        every: Int(entry.every), caFile: entry.caFile)
            do {
                try register(account, chosen: entry.calendars, store, context)
            } catch let error as CLIError {
                failures.append(CLIError(message: "caldav '\(entry.name)' (config): " + error.message, code: error.code))
            }
        }
        var accounts = try store.calDAVAccounts().map { CalDAVScheduling.configured($0, context.config) }
        if let name {
            accounts = accounts.filter { $0.name == name }
            guard !accounts.isEmpty else { throw try noSuchAccount(name, store) }
        }
        if accounts.isEmpty {
            context.out.write("No caldav accounts. Add one with 'datebook caldav add NAME URL --username USER --password-env VAR'.\n")
            return ExitCode.ok
        }
        for account in accounts {
            // An explicit sync runs whatever the backoff; its outcome sets the backoff the scheduler keeps to.
            var failure: (error: CLIError, kind: CalDAVBackoff.Failure)?
            do {
                let refused = try sync(account, store, context)
                failure = refused.last.map { (CLIError.data($0), .other) }
            } catch let error as CalDAVError {
                failure = (CLIError(message: error.description, code: error.isUnavailable ? ExitCode.unavailable : ExitCode.dataError),
                           error.refusesLogin ? .loginRefused : .other)
            } catch let error as CLIError {
                failure = (error, .other)
            }
            try CalDAVScheduling.record(account, failure: failure.map { ($0.error.message, $0.kind) }, store, config: context.config,
                                        environment: context.environment, accounts: CommandLineAccounts(), now: context.now)
            if let failure { failures.append(CLIError(message: "caldav '\(account.name)': " + failure.error.message, code: failure.error.code)) }
        }
        guard let last = failures.last else { return ExitCode.ok }
        for failure in failures.dropLast() { context.err.write("datebook: \(failure.message)\n") }
        throw last
    }

    /// Each selected calendar of one account: local changes up, then the server's down; one line
    /// each on stdout, conflicts and warnings on stderr. Returns the writes the server refused.
    static func sync(_ account: CalDAVAccount, _ store: any CalDAVStore, _ context: Context) throws -> [String] {
        try CalDAVScheduling.followConfig(account, store, config: context.config, environment: context.environment,
                                          accounts: CommandLineAccounts())
        let client = try client(for: account, context)
        let sync = CalDAVSync(store: store, client: client, timeZone: context.timeZone)
        var refused: [String] = []
        for calendar in try store.calDAVCalendars(account: account.name) where calendar.selected {
            let prefix = "caldav '\(account.name)' \(TextWidth.clean(calendar.displayName))"
            let result: (pushed: CalDAVSync.PushOutcome, pulled: CalDAVSync.PullOutcome)
            do {
                result = try sync.sync(calendar, now: context.now)
            } catch {
                // A CalDAVError is met by the caller (backoff), unless the calendar is gone from the server.
                guard let gone = try CalDAVScheduling.gone(error, calendar, store, now: context.now) else { throw error }
                context.err.write("datebook: warning: \(prefix): \(gone)\n")
                continue
            }
            let (sent, outcome) = result
            for conflict in sent.conflicts { context.err.write("datebook: warning: \(prefix): conflict: \(conflict)\n") }
            for refusal in sent.refused { context.err.write("datebook: \(prefix): not sent: \(refusal)\n") }
            refused += sent.refused.map { "\(calendar.displayName): not sent: \($0)" }
            if sent.sent + sent.removed > 0 {
                context.out.write("\(prefix): \(sent.sent) sent, \(sent.removed) removed on the server\n")
            }
            for warning in outcome.warnings { context.err.write("datebook: warning: \(prefix): \(warning)\n") }
            let what = outcome.events.map {
                "\(outcome.received) received, \(outcome.removed) removed, \($0) event" + ($0 == 1 ? "" : "s")
            } ?? "unchanged"
            context.out.write("\(prefix): \(what)\n")
        }
        return refused
    }

    /// Each account's last sync and the conflicts that lost something, newest first; exit 1 when
    /// the last sync of one failed.
    static func status(_ name: String?, _ store: any CalDAVStore, _ context: Context) throws -> Int32 {
        var accounts = try store.calDAVAccounts()
        if let name {
            accounts = accounts.filter { $0.name == name }
            guard !accounts.isEmpty else { throw try noSuchAccount(name, store) }
        }
        let report = try report(accounts, store, context)
        context.out.write(report.text)
        return report.failed ? 1 : ExitCode.ok
    }

    /// `home: synced WHEN[, FAILED: why]` per account, then its conflicts (at most `limit`, newest
    /// first) or `no conflicts`, each line after `indent`: what `caldav status` and `status` print.
    static func report(_ accounts: [CalDAVAccount], _ store: any CalDAVStore, _ context: Context, indent: String = "",
                       limit: Int = 50) throws -> (text: String, failed: Bool) {
        var text = ""
        var failed = false
        for account in accounts {
            let synced = account.lastSync.map { Rows.when(.instant($0), context) } ?? "never"
            text += indent + "\(account.name): synced \(synced)" + (account.lastError.map { ", FAILED: " + $0 } ?? "") + "\n"
            failed = failed || account.lastError != nil
            if let line = backoffLine(account, context) { text += indent + "  " + line + "\n" }
            let conflicts = try store.calDAVConflicts(account: account.name, limit: limit)
            if conflicts.isEmpty { text += indent + "  no conflicts\n" }
            for conflict in conflicts {
                text += indent + "  \(Rows.when(.instant(conflict.at), context))  \(TextWidth.clean(conflict.calendar))  "
                    + TextWidth.clean(conflict.message) + "\n"
            }
        }
        return (text, failed)
    }

    /// What the scheduler does about a failing account (issue 31): nil when it is healthy.
    static func backoffLine(_ account: CalDAVAccount, _ context: Context) -> String? {
        let backoff = account.backoff
        guard backoff.isFailing else { return nil }
        if backoff.loginRefused {
            return "login refused: no retry until the password or the account's settings change; fix them, then "
                + "'datebook caldav sync \(account.name)' (a running 'datebook run' retries after its config is reloaded, SIGHUP)"
        }
        let next = backoff.nextAttempt.map { Rows.when(.instant($0), context) } ?? "now"
        return "backing off after \(backoff.failures) failed sync" + (backoff.failures == 1 ? "" : "s") + ": next attempt \(next)"
    }

    static func list(_ store: any CalDAVStore, _ context: Context) throws -> Int32 {
        let accounts = try store.calDAVAccounts()
        if accounts.isEmpty {
            context.out.write("No caldav accounts. Add one with 'datebook caldav add NAME URL --username USER --password-env VAR'.\n")
            return ExitCode.ok
        }
        for account in accounts.map({ CalDAVScheduling.configured($0, context.config) }) {
            let synced = account.lastSync.map { Rows.when(.instant($0), context) } ?? "never"
            var line = "\(account.name)  \(CalDAVClient.shown(account.url))  \(account.username)  every \(LeadTime(seconds: account.every))  synced \(synced)"
            if let caFile = account.caFile { line += "  ca-file " + TextWidth.clean(caFile) }
            if let timeout = account.timeout { line += "  timeout \(LeadTime(seconds: timeout))" }
            if let error = account.lastError { line += "  FAILED: " + error }
            context.out.write(line + "\n")
            for calendar in try store.calDAVCalendars(account: account.name) { context.out.write(describe(calendar)) }
        }
        return ExitCode.ok
    }

    /// A client logged in as the account; the password is read now, from where the account says.
    static func client(for account: CalDAVAccount, _ context: Context) throws -> CalDAVClient {
        try client(for: account, config: context.config, environment: context.environment)
    }

    /// The account's CA file: the config entry's `caFile` for an account from the config (the config
    /// stays its source), else the one given to `caldav add`; without one, DATEBOOK_CA_FILE.
    static func client(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> CalDAVClient {
        let password = try password(for: account, config: config, environment: environment)
        var caFile = account.caFile
        if account.passwordSource == "config" { caFile = config.caldav.first(where: { $0.name == account.name })?.caFile }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CLIError.data("cannot read \(caFile) (the CA file of caldav account '\(account.name)')")
        }
        var client = CalDAVClient(http: HTTPClient(), username: account.username, password: password,
                                  caInfo: caFile ?? environment["DATEBOOK_CA_FILE"])
        client.timeout = CalDAVScheduling.configured(account, config).noDataTimeout
        return client
    }

    /// The account's password, read now from where the account says (the config, a variable, a file).
    static func password(for account: CalDAVAccount, config: Config, environment: [String: String]) throws -> String {
        if account.passwordSource == "config" {
            guard let entry = config.caldav.first(where: { $0.name == account.name }) else {
                throw CLIError.usage("caldav account '\(account.name)' came from the config, which no longer has it; "
                                     + "put it back or 'datebook caldav rm \(account.name)'")
            }
            do {
                return try entry.password.resolve(environment: environment).value
            } catch {
                throw CLIError.usage("the password of caldav account '\(account.name)' (config): \(error)")
            }
        } else if account.passwordSource.hasPrefix("env:") {
            let variable = String(account.passwordSource.dropFirst(4))
            guard let value = environment[variable], !value.isEmpty else {
                throw CLIError.usage("the environment variable \(variable) (the password of caldav account '\(account.name)') is not set")
            }
            return value
        }
        let path = String(account.passwordSource.dropFirst(5))
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.data("cannot read \(path) (the password file of caldav account '\(account.name)')")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    /// Runs `body`, turning a `CalDAVError` into the CLI's error: exit 69 when the server or the
    /// login is the problem, 65 when its answer is.
    static func unavailableOnFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CalDAVError {
            throw CLIError(message: error.description, code: error.isUnavailable ? ExitCode.unavailable : ExitCode.dataError)
        }
    }

    static func noSuchAccount(_ name: String, _ store: any CalDAVStore) throws -> CLIError {
        let names = try store.calDAVAccounts().map(\.name)
        return CLIError.usage("no caldav account named '\(name)'" + Suggestion.hint(for: name, in: names) + "; 'datebook caldav list' shows them")
    }
}
