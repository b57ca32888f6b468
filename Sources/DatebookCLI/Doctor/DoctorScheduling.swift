import DatebookDelivery
import DatebookScheduler
import Foundation

/// `datebook doctor`'s check that something runs the scheduler: an active systemd user timer or
/// service, else a crontab line. `systemctl` and `crontab` are found through the given `PATH`, so
/// tests put scripts in their place; a machine without them skips that probe.
enum DoctorScheduling {
    static let units = ["datebook-tick.timer", "datebook.service"]

    /// Whether the config has anything for a pass to send: alert channels or a digest.
    static func sendsSomething(_ config: Config) -> Bool {
        !config.alerts.channels.isEmpty || !config.digests.isEmpty
    }

    static func check(_ context: Context) -> Finding {
        let subject = "scheduler"
        if let systemctl = ProgramSearch.find("systemctl", environment: context.environment) {
            for unit in units where run([systemctl, "--user", "is-active", "--quiet", unit], context)?.succeeded == true {
                return .ok(subject, "systemd user unit \(unit) is active")
            }
        }
        if let crontab = ProgramSearch.find("crontab", environment: context.environment),
           let result = run([crontab, "-l"], context), result.succeeded,
           let line = cronLine(in: String(decoding: result.stdout, as: UTF8.self)) {
            return .ok(subject, "a crontab line runs it: " + line)
        }
        guard sendsSomething(context.config) else {
            return .ok(subject, "no timer, service or crontab line, and nothing is configured to send")
        }
        return .warn(subject, "no systemd timer or service is active and no crontab line runs datebook: nothing will send alerts; "
                     + "run: systemctl --user enable --now datebook-tick.timer (or see etc/crontab.example)")
    }

    /// The first line of a crontab that runs `datebook tick` or `datebook run` (comments skipped).
    static func cronLine(in crontab: String) -> String? {
        crontab.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { line in
            guard !line.hasPrefix("#") else { return false }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.indices.dropLast().contains { index in
                (words[index] == "datebook" || words[index].hasSuffix("/datebook")) && ["tick", "run"].contains(words[index + 1])
            }
        }
    }

    static func run(_ argv: [String], _ context: Context) -> CommandResult? {
        try? CommandRunner(timeout: 5, grace: 1).run(argv, environment: context.environment)
    }
}
