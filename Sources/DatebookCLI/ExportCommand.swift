import DatebookCore
import DatebookDelivery
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook export [--format json] [-o FILE]`
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", summary: "export the whole planner as JSON or iCalendar", usage: "[--format json|ics] [-o FILE]",
        options: [.value("--format", "FORMAT", "json (default) or ics"),
                  .value("--output", "FILE", short: "o", "write to FILE atomically instead of stdout")],
        examples: ["datebook export -o planner.json", "datebook export --format ics -o planner.ics"],
        details: """
        Written as it is read, so a large planner needs little memory; with -o the file appears
        complete or not at all. iCalendar keeps symbol and colour (X-DATEBOOK-SYMBOL, COLOR), so
        either format imports back field for field. Progress shows on stderr when it is a terminal.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let name = arguments.value("--format") ?? "json"
        guard let format = ExportFormat(rawValue: name) else {
            throw CLIError.usage("unknown export format '\(name)'" + Suggestion.hint(for: name, in: ["json", "ics"])
                                 + "; expected json or ics")
        }
        let store = try context.openStore(readOnly: true)
        let file = try arguments.value("--output").map { try AtomicFile(XDGPaths.expand($0, context.environment)) }
        let progress = ProgressBar(total: try store.eventCount(), verb: "exporting", context: context)
        let count = try store.export(format, dtstamp: context.now, warn: { context.err.write("datebook: warning: " + $0 + "\n") },
                                     progress: progress.show) { bytes in
            if let file { try file.write(bytes) } else { context.out.write(bytes: bytes) }
        }
        progress.finish()
        if let file, let output = arguments.value("--output") {
            try file.commit()
            context.err.write("datebook: exported \(count) event\(count == 1 ? "" : "s") to \(output)\n")
        }
        return ExitCode.ok
    }
}
