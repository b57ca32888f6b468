import DatebookCore
import DatebookScheduler
import Foundation

/// `datebook config add-channel TYPE NAME`: what each type needs, asked for or taken from options,
/// secrets written to 0600 files, the channel appended to the config text with its comments kept.
enum ConfigChannel {
    static let types = ["email", "slack", "discord", "teams", "mattermost", "ntfy", "webhook", "desktop"]

    /// One value a channel type needs: its config key, the option that gives it, the prompt, and
    /// whether it is a secret (kept in a file, read without echo, never printed).
    struct Need {
        var key: String
        var option: String
        var prompt: String
        var secret = false
        var optional = false
        var fallback: String?
    }

    static func needs(_ type: String) -> [Need] {
        switch type {
        case "slack", "discord", "teams", "mattermost":
            [Need(key: "url", option: "--url", prompt: "\(type) webhook URL", secret: true)]
        case "webhook":
            [Need(key: "url", option: "--url", prompt: "webhook URL", secret: true),
             Need(key: "secret", option: "--secret", prompt: "HMAC signing secret (empty: unsigned)", secret: true, optional: true)]
        case "ntfy":
            [Need(key: "url", option: "--url", prompt: "ntfy server", fallback: "https://ntfy.sh"),
             Need(key: "topic", option: "--topic", prompt: "ntfy topic", secret: true)]
        case "email":
            [Need(key: "smtp", option: "--smtp", prompt: "SMTP server (smtps://HOST:465 or smtp://HOST:587)"),
             Need(key: "username", option: "--username", prompt: "SMTP login (empty: none)", optional: true),
             Need(key: "password", option: "--password", prompt: "SMTP password (empty: none)", secret: true, optional: true),
             Need(key: "from", option: "--from", prompt: "sender address"),
             Need(key: "to", option: "--to", prompt: "recipient address")]
        default: []
        }
    }

    static func add(type: String, name: String, _ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        guard types.contains(type) else {
            let other = ["command", "file"].contains(type) ? "; a \(type) channel is written by hand (see \(ExampleConfig.location()))" : ""
            throw UsageError(message: "unknown channel type '\(type)'" + Suggestion.hint(for: type, in: types)
                             + "; expected " + JSONReader.orList(types) + other, command: "config")
        }
        try Subcommands.checkName(name, what: "channel")
        let path = context.configPath
        var notes = ""
        if !FileManager.default.fileExists(atPath: path) { notes += try ConfigCommand.initialize(force: false, context) }
        let original = try String(contentsOfFile: path, encoding: .utf8)
        var text = ConfigText(original)
        guard try text.node(["channels", name]) == nil else {
            throw CLIError.usage("\(path) has a channel named '\(name)' already; choose another NAME or edit the file")
        }
        let input = Answers(arguments: arguments, interactive: isatty(STDIN_FILENO) == 1, err: context.err)
        var members = ["type: " + JSONText.quote(type)]
        var secretFiles: [String] = []
        for need in needs(type) {
            guard let value = try input.value(for: need, type: type), !value.isEmpty else { continue }
            if need.secret {
                let file = (path as NSString).deletingLastPathComponent + "/\(name)-\(need.key).secret"
                try ConfigFiles.write(value + "\n", to: file, mode: 0o600)
                secretFiles.append(file)
                members.append(need.key + ": { file: " + JSONText.quote(homeRelative(file, context.environment)) + " }")
            } else if need.key == "to" {
                let all = arguments.all("--to").isEmpty ? [value] : arguments.all("--to")
                members.append("to: [" + all.map(JSONText.quote).joined(separator: ", ") + "]")
            } else {
                members.append(need.key + ": " + JSONText.quote(value))
            }
        }
        if let ca = arguments.value("--ca-file") {
            let full = XDGPaths.expand(ca, context.environment)
            guard FileManager.default.isReadableFile(atPath: full) else {
                throw CLIError.usage("--ca-file '\(ca)': no readable file there; give the PEM file of the CA to trust")
            }
            members.append("caFile: " + JSONText.quote(full))
        }
        try edit(&text, name: name, channel: "{ " + members.joined(separator: ", ") + " }", arguments)
        // The edited text must load as a config before it replaces the old one.
        _ = try Config.parse(Array(text.text.utf8), file: path, environment: context.environment)
        try ConfigFiles.write(text.text, to: path, mode: ConfigFiles.mode(path) ?? 0o600)
        var out = notes + "added \(type) channel '\(name)' to \(path)"
        if !secretFiles.isEmpty { out += " (secret in " + secretFiles.joined(separator: ", ") + ", mode 600)" }
        out += "\n"
        if arguments.has("--alerts") { out += "alerts go to '\(name)'\n" }
        if let at = arguments.value("--digest") { out += "a digest goes to '\(name)' every day at \(at)\n" }
        out += "Send a test message: datebook channels test \(name)\n"
        context.out.write(out)
        return ExitCode.ok
    }

    /// Adds the channel, and switches it on for alerts or a daily digest when asked.
    static func edit(_ text: inout ConfigText, name: String, channel: String, _ arguments: ParsedArguments) throws {
        if try text.node(["channels"]) == nil { try text.addMember("channels", "{}", in: []) }
        try text.addMember(name, channel, in: ["channels"])
        if arguments.has("--alerts") {
            if try text.node(["alerts"]) == nil { try text.addMember("alerts", "{}", in: []) }
            if try text.node(["alerts", "channels"]) == nil { try text.addMember("channels", "[]", in: ["alerts"]) }
            try text.addElement(JSONText.quote(name), in: ["alerts", "channels"])
        }
        if let at = arguments.value("--digest") {
            guard TimeOfDay(at) != nil else { throw CLIError.usage("--digest '\(at)': expected HH:MM like 07:00") }
            if try text.node(["digests"]) == nil { try text.addMember("digests", "[]", in: []) }
            let taken = (try text.node(["digests"])).map { node -> Bool in
                guard case .array(let items) = node.value else { return false }
                return items.contains { $0["name"]?.value == .string("morning") }
            } ?? false
            let digest = taken ? name : "morning"
            try text.addElement("{ name: \(JSONText.quote(digest)), at: \(JSONText.quote(at)), channels: [\(JSONText.quote(name))], "
                                + "format: \(JSONText.quote(name == "mail" || arguments.value("--smtp") != nil ? "html" : "text")) }",
                                in: ["digests"])
        }
    }

    /// `~/.config/datebook/x` for a path under HOME, the path itself otherwise.
    static func homeRelative(_ path: String, _ environment: [String: String]) -> String {
        let home = XDGPaths.home(environment)
        return path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }

    /// Where a channel's values come from: its option (`-` reads a line of stdin), else a prompt on
    /// a terminal (secrets without echo), else a usage error naming the option.
    struct Answers {
        let arguments: ParsedArguments
        let interactive: Bool
        let err: OutputSink

        func value(for need: Need, type: String) throws -> String? {
            let given = arguments.value(need.option)
            if let given, given != "-" { return given }
            // `-`: asked for on a terminal (without echo for a secret), else a line of stdin.
            if given == "-", !interactive { return readLine(strippingNewline: true).map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            guard interactive else {
                if need.optional { return nil }
                if let fallback = need.fallback { return fallback }
                let article = type.first.map { "aeiou".contains($0) } == true ? "an" : "a"
                throw UsageError(message: "\(article) \(type) channel needs \(need.option) (\(need.prompt)"
                                 + (need.secret ? "; - reads it from stdin" : "") + ")", command: "config")
            }
            let prompt = need.prompt + (need.fallback.map { " [\($0)]" } ?? "") + ": "
            let answer = (need.secret ? readHidden(prompt) : ask(prompt))?.trimmingCharacters(in: .whitespaces) ?? ""
            if answer.isEmpty, let fallback = need.fallback { return fallback }
            if answer.isEmpty, !need.optional { throw CLIError.usage("no \(need.prompt) given; nothing was changed") }
            return answer
        }

        private func ask(_ prompt: String) -> String? {
            err.write(prompt)
            err.flush()
            return readLine(strippingNewline: true)
        }

        /// A line from the terminal with echo off: off before the prompt shows, so nothing typed
        /// after it is echoed; restored after the line (or at once when stdin is no terminal).
        private func readHidden(_ prompt: String) -> String? {
            var saved = termios()
            guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return ask(prompt) }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
            defer {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                err.write("\n")
                err.flush()
            }
            return ask(prompt)
        }
    }
}
