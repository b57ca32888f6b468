import DatebookCore
import DatebookDelivery
import DatebookInterchange
import DatebookStore
import Foundation

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
        let path = arguments.positionals[0]
        // A file that is not there is EX_NOINPUT (66), as sysexits.h means it; bad content stays 65.
        if path != "-", !FileManager.default.fileExists(atPath: path) {
            throw CLIError(message: "\(path): no such file; check the path", code: ExitCode.noInput)
        }
        let file = try ImportFile(path: path)
        guard file.looksLikeJSON else { return try importICS(file, context) }
        let name = file.name
        if let line = file.firstLineNotUTF8 {
            context.err.write("datebook: warning: \(name):\(line): the line has bytes that are not UTF-8 (is the file Latin-1?); "
                              + "each was read as U+FFFD; save the file as UTF-8 and import it again\n")
        }
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
        let imported = Set(events.map(\.id))
        for limit in try store.truncatedRecurrences() where imported.contains(limit.eventID) {
            context.err.write("datebook: warning: \(name): event \(limit.eventID) \"\(limit.title)\": "
                              + limit.message { Rows.when($0, context) } + "\n")
        }
        context.out.write("imported \(events.count) event\(events.count == 1 ? "" : "s") from \(name)\n")
        return ExitCode.ok
    }
}
