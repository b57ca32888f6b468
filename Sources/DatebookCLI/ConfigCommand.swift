import DatebookCore
import DatebookDelivery
import DatebookScheduler
import Foundation

/// `datebook config init | add-channel TYPE NAME`: writes a starting config for the user's zone and
/// locale, and adds channels to it, keeping the user's comments; secrets go to 0600 files beside it.
enum ConfigCommand: Command {
    static let spec = CommandSpec(
        name: "config", summary: "write a starting config, add channels to it",
        usage: "init [--force] | add-channel TYPE NAME [--url URL] [--smtp URL] [--username USER] [--password -] "
            + "[--from ADDR] [--to ADDR]… [--topic TOPIC] [--secret -] [--ca-file PATH] [--alerts] [--digest HH:MM]",
        options: [
            .flag("--force", "init: replace an existing config"),
            .value("--url", "URL", "the webhook URL (slack, discord, teams, mattermost, webhook; a secret) or the ntfy server"),
            .value("--smtp", "URL", "email: smtps://HOST:465 or smtp://HOST:587 (STARTTLS)"),
            .value("--username", "USER", "email: the SMTP login"),
            .value("--password", "PASSWORD", "email: the SMTP password (a secret; - reads it from stdin)"),
            .value("--from", "ADDR", "email: the sender, e.g. 'datebook <me@example.org>'"),
            .value("--to", "ADDR", repeatable: true, "email: a recipient (repeatable)"),
            .value("--topic", "TOPIC", "ntfy: the topic (a secret; - reads it from stdin)"),
            .value("--secret", "SECRET", "webhook: the HMAC signing secret (- reads it from stdin)"),
            .value("--ca-file", "PATH", "a PEM file of certificates to trust for this channel (a private CA)"),
            .flag("--alerts", "send alerts to this channel (adds it to alerts.channels)"),
            .value("--digest", "HH:MM", "send a daily digest at this time to this channel (adds one to digests)"),
        ],
        positionals: 1...3,
        examples: ["datebook config init",
                   "datebook config add-channel slack team --alerts",
                   "datebook config add-channel email mail --smtp smtps://smtp.example.org:465 --username me@example.org "
                       + "--from me@example.org --to me@example.org --password - --digest 07:00 < password.txt",
                   "datebook config add-channel desktop desktop --alerts"],
        details: """
        init writes a commented config at the config path (--config, DATEBOOK_CONFIG, else \
        $XDG_CONFIG_HOME/datebook/config.json5) with the system's time zone (TZ, else /etc/localtime) \
        and locale (LC_ALL, else LC_TIME, else LANG) and nothing switched on; an existing file is kept unless --force. \
        add-channel TYPE NAME (TYPE: email, slack, discord, teams, mattermost, ntfy, webhook, desktop) adds \
        a channel to it (writing one first when there is none), keeping its comments. What the channel \
        needs comes from the options, or is asked for when stdin is a terminal (secrets without echo); \
        a secret given as - is asked for on a terminal, else read from stdin. Secrets (webhook URLs, passwords, topics) are written to \
        NAME-KEY.secret beside the config with mode 0600 and named in it as {file: …}; none is printed. \
        --alerts and --digest also switch the channel on. It ends with the command that sends a test message.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals
        let action = try Subcommands.action(words, command: "config", counts: [("init", 1...1), ("add-channel", 3...3)],
                                            usage: spec.usage)
        switch action {
        case "init":
            let text = try initialize(force: arguments.has("--force"), context)
            context.out.write(text)
            return ExitCode.ok
        default:
            return try ConfigChannel.add(type: words[1], name: words[2], arguments, context)
        }
    }

    /// Writes the starting config; returns what to print.
    static func initialize(force: Bool, _ context: Context) throws -> String {
        let path = context.configPath
        if FileManager.default.fileExists(atPath: path), !force {
            throw CLIError.usage("\(path) exists already: 'datebook config add-channel TYPE NAME' adds to it, "
                                 + "'datebook config init --force' replaces it")
        }
        let zone = systemZone(context.environment)
        let locale = systemLocale(context.environment)
        try ConfigFiles.makeDirectory((path as NSString).deletingLastPathComponent)
        try ConfigFiles.write(starting(zone: zone, locale: locale), to: path, mode: 0o600)
        return "wrote \(path) (time zone \(zone ?? "of the system"), locale \(locale ?? "en_US")); nothing is sent yet.\n"
            + "Add a channel: datebook config add-channel email|slack|discord|teams|mattermost|ntfy|webhook|desktop NAME\n"
    }

    /// The commented starting config: zone and locale, and empty places for what add-channel adds.
    static func starting(zone: String?, locale: String?) -> String {
        var text = """
        // datebook configuration, written by 'datebook config init'. JSON5: comments and trailing
        // commas are fine. Every key: \(ExampleConfig.location()), or 'man 5 datebook-config'.
        // Add a channel: datebook config add-channel email|slack|discord|teams|mattermost|ntfy|webhook|desktop NAME
        {

        """
        text += zone.map { "  timeZone: \(JSONText.quote($0)),  // from the system; times you type are read in it\n" }
            ?? "  // timeZone: \"Europe/Berlin\",  // the system's zone is used (none could be read from TZ or /etc/localtime)\n"
        text += locale.map { "  locale: \(JSONText.quote($0)),  // from LANG: dates and words of digests and alerts, month names in --at\n" }
            ?? "  // locale: \"en_US\",  // the default; dates and words of digests and alerts, month names in --at\n"
        text += """
          channels: {
            // datebook config add-channel puts channels here; nothing is sent to one until a digest or
            // alerts.channels names it.
          },
          digests: [
            // { name: "morning", at: "07:00", days: "mon-fri", channels: ["mail"], format: "html" },
          ],
          alerts: {
            // before: ["1d", "1h"],  // lead times (the default: 1 h); add --alert per event
            channels: [],
          },
        }

        """
        return text
    }

    /// The system's zone: `TZ` (an IANA name, with or without a leading `:`), else the target of
    /// `/etc/localtime`, else `/etc/timezone`; nil when none names a known zone.
    static func systemZone(_ environment: [String: String]) -> String? {
        var candidates: [String] = []
        if let tz = environment["TZ"], !tz.isEmpty { candidates.append(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
           let range = target.range(of: "zoneinfo/") {
            candidates.append(String(target[range.upperBound...]))
        }
        if let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8) {
            candidates.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return candidates.first { !$0.isEmpty && !$0.hasPrefix("/") && TimeZone(identifier: $0) != nil }
    }

    /// `LC_ALL`, else `LC_TIME`, else `LANG`, as `de_DE` (no encoding); nil for C, POSIX or none.
    static func systemLocale(_ environment: [String: String]) -> String? {
        let value = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let name = String(value.prefix { $0 != "." && $0 != "@" })
        guard !name.isEmpty, name != "C", name != "POSIX", name.allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
        return name
    }
}

/// Writing the config and its secret files: private modes, whole files or nothing.
enum ConfigFiles {
    static func makeDirectory(_ path: String) throws {
        guard !path.isEmpty, !FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError(message: "cannot create \(path): \(error.localizedDescription); create it or choose another --config",
                           code: ExitCode.dataError)
        }
    }

    /// `text` to `path` with `mode`: a temporary file beside it (made with that mode), synced, renamed.
    static func write(_ text: String, to path: String, mode: mode_t) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/." + (path as NSString).lastPathComponent + ".tmp-\(getpid())"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        let failure = CLIError(message: "cannot write \(path): \(String(cString: strerror(errno))); check the folder's permissions",
                               code: ExitCode.dataError)
        guard fd >= 0 else { throw failure }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { FileDescriptorWrite.all($0, to: fd) }
        let ok = written && fchmod(fd, mode) == 0 && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure
        }
    }

    /// The file's permission bits, when it exists.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
