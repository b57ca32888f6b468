import DatebookCore
import DatebookDaemon
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook tick [--dry-run]`: one scheduler pass, for cron or a systemd timer.
enum TickCommand: Command {
    static let spec = CommandSpec(
        name: "tick", summary: "deliver every alert and digest that is due (for cron or a timer)", usage: "[--dry-run]",
        options: [.flag("--dry-run", "print what would be sent (secrets redacted) and change nothing")],
        examples: ["datebook tick", "datebook tick --dry-run"],
        details: """
        Plans everything due since the last pass (bounded by alerts.lateness), retries pending deliveries
        whose time has come, and records every outcome in the ledger. One line per delivery on stderr.
        With --now (or DATEBOOK_NOW), tick runs only on a store named with --store (or DATEBOOK_STORE):
        a pass at a pretended time would otherwise write that time into the real store's ledger.
        Exit status: 0 when everything is settled, 75 when retries remain (run tick again later), 69 when
        a delivery was given up after retrying until alerts.lateness.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        // A pass at a pretended time records it as the last pass: later passes at the real time
        // would take the gap for a clock that went back. Only in a store named for it.
        guard !context.nowIsPinned || context.storeIsNamed || arguments.has("--dry-run") else {
            throw CLIError.usage("tick --now would record deliveries at a pretended time in your store (\(StoreLocation.redacted(context.storePath))); "
                                 + "name a store for it with --store PATH, or use tick --dry-run to see what would be sent")
        }
        let store = try context.openStore()
        let scheduler = SchedulerFactory.make(context, store: store, log: SchedulerFactory.logger(context))
        guard !arguments.has("--dry-run") else {
            let items = try scheduler.dryRun(now: context.now)
            if items.isEmpty {
                context.out.write("Nothing due at \(ISOInstant.format(context.now, in: context.timeZone)).\n"
                                  + (context.config.channels.isEmpty ? ChannelsCommand.noChannels(context) : ""))
            }
            for item in items {
                context.out.write("== \(item.summary) to \(item.entry.channel), due \(ISOInstant.format(item.entry.dueAt, in: context.timeZone)): ")
                switch item.prepared {
                case .ready(_, let step)?: context.out.write("would send\n" + step.dryRun + "\n")
                case .unavailable(_, let reason)?: context.out.write("would fail: \(reason)\n")
                case .obsolete(let reason)?: context.out.write("would cancel: \(reason)\n")
                case nil: context.out.write("would record \(item.entry.state.rawValue): \(item.entry.reason ?? "")\n")
                }
            }
            return ExitCode.ok
        }
        FeedSync.refreshDue(store: store, config: context.config, environment: context.environment,
                            timeZone: context.timeZone, now: context.now, describe: { ErrorTranslator.translate($0).message },
                            log: SchedulerFactory.logger(context))
        CalDAVScheduling.syncDue(store: store, config: context.config, environment: context.environment,
                                 timeZone: context.timeZone, now: context.now, accounts: CommandLineAccounts(),
                                 log: SchedulerFactory.logger(context))
        let report = try scheduler.tick(now: context.now)
        if report.gaveUp > 0 { return ExitCode.unavailable }
        return report.retriesRemaining > 0 ? ExitCode.temporaryFailure : ExitCode.ok
    }
}
