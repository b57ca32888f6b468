import DatebookCore
import Foundation

/// One line of `datebook doctor`: what was checked, how it went, and what to do.
struct Finding: Equatable {
    /// `skip`: a check not run (`--offline`, an example host); it counts as passing.
    enum Level: String { case ok, skip, warn, fail }

    var level: Level
    /// What was checked: `config`, `channel slack 'team'`, `store`, …
    var subject: String
    var message: String
    /// A channel that cannot be reached fails with 69 (unavailable); anything else with 65.
    var unavailable = false

    static func ok(_ subject: String, _ message: String) -> Finding { Finding(level: .ok, subject: subject, message: message) }
    static func warn(_ subject: String, _ message: String) -> Finding { Finding(level: .warn, subject: subject, message: message) }
    static func skip(_ subject: String, _ message: String) -> Finding { Finding(level: .skip, subject: subject, message: "skipped: " + message) }
    static func fail(_ subject: String, _ message: String, unavailable: Bool = false) -> Finding {
        Finding(level: .fail, subject: subject, message: message, unavailable: unavailable)
    }
}

/// `datebook doctor`: checks the set-up and says what to fix, one line per check.
enum DoctorCommand: Command {
    static let spec = CommandSpec(
        name: "doctor", summary: "check the set-up and say what to fix", usage: "[--send | --offline | --libraries]",
        options: [.flag("--send", "also send a test message to every channel"),
                  .flag("--offline", "skip every check that needs the network (channel hosts, a PostgreSQL store)"),
                  .flag("--libraries", "only check the C libraries datebook opens when a command needs them")],
        examples: ["datebook doctor", "datebook doctor --send", "datebook doctor --offline", "datebook doctor --libraries"],
        details: """
        One line per check, ok, skip, warn or fail: the config parses; every secret resolves (never printed); \
        the config and secret files are not readable by others; each channel's host resolves and its \
        TLS certificate is valid (nothing is sent without --send); the store opens, passes SQLite's \
        integrity check and has the current schema; a systemd timer or service is active or a crontab \
        line runs datebook (found through PATH: systemctl --user, crontab -l), else nothing will send \
        alerts; serve.token resolves, has 128 bits or more and its file is not readable by others, and a \
        listener off loopback is not plain HTTP; the time zone and locale are valid; the last tick or daemon pass is recent; feeds were \
        refreshed recently; the C libraries opened when a command needs them (libcurl to send, libpq for a PostgreSQL store, \
        libmicrohttpd for serve, libxml2 for a CalDAV sync) load, else which Debian package to install; --libraries checks only those. A channel whose host is an example host (example.org, example.com, \
        example.net and their subdomains; names under .example, .invalid, .test) is not looked up: \
        "skipped: example host". --offline skips every network check.
        \(exitStatusText)
        """,
        reportsSetupProblems: true
    )

    /// How long since the last tick or daemon pass before it warns: both pass at least once a minute.
    static let passTolerance: TimeInterval = 10 * 60

    /// The exit status as `--help`, the man page and README's "Checking the set-up" say it (a test compares).
    static let exitStatusText = "Exit status: 0 when every check passes or is skipped, 1 when one warns, "
        + "69 when only channel checks fail (a channel's host, program or secret), 65 when another check fails."

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let offline = arguments.has("--offline")
        guard !(offline && arguments.has("--send")) else {
            throw UsageError(message: "--send needs the network; leave out --offline", command: "doctor")
        }
        guard !arguments.has("--libraries") || !(offline || arguments.has("--send")) else {
            throw UsageError(message: "--libraries checks the libraries only; leave out --send and --offline", command: "doctor")
        }
        var findings: [Finding] = []
        if !arguments.has("--libraries") {
            findings = DoctorSetup.config(context) + DoctorSetup.secrets(context)
            findings += DoctorServe.check(context)
            findings += DoctorChannels.check(context, send: arguments.has("--send"), offline: offline)
            findings += DoctorStore.check(context, offline: offline)
            findings.append(DoctorScheduling.check(context))
            findings += DoctorSetup.zoneAndLocale(context)
        }
        findings += DoctorLibraries.check()
        for finding in findings { context.out.write(line(finding, context) + "\n") }
        return exitCode(findings)
    }

    static func line(_ finding: Finding, _ context: Context) -> String {
        let label = TextWidth.pad(finding.level.rawValue, to: 4)
        let styled = switch finding.level {
        case .ok: context.style(label, "32")
        case .skip: context.style(label, "2")
        case .warn: context.style(label, "33")
        case .fail: context.style(label, "31;1")
        }
        return styled + "  " + finding.subject + ": " + finding.message
    }

    /// 0 all ok, 1 a warning, 69 when only channels fail, 65 when anything else fails.
    static func exitCode(_ findings: [Finding]) -> Int32 {
        let failures = findings.filter { $0.level == .fail }
        if failures.contains(where: { !$0.unavailable }) { return ExitCode.dataError }
        if !failures.isEmpty { return ExitCode.unavailable }
        return findings.contains { $0.level == .warn } ? 1 : ExitCode.ok
    }
}
