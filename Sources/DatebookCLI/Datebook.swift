import DatebookCore
import Foundation

/// A subcommand: its spec (parsing, help) and what it does. One file per command.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32
}

/// The CLI's entry point: parses, dispatches, and is the only place that chooses exit codes.
public enum Datebook {
    public static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, RemoveCommand.self,
        TaskCommand.self, TasksCommand.self, DoneCommand.self, SnoozeCommand.self, AwaitNotificationCommand.self, CalCommand.self, DemoCommand.self,
        ImportCommand.self, ExportCommand.self, FeedCommand.self, CalDAVCommand.self, StoreCommand.self,
        DigestCommand.self, TemplatesCommand.self, SendCommand.self, ChannelsCommand.self, ConfigCommand.self,
        TickCommand.self, RunCommand.self, ServeCommand.self, StatusCommand.self, PreviewCommand.self, DoctorCommand.self,
        CompletionsCommand.self, CompleteCommand.self, ManCommand.self,
    ]

    /// `datebook help [COMMAND]`: answered by the dispatcher itself, so it is not in `commands`.
    static let helpSpec = CommandSpec(
        name: "help", summary: "show help for a command", usage: "[COMMAND]", positionals: 0...1,
        examples: ["datebook help", "datebook help add", "datebook add --help"]
    )

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name || $0.spec.aliases.contains(name) }
    }

    /// Runs one invocation. `arguments` excludes the program name.
    public static func main(arguments: [String], environment: [String: String], stdoutIsTerminal: Bool,
                            out: OutputSink, err: OutputSink) -> Int32 {
        defer {
            out.flush()
            err.flush()
        }
        do {
            return try dispatch(arguments, environment: environment, stdoutIsTerminal: stdoutIsTerminal, out: out, err: err)
        } catch {
            let (message, code, named) = ErrorTranslator.translate(error)
            let command = named ?? commandWord(in: arguments).flatMap { Self.command(named: $0.1)?.spec.name }
            err.write("datebook: " + message + "\n")
            if code == ExitCode.usage {
                err.write("Run 'datebook \(command.map { $0 + " " } ?? "")--help' for usage.\n")
            }
            return code
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], stdoutIsTerminal: Bool,
                         out: OutputSink, err: OutputSink) throws -> Int32 {
        guard let (position, name) = commandWord(in: arguments) else {
            if arguments.contains("--version") || arguments.contains("-V") {
                out.write("datebook \(version)\n")
                return ExitCode.ok
            }
            if let unknown = arguments.first(where: { $0.hasPrefix("-") && $0 != "--help" && $0 != "-h" }),
               !GlobalOptions.specs.contains(where: { $0.name == unknown.split(separator: "=").first.map(String.init) }) {
                let names = GlobalOptions.specs.map(\.name) + ["--version"]
                throw UsageError(message: "unknown option '\(unknown)'" + Suggestion.hint(for: unknown, in: names), command: nil)
            }
            out.write(topLevelHelp())
            return ExitCode.ok
        }
        var rest = arguments
        rest.remove(at: position)
        if name == "help" {
            let parsed = try ArgumentParser.parse(rest, spec: helpSpec)
            if parsed.flags.contains("--help") {
                out.write(ArgumentParser.help(for: helpSpec))
                return ExitCode.ok
            }
            guard let topic = parsed.positionals.first else { out.write(topLevelHelp()); return ExitCode.ok }
            guard let command = command(named: topic) else { throw unknownCommand(topic) }
            out.write(ArgumentParser.help(for: command.spec))
            return ExitCode.ok
        }
        guard let command = command(named: name) else { throw unknownCommand(name) }
        let parsed = try ArgumentParser.parse(rest, spec: command.spec)
        if parsed.flags.contains("--help") {
            out.write(ArgumentParser.help(for: command.spec))
            return ExitCode.ok
        }
        let context = try Context.make(parsed, spec: command.spec, environment: environment, stdoutIsTerminal: stdoutIsTerminal, out: out, err: err)
        return try command.run(parsed, context)
    }

    /// The first word that is not a global option or its value.
    static func commandWord(in arguments: [String]) -> (Int, String)? {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return index + 1 < arguments.count ? (index + 1, arguments[index + 1]) : nil }
            if !word.hasPrefix("-") { return (index, word) }
            if let option = GlobalOptions.specs.first(where: { $0.name == word }), option.takesValue { index += 1 }
            index += 1
        }
        return nil
    }

    static func unknownCommand(_ name: String) -> UsageError {
        let names = commands.flatMap { [$0.spec.name] + $0.spec.aliases } + ["help"]
        return UsageError(message: "unknown command '\(name)'" + Suggestion.hint(for: name, in: names), command: nil)
    }

    static func topLevelHelp() -> String {
        var out = """
        datebook \(version) — a planner of events with checklists that tells you what is coming.

        Usage: datebook [global options] COMMAND [arguments]

        Commands:

        """
        let listed = commands.filter { !$0.spec.hidden }.map { ($0.spec.name, $0.spec.summary) }
        out += Columns.aligned(listed + [("help", "show help for a command")]) + "\nGlobal options:\n"
        let options = GlobalOptions.specs.map { option -> (String, String) in
            var left = option.name
            if case .value(let v) = option.kind { left += " " + v }
            return (left, option.help)
        }
        out += Columns.aligned(options + [("--version", "print the version")])
        out += "\nRun 'datebook COMMAND --help' for a command's options.\n"
        return out
    }
}
