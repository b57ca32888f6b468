import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookScheduler
import DatebookStore
import Foundation

/// Everything a command needs from the outside world, resolved once from arguments and environment.
struct Context {
    let now: Date
    let calendar: Calendar
    let timeZone: TimeZone
    let storePath: String
    let configPath: String
    /// The loaded config (empty when there is no config file).
    let config: Config
    let environment: [String: String]
    let colors: Bool
    let out: OutputSink
    let err: OutputSink
    /// Why the config did not load or the time zone is unknown; set only for a command whose
    /// spec `reportsSetupProblems` (the others fail on them), which then runs with no config or
    /// the system zone.
    var setupProblems = SetupProblems()
    /// `--now` or `DATEBOOK_NOW` set the time (not the system clock).
    var nowIsPinned = false
    /// `--store` or `DATEBOOK_STORE` named the store (not the config's `store` or the default path).
    var storeIsNamed = false

    /// Reads WHEN with the month and weekday names and numeric date order of the config's `locale`.
    var whenParser: WhenParser {
        WhenParser(now: now, calendar: calendar, locale: Locale(identifier: config.locale ?? "en_US"))
    }

    /// The words of alerts and digests for the config's `locale`, with the user's
    /// `locales/LANG.json` beside their templates.
    func words(_ config: Config? = nil) throws -> MessageCatalog {
        try MessageCatalog.load(locale: (config ?? self.config).locale ?? "en_US",
                                overrideDirectory: TemplatesCommand.overrideDirectory(self))
    }

    /// Opens the store with the recurrence horizon of `now`.
    ///
    /// - Parameter extendingHorizon: re-expand recurring events whose materialised span falls short
    ///   of the horizon (writable opens only). Commands that read no occurrences (`add`, `edit`,
    ///   `rm`, `task`) pass false: they expand no rule but the one they save.
    func openStore(readOnly: Bool = false, extendingHorizon: Bool = true) throws -> any PlannerStore {
        let store = try StoreOpener.open(storePath, readOnly: readOnly)
        store.recurrenceHorizon = Store.standardHorizon(now: now)
        if nowIsPinned { store.editTime = now }
        if !readOnly, extendingHorizon { try store.extendRecurrenceHorizon() }
        return store
    }

    /// ANSI styling that disappears when colours are off.
    func style(_ text: String, _ sgr: String) -> String {
        colors ? "\u{1B}[" + sgr + "m" + text + "\u{1B}[0m" : text
    }

    static func make(_ parsed: ParsedArguments, spec: CommandSpec, environment: [String: String], stdoutIsTerminal: Bool,
                     out: OutputSink, err: OutputSink) throws -> Context {
        let configPath = XDGPaths.config(parsed.value("--config"), environment)
        var problems = SetupProblems()
        func reported<T>(_ problem: WritableKeyPath<SetupProblems, String?>, else fallback: T, _ body: () throws -> T) throws -> T {
            guard spec.reportsSetupProblems else { return try body() }
            do { return try body() } catch {
                problems[keyPath: problem] = ErrorTranslator.translate(error).message
                return fallback
            }
        }
        var config = try reported(\.config, else: Config()) {
            do {
                return try ConfigLoader.load(path: configPath, named: parsed.value("--config") != nil || environment["DATEBOOK_CONFIG"] != nil,
                                             environment: environment, err: spec.reportsSetupProblems ? StringSink() : err)
            } catch where spec.toleratesBrokenConfig {
                err.write("datebook: warning: \(ErrorTranslator.translate(error).message); going on without the config "
                          + "(system time zone, default store unless --store); 'datebook doctor' checks it\n")
                return Config()
            }
        }
        // Resolved here, thrown where it was: a PostgreSQL store's libpq loads on another thread
        // while the rest of the start runs.
        let configured = Result {
            try parsed.value("--store") ?? environment["DATEBOOK_STORE"] ?? config.store.map { try $0.resolve(environment: environment).value }
        }
        if case .success(let location?) = configured, SQLDialect.of(location: location) == .postgres { PostgresStore.loadLibraryAhead() }
        let zoneName = parsed.value("--tz") ?? environment["DATEBOOK_TZ"] ?? config.timeZone
        let zone = try reported(\.timeZone, else: TimeZone.current) {
            guard let zoneName else { return TimeZone.current }
            guard let named = TimeZone(identifier: zoneName) else {
                let hint = Suggestion.hint(for: zoneName, in: TimeZone.knownTimeZoneIdentifiers)
                throw UsageError(message: "unknown time zone '\(zoneName)'\(hint); use an IANA name like Europe/Berlin", command: nil)
            }
            if let problem = ZoneName.problem(zoneName, zone: named, now: Date()) { throw UsageError(message: problem, command: nil) }
            return named
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        let realNow = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var now = realNow
        if let nowText = parsed.value("--now") ?? environment["DATEBOOK_NOW"] {
            switch try WhenParser(now: realNow, calendar: calendar).parse(nowText) {
            case .instant(let date): now = date
            case .date(let day): now = day.start(in: calendar)
            }
        }
        if case .environment(let name) = config.store { CommandRunner.withholdFromChildren(name) }
        ArgumentScrub.hideStorePasswords()
        let storePath = XDGPaths.store(try configured.get(), environment)
        let pinned = parsed.value("--now") != nil || environment["DATEBOOK_NOW"] != nil
        config = AwaitNotificationCommand.listening(config, storePath: storePath, now: pinned ? now : nil,
                                                   environment: environment)
        let colors = try ColorMode.colors(parsed, spec: spec, environment: environment, stdoutIsTerminal: stdoutIsTerminal)
        return Context(now: now, calendar: calendar, timeZone: zone,
                       storePath: storePath,
                       configPath: configPath,
                       config: config,
                       environment: environment, colors: colors, out: out, err: err, setupProblems: problems,
                       nowIsPinned: pinned, storeIsNamed: parsed.value("--store") != nil || environment["DATEBOOK_STORE"] != nil)
    }
}

/// What kept the set-up from loading, as `datebook doctor` reports it.
struct SetupProblems: Sendable, Equatable {
    var config: String?
    var timeZone: String?
}

/// The global `--color auto|always|never` switch. `add` and `edit` once took `--color NAME` for the
/// event colour; there a value that is not a mode is still read as one (with a deprecation note)
/// by `EventOptions`, and everywhere a mode word is the output switch.
enum ColorMode {
    static let modes = ["auto", "always", "never"]

    static func colors(_ parsed: ParsedArguments, spec: CommandSpec, environment: [String: String], stdoutIsTerminal: Bool) throws -> Bool {
        let takesEventColor = spec.options.contains { $0.name == EventOptions.eventColor }
        let given = parsed.all("--color").filter { !takesEventColor || modes.contains($0) }
        switch given.last ?? "auto" {
        case "always": return true
        case "never": return false
        case "auto": return stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        case let mode:
            throw UsageError(message: "--color expects auto, always or never, got '\(mode)'"
                             + Suggestion.hint(for: mode, in: modes), command: nil)
        }
    }

    /// An event colour given the old way, `add/edit --color NAME`: the last value that is not a mode.
    static func legacyEventColor(_ parsed: ParsedArguments) -> String? {
        parsed.all("--color").last { !modes.contains($0) }
    }
}

/// Default file locations per the XDG base directory spec (DESIGN.md, "Files and defaults").
enum XDGPaths {
    static func home(_ env: [String: String]) -> String { env["HOME"] ?? NSHomeDirectory() }

    static func expand(_ path: String, _ env: [String: String]) -> String {
        if path == "~" { return home(env) }
        if path.hasPrefix("~/") { return home(env) + String(path.dropFirst()) }
        return path
    }

    static func dataHome(_ env: [String: String]) -> String {
        env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home(env) + "/.local/share"
    }

    static func configHome(_ env: [String: String]) -> String {
        env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home(env) + "/.config"
    }

    static func store(_ option: String?, _ env: [String: String]) -> String {
        expand(option ?? env["DATEBOOK_STORE"] ?? dataHome(env) + "/datebook/datebook.sqlite3", env)
    }

    static func config(_ option: String?, _ env: [String: String]) -> String {
        expand(option ?? env["DATEBOOK_CONFIG"] ?? configHome(env) + "/datebook/config.json5", env)
    }
}
