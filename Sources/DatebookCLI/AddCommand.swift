import DatebookCore
import Foundation

/// `datebook add TITLE --at WHEN …`
enum AddCommand: Command {
    static let spec = CommandSpec(
        name: "add", summary: "add an event", usage: "TITLE --at WHEN [options]",
        options: EventOptions.specs, positionals: 1...1,
        examples: ["datebook add 'Game Night' --at 'fri 19:00' --symbol gamecontroller.fill --task 'Bring snacks'",
                   "datebook add 'Christmas' --at 2026-12-25 --event-color red --alert 1w",
                   "datebook add --at WHEN -- \"-u critical\""],
        details: "A TITLE that starts with a dash goes after a final --, which ends the options: "
            + "add --at WHEN -- \"-u critical\"."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let title = arguments.positionals[0]
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("TITLE is empty") }
        guard arguments.value("--at") != nil else { throw UsageError(message: "'add' needs --at WHEN", command: "add") }
        var generator = SystemRandomNumberGenerator()
        var event = Event(
            id: EventID.random(using: &generator), title: title, start: .instant(context.now),
            timeZone: context.timeZone.identifier,
            symbol: Symbol.allCases.randomElement(using: &generator) ?? .star,
            color: EventColor.allCases.randomElement(using: &generator) ?? .primary
        )
        try EventOptions.apply(arguments, to: &event, context, newTaskID: EventTask.newID)
        try EventOptions.validate(event)
        let store = try context.openStore(extendingHorizon: false)
        try store.save(event)
        context.out.write("added " + Rows.row(Occurrence(event: event, calendar: context.calendar), context).dropFirst(2))
        return ExitCode.ok
    }
}
