import DatebookStore
import DatebookTemplates
import Foundation

/// `datebook __complete -- WORDS…`: what the completion scripts ask on each Tab. Prints `words`
/// then one candidate a line, or `files` when the shell should complete file names itself.
/// Never fails loudly: a store or config it cannot read offers nothing from it.
struct CompleteCommand: Command {
    static let spec = CommandSpec(
        name: "__complete", summary: "(internal) the candidates for the last word of a command line, for shell completion",
        usage: "-- WORDS…", positionals: 0...Int.max,
        examples: ["datebook __complete -- show Pag"],
        details: "WORDS are the words after 'datebook'; the last is the one being completed (may be empty).",
        hidden: true
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals.isEmpty ? [""] : arguments.positionals
        let engine = CompletionEngine(commands: Datebook.commands.map { $0.spec })
        let place = engine.place(words)
        if place.optionNames == nil, place.values == .files {
            context.out.write("files\n")
            return ExitCode.ok
        }
        let candidates = engine.candidates(words) { values, prefix in
            (try? lookup(values, prefix: prefix, context: scoped(context, globals: place.globals))) ?? []
        }
        context.out.write("words\n" + candidates.map { $0 + "\n" }.joined())
        return ExitCode.ok
    }

    /// The context for the store and config the command line names with `--store`/`--config`.
    static func scoped(_ context: Context, globals: [String: String]) throws -> Context {
        guard !globals.isEmpty else { return context }
        var parsed = ParsedArguments()
        for (name, value) in globals { parsed.values[name] = [value] }
        return try Context.make(parsed, spec: spec, environment: context.environment, stdoutIsTerminal: false, out: context.out, err: StringSink())
    }

    static func lookup(_ values: CompletionValues, prefix: String, context: Context) throws -> [String] {
        switch values {
        case .events:
            let names = try StoreOpener.open(context.storePath, readOnly: true).eventNames(prefix: prefix)
            let lowered = prefix.lowercased()
            var seen = Set<String>()
            return (names.map(\.title).filter { $0.hasPrefix(prefix) } + names.map(\.shortID).filter { !prefix.isEmpty && $0.hasPrefix(lowered) })
                .filter { seen.insert($0).inserted }
        case .channels: return context.config.channels.map(\.name).filter { $0.hasPrefix(prefix) }
        case .feeds: return try StoreOpener.open(context.storePath, readOnly: true).feeds().map(\.name).filter { $0.hasPrefix(prefix) }
        case .zones: return TimeZone.knownTimeZoneIdentifiers.filter { $0.hasPrefix(prefix) }.sorted()
        case .locales: return Locale.availableIdentifiers.filter { $0.hasPrefix(prefix) }.sorted()
        case .templates: return BuiltInTemplates.all.map(\.name).filter { $0.hasPrefix(prefix) }
        case .words, .commands, .files, .none: return []
        }
    }
}
