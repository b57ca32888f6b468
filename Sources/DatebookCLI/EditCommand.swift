import DatebookCore
import Foundation

/// `datebook edit EVENT [options of add] [--title TEXT]`
enum EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit", summary: "change an event", usage: "EVENT [--title TEXT] [options of add]",
        options: [.value("--title", "TEXT", "new title"), .flag("--clear-end", "remove the end time"),
                  .flag("--clear-alerts", "remove the event's own alert lead times")] + EventOptions.specs,
        positionals: 1...1,
        examples: ["datebook edit Pagliacci --at 'tomorrow 20:00'", "datebook edit 1a2b --event-color green --task 'Buy flowers'"]
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(extendingHorizon: false)
        var event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        try FeedCommand.refuseChange(of: event, verb: "edit", in: store, arguments: arguments)
        if let title = arguments.value("--title") {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("--title is empty") }
            event.title = title
        }
        if arguments.has("--clear-end") { event.end = nil }
        if arguments.has("--clear-alerts") { event.alerts = [] }
        try EventOptions.apply(arguments, to: &event, context, newTaskID: EventTask.newID)
        try EventOptions.validate(event, title: "--title")
        try store.save(event)
        context.out.write("updated " + Rows.row(Occurrence(event: event, calendar: context.calendar), context).dropFirst(2))
        return ExitCode.ok
    }
}
