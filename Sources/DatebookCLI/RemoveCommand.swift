import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook rm EVENT`
enum RemoveCommand: Command {
    static let spec = CommandSpec(name: "rm", aliases: ["remove", "delete"], summary: "remove an event and its tasks, or one occurrence of a recurring event",
                                  usage: "EVENT [--occurrence WHEN]", options: [OccurrenceOptions.spec], positionals: 1...1,
                                  examples: ["datebook rm 'Game Night'", "datebook rm Standup --occurrence 2026-12-24"])

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(extendingHorizon: false)
        let event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        try FeedCommand.refuseChange(of: event, verb: "remove", in: store)
        if let when = arguments.value("--occurrence") {
            context.out.write(try OccurrenceOptions.cancel(event, when, in: store, context))
            return ExitCode.ok
        }
        try EventChanges.delete(event, in: store)
        context.out.write("removed " + event.shortID + "  " + TextWidth.clean(event.title) + "\n")
        return ExitCode.ok
    }
}
