import DatebookCore
import DatebookDelivery
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
