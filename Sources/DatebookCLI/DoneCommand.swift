import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook done EVENT`: every open task of the event done (what the notification's Done button does).
enum DoneCommand: Command {
    static let spec = CommandSpec(
        name: "done", summary: "mark every open task of an event done",
        usage: "EVENT", positionals: 1...1,
        examples: ["datebook done Dentist"],
        details: "With alerts.cancelWhenDone, the event's pending alerts are then cancelled by the next pass."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let store = try context.openStore(extendingHorizon: false)
        let event = try EventResolver.resolve(arguments.positionals[0], in: store, context: context)
        let name = event.shortID + " " + TextWidth.clean(event.title)
        guard let done = Snooze.completingTasks(of: event) else {
            context.out.write("nothing to do: " + name + " has no open tasks\n")
            return ExitCode.ok
        }
        try store.save(done)
        let count = event.tasks.filter { $0.status.isOpen }.count
        context.out.write((count == 1 ? "1 task" : "\(count) tasks") + " done ✓ " + name + "\n")
        return ExitCode.ok
    }
}
