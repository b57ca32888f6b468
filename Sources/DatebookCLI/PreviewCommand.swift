import DatebookCore
import DatebookScheduler
import Foundation

/// `datebook preview [--days N]`: what will be sent in the next N days, with the text of each; sends nothing.
enum PreviewCommand: Command {
    static let spec = CommandSpec(
        name: "preview", summary: "show every alert and digest of the next days with its text, sending nothing",
        usage: "[--days N]",
        options: [.value("--days", "N", "how many days ahead (default 1)")],
        examples: ["datebook preview", "datebook preview --days 7"]
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let days = try StatusCommand.number(arguments.value("--days"), option: "--days", default: 1)
        let store = try context.openStore()
        let scheduler = SchedulerFactory.make(context, store: store)
        let until = context.calendar.date(byAdding: .day, value: days, to: context.now) ?? context.now
        let items = try scheduler.upcoming(now: context.now, until: until, render: true)
        if items.isEmpty {
            context.out.write("Nothing to send in the next \(days) day\(days == 1 ? "" : "s").\n"
                              + (context.config.channels.isEmpty ? ChannelsCommand.noChannels(context) : ""))
        }
        for item in items {
            context.out.write(LocalTime(item.entry.nextAttemptAt, in: context.timeZone).listFormat + "  "
                              + item.summary + " to " + item.entry.channel + "\n")
            if let outcome = item.outcome { context.out.write("  (\(outcome))\n") }
            if let message = item.prepared?.message {
                let body = message.kind == .alert ? message.displayTitle + "\n" + message.text : message.text
                for line in body.split(separator: "\n", omittingEmptySubsequences: false) { context.out.write("    " + line + "\n") }
            }
            context.out.write("\n")
        }
        return ExitCode.ok
    }
}
