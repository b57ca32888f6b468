import DatebookCore

/// What the commands with actions over named things (`feed`, `caldav`) check alike: the action
/// word and its argument count, the name, and an `--every` interval.
enum Subcommands {
    /// The action (default `list`), after checking it is one of `counts`' keys and has as many
    /// words (the action included) as its range allows.
    static func action(_ words: [String], command: String, counts: [(String, ClosedRange<Int>)], usage: String) throws -> String {
        let actions = counts.map(\.0)
        let action = words.first ?? "list"
        guard let expected = counts.first(where: { $0.0 == action })?.1 else {
            throw UsageError(message: "unknown \(command) action '\(action)'" + Suggestion.hint(for: action, in: actions)
                             + "; expected " + JSONReader.orList(actions), command: command)
        }
        guard expected.contains(words.count) else {
            throw UsageError(message: "'\(command) \(action)' takes \(expected.lowerBound - (action == "list" ? 0 : 1))"
                             + (expected.count > 1 ? " or \(expected.upperBound - 1)" : "")
                             + " argument(s): datebook \(command) \(usage)", command: command)
        }
        return action
    }

    /// Throws unless `name` is letters, digits, `-`, `_` and `.` only.
    static func checkName(_ name: String, what: String) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw CLIError.usage("\(what) name '\(name)' may only contain letters, digits, '-', '_' and '.'")
        }
    }

    /// `--every` in seconds (at least a minute), or `seconds` without it.
    static func every(_ arguments: ParsedArguments, default seconds: Int) throws -> Int {
        guard let text = arguments.value("--every") else { return seconds }
        guard let lead = LeadTime(duration: text), lead.days * 86_400 + lead.seconds >= 60 else {
            throw CLIError.usage("--every expects a duration of at least 1m like 30m, 1h or 1d, got '\(text)'")
        }
        return lead.days * 86_400 + lead.seconds
    }

    /// `--timeout DURATION` in seconds (at least 1s, at most a day); nil when not given.
    static func timeout(_ arguments: ParsedArguments) throws -> Int? {
        guard let text = arguments.value("--timeout") else { return nil }
        guard let lead = LeadTime(duration: text), case let seconds = lead.days * 86_400 + lead.seconds, (1...86_400).contains(seconds) else {
            throw CLIError.usage("--timeout expects a duration from 1s to 1d like 30s, 2m or 5m, got '\(text)'")
        }
        return seconds
    }
}
