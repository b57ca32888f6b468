import DatebookCore

/// One option a command accepts.
struct OptionSpec: Sendable {
    enum Kind: Sendable { case flag, value(String) }
    var name: String
    var short: Character?
    var kind: Kind
    var repeatable = false
    var help: String

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .flag, help: help)
    }

    static func value(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .value(valueName), repeatable: repeatable, help: help)
    }

    var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }
}

/// What a command looks like on the command line; drives parsing, `--help` and suggestions.
struct CommandSpec: Sendable {
    var name: String
    var aliases: [String] = []
    var summary: String
    /// Synopsis after the command name, e.g. `TITLE --at WHEN [--task TEXT]…`.
    var usage: String
    var options: [OptionSpec] = []
    /// Accepted count of positional arguments.
    var positionals: ClosedRange<Int> = 0...0
    var examples: [String] = []
    var details: String = ""
    /// Left out of `datebook help` (internal commands datebook runs itself).
    var hidden = false
    /// Reports a config that does not load and an unknown time zone itself (`doctor`) instead
    /// of failing on them before it runs.
    var reportsSetupProblems = false
    /// Reads only (`list`, `status`): a config that does not load is a warning on stderr, and the
    /// command runs without it (system zone, default store) instead of failing.
    var toleratesBrokenConfig = false
}

/// Options every command accepts.
enum GlobalOptions {
    static let specs: [OptionSpec] = [
        .value("--store", "PATH", "the SQLite store (env DATEBOOK_STORE)"),
        .value("--config", "PATH", "the config file (env DATEBOOK_CONFIG)"),
        .value("--now", "WHEN", "pretend the time is WHEN (reproducible output)"),
        .value("--tz", "ZONE", "the time zone, an IANA name (default: the system zone)"),
        .value("--color", "WHEN", "colour output: auto, always or never (NO_COLOR is respected)"),
        .flag("--help", short: "h", "show help"),
    ]
}

/// The result of parsing one command's arguments.
struct ParsedArguments: Sendable {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
}

/// A usage mistake: message, then a pointer to `--help`; exit 64.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String?
    var description: String { message }
}

enum ArgumentParser {
    /// Parses `arguments` against `spec` plus the global options. `--` ends option parsing.
    static func parse(_ arguments: [String], spec: CommandSpec) throws -> ParsedArguments {
        let options = spec.options + GlobalOptions.specs
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || word == "-" || isNegativeNumberOrRelative(word) {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inline = String(word[word.index(after: eq)...])
            }
            let option: OptionSpec?
            if name.hasPrefix("--") {
                option = options.first { $0.name == name }
            } else if name.count == 2, let letter = name.last {
                option = options.first { $0.short == letter }
            } else {
                option = nil
            }
            guard let option else {
                let hint = Suggestion.hint(for: name, in: options.map(\.name))
                throw UsageError(message: "unknown option '\(name)' for '\(spec.name)'\(hint)", command: spec.name)
            }
            switch option.kind {
            case .flag:
                guard inline == nil else { throw UsageError(message: "option '\(option.name)' takes no value", command: spec.name) }
                parsed.flags.insert(option.name)
            case .value(let valueName):
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.count else {
                        throw UsageError(message: "option '\(option.name)' needs a value (\(valueName))", command: spec.name)
                    }
                    value = arguments[index]
                    index += 1
                }
                if !option.repeatable, parsed.values[option.name] != nil, !GlobalOptions.specs.contains(where: { $0.name == option.name }) {
                    throw UsageError(message: "option '\(option.name)' given twice", command: spec.name)
                }
                parsed.values[option.name, default: []].append(value)
            }
        }
        if parsed.flags.contains("--help") { return parsed }
        let count = parsed.positionals.count
        if count < spec.positionals.lowerBound {
            throw UsageError(message: "'\(spec.name)' needs more arguments: datebook \(spec.name) \(spec.usage)", command: spec.name)
        }
        if count > spec.positionals.upperBound {
            let extra = parsed.positionals[spec.positionals.upperBound]
            throw UsageError(message: "unexpected argument '\(extra)' for '\(spec.name)' (quote a title with spaces)", command: spec.name)
        }
        return parsed
    }

    /// `-3` or `-1d` are values, not options (no command has digit options).
    static func isNegativeNumberOrRelative(_ word: String) -> Bool {
        word.count > 1 && word.dropFirst().first?.isNumber == true
    }

    static func help(for spec: CommandSpec) -> String {
        var out = "Usage: datebook \(spec.name)" + (spec.usage.isEmpty ? "" : " " + spec.usage) + "\n\n\(spec.summary)\n"
        if !spec.aliases.isEmpty { out += "Also: " + spec.aliases.joined(separator: ", ") + "\n" }
        if !spec.details.isEmpty { out += "\n" + spec.details + "\n" }
        func describe(_ options: [OptionSpec]) -> String {
            Columns.aligned(options.map { option in
                var left = option.short.map { "-\($0), " } ?? "    "
                left += option.name
                if case .value(let valueName) = option.kind { left += " " + valueName }
                if option.repeatable { left += "…" }
                return (left, option.help)
            })
        }
        if !spec.options.isEmpty { out += "\nOptions:\n" + describe(spec.options) }
        out += "\nGlobal options:\n" + describe(GlobalOptions.specs)
        if !spec.examples.isEmpty { out += "\nExamples:\n" + spec.examples.map { "  " + $0 }.joined(separator: "\n") + "\n" }
        return out
    }
}
