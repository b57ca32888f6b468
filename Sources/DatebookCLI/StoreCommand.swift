import DatebookCore
import DatebookStore
import Foundation

/// `datebook store copy FROM TO`: a whole store into an empty one, SQLite or PostgreSQL either way;
/// `store backup FILE` and `store restore FILE`: a SQLite store, safely while `run` uses it.
enum StoreCommand: Command {
    static let actions = ["copy", "backup", "restore"]

    static let spec = CommandSpec(
        name: "store", summary: "copy, back up or restore a whole store",
        usage: "copy FROM TO | backup FILE | restore FILE",
        positionals: 1...3,
        examples: ["datebook store copy ~/.local/share/datebook/datebook.sqlite3 postgresql://me@db.example.org/datebook",
                   "datebook store copy postgresql://me@localhost/datebook ~/backup.sqlite3",
                   "datebook store backup ~/datebook-backup.sqlite3", "datebook store restore ~/datebook-backup.sqlite3"],
        details: """
        FROM and TO are each a SQLite file or a postgresql:// URL. The events with their tasks, the
        feeds and the events' iCalendar sources, the delivery ledger and the last pass, the
        action-link key and the links used are copied in one transaction on TO, then each table's
        rows are counted on both sides; a difference rolls the copy back (exit 65). TO must be
        empty (a new file, or a database or ?schema=NAME without datebook's rows); a TO with rows
        is refused before anything is written (exit 65). CalDAV accounts are not copied: add them
        again with 'datebook caldav add' against TO. Passwords in URLs are printed as ****.
        backup FILE: a consistent copy of the SQLite store (--store) into the new file FILE, through
        SQLite's online backup API, safe while 'datebook run' writes (never cp the store: a copy taken
        mid-write is damaged). A PostgreSQL store is backed up with 'store copy URL FILE'.
        restore FILE: checks FILE (a datebook store, not from a newer datebook, integrity ok) and
        replaces the store's whole content with it in one transaction (exit 65 when FILE is refused,
        the store untouched). A running 'datebook run' keeps its file and sees the restored content
        at once. Never mv or cp a backup over the store while 'run' is up.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals
        let action = try Subcommands.action(words, command: "store", counts: [("copy", 3...3), ("backup", 2...2), ("restore", 2...2)],
                                            usage: spec.usage)
        switch action {
        case "backup", "restore":
            guard let store = try StoreOpener.openFile(context.storePath) else {
                throw CLIError.usage("store \(action) works on a SQLite store; for PostgreSQL use "
                                     + "'datebook store copy URL FILE' (and back with 'store copy FILE URL' into an empty schema)")
            }
            store.recurrenceHorizon = Store.standardHorizon(now: context.now)
            let file = XDGPaths.expand(words[1], context.environment)
            if action == "backup" {
                try store.backup(to: file)
                context.out.write("backed up \(store.path) to \(file)\n")
            } else {
                do {
                    try store.restore(from: file)
                } catch StoreError.notADatabase {
                    throw CLIError.data("store restore: \(file) is not a datebook store (not SQLite); the store \(store.path) was left as it was")
                }
                context.out.write("restored \(store.path) from \(file)\n")
            }
            return ExitCode.ok
        default:
            return try copy(from: location(words[1], context), to: location(words[2], context), context)
        }
    }

    /// A URL as given; a path with `~` expanded.
    static func location(_ text: String, _ context: Context) -> String {
        SQLDialect.of(location: text).hasFile ? XDGPaths.expand(text, context.environment) : text
    }

    static func copy(from: String, to: String, _ context: Context) throws -> Int32 {
        let (fromName, toName) = (StoreLocation.redacted(from), StoreLocation.redacted(to))
        guard from != to else { throw CLIError.usage("store copy: FROM and TO are the same store (\(fromName))") }
        let counts = try StoreCopy(from: from, to: to, now: context.now).run()
        context.out.write("copied \(fromName) to \(toName)\n")
        let width = counts.map(\.table.count).max() ?? 0
        for count in counts {
            context.out.write(count.table.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.rows)\n")
        }
        return ExitCode.ok
    }
}
