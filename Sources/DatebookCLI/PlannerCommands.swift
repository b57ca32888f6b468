import DatebookCore
import DatebookStore
import Foundation

/// `datebook demo`: loads the sample planner and prints the agenda.
enum DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo", summary: "put the sample planner into the store and show the agenda", usage: "",
        examples: ["datebook demo", "datebook --store /tmp/demo.sqlite3 demo"],
        details: "Relative times count from now rounded up to the next whole hour. Running it again\nreplaces the sample events instead of duplicating them."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore()
        let events = SamplePlanner.events(now: context.now, calendar: context.calendar)
        try store.save(events)
        context.err.write("datebook: sample planner (\(events.count) events) saved to \(StoreLocation.redacted(context.storePath))\n")
        try ListCommand.printAgenda(store: store, periods: Period.allCases, context)
        return ExitCode.ok
    }
}

/// `datebook import FILE.json|-`: adds or updates events by id, all or nothing.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", summary: "import a planner JSON document or an iCalendar (.ics) file", usage: "FILE.json|FILE.ics|-",
        positionals: 1...1,
        examples: ["datebook import planner.json", "datebook import calendar.ics", "datebook export | ssh host datebook import -"],
        details: """
        The format is detected from the content. JSON: events are matched by id, all or nothing; the
        first problem is reported with file, line and field. iCalendar: events are matched by UID, so
        importing again updates them; a broken component is skipped with a warning naming file, line
        and UID, and the rest is imported. VTODOs become tasks, VALARMs alert lead times.
        Events are held to the limits of 'add' (titles and task texts up to 1,000 bytes, notes up
        to 100,000, years 1–3000, …): JSON that breaks one is refused; an iCalendar file is
        repaired (a long text cut, a bad end or rule dropped) or the event skipped, with a warning.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let file = try ImportFile(path: arguments.positionals[0])
        guard file.looksLikeJSON else { return try ICSCommands.importICS(file, context) }
        let name = file.name
        let reading = ProgressBar.reading(name, bytes: file.count, context: context)
        defer { reading.finish() }
        let root: JSONNode
        do {
            root = try file.withBytes { try JSONParser.parse(Array($0)) }
        } catch let error as JSONSyntaxError {
            throw InputError(file: name, line: error.line, path: "", message: error.message + " (column \(error.column))")
        }
        var generator = SystemRandomNumberGenerator()
        let defaults = PlannerDocument.Defaults(
            timeZone: context.timeZone.identifier,
            newID: { EventID.random(using: &generator) },
            symbol: { Symbol.allCases.randomElement() ?? .star },
            color: { EventColor.allCases.randomElement() ?? .primary }
        )
        let events = try PlannerDocument.decode(root, file: name, defaults: defaults, validation: .planner)
        reading.finish()
        let store = try context.openStore()
        let progress = ProgressBar(total: events.count, context: context)
        try store.save(events) { progress.show($0) }
        progress.finish()
        context.out.write("imported \(events.count) event\(events.count == 1 ? "" : "s") from \(name)\n")
        return ExitCode.ok
    }
}

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
        let format = arguments.value("--format") ?? "json"
        guard format == "json" || format == "ics" else {
            throw CLIError.usage("unknown export format '\(format)'" + Suggestion.hint(for: format, in: ["json", "ics"])
                                 + "; expected json or ics")
        }
        let store = try context.openStore(readOnly: true)
        // Events come in start order, their tasks by id from all over the tasks table: with the
        // default 2 MB page cache a 100k-event planner (42 MB) read its pages 198k times over.
        try store.limitPageCache(kibibytes: 32_768)
        let file = try arguments.value("--output").map { try AtomicFile(XDGPaths.expand($0, context.environment)) }
        let progress = ProgressBar(total: try store.eventCount(), verb: "exporting", context: context)
        // Written as it is read, in pieces of about 64 kB: the planner is never held whole.
        let write: ([UInt8]) throws -> Void = { bytes in
            if let file { try file.write(bytes) } else { context.out.write(bytes: bytes) }
        }
        var document: any ExportDocument = format == "ics"
            ? ICSExport(zones: try store.timedEventZones(), uids: try store.sourceUIDs(), dtstamp: context.now)
            : JSONExport()
        var count = 0
        try store.forEachEvent { stored in
            guard let event = restorable(stored, context) else { return }
            document.add(event)
            count += 1
            if document.pending >= 1 << 16 { try write(document.take()) }
            if count % 1_000 == 0 { progress.show(count) }
        }
        document.end()
        try write(document.take())
        progress.finish()
        if let file, let output = arguments.value("--output") {
            try file.commit()
            context.err.write("datebook: exported \(count) event\(count == 1 ? "" : "s") to \(output)\n")
        }
        return ExitCode.ok
    }

    /// The event as `import` will take it back: a store written before the rules (or by hand) may
    /// hold events they refuse; each repair, or the event left out, is a warning.
    static func restorable(_ stored: Event, _ context: Context) -> Event? {
        var event = stored
        let repair = EventValidation.planner.repair(&event)
        let name = "event \(stored.shortID) '\(TextWidth.clean(String(stored.title.prefix(40))))'"
        for change in repair.changes { context.err.write("datebook: warning: \(name): \(change); exported so\n") }
        guard let refusal = repair.refusals.first else { return event }
        context.err.write("datebook: warning: \(name): \(refusal); left out (import would refuse it)\n")
        return nil
    }
}

/// An export format written event by event: `add` each, then `end`; `take` hands over the bytes
/// written so far (whenever `pending` has grown large).
protocol ExportDocument {
    mutating func add(_ event: Event)
    mutating func end()
    var pending: Int { get }
    mutating func take() -> [UInt8]
}

extension ICSExport: ExportDocument {}

/// The planner JSON document (`PlannerDocument.Writer`) as an `ExportDocument`.
struct JSONExport: ExportDocument {
    private var writer = PlannerDocument.Writer()
    private var text: String

    init() { text = writer.header }

    mutating func add(_ event: Event) { text += writer.text(of: event) }
    mutating func end() { text += writer.footer }
    var pending: Int { text.utf8.count }

    mutating func take() -> [UInt8] {
        defer { text = "" }
        return Array(text.utf8)
    }
}
