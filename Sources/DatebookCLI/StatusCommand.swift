import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook status`: the next deliveries, and every delivery of the last days that did not end `sent`.
enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status", summary: "show the next deliveries and recent ones that were not sent",
        usage: "[--days N] [--limit N]",
        options: [.value("--days", "N", "look back N days for unsent deliveries (default 7)"),
                  .value("--limit", "N", "show at most N upcoming deliveries (default 20)")],
        examples: ["datebook status", "datebook status --days 30"],
        details: """
        Upcoming: pending retries, quiet-hours deferrals and everything scheduled in the next 7 days.
        Recent: every delivery that ended sent-late, skipped, cancelled or failed, with its reason.
        Schedulers: every 'datebook run' seen in the last 2 minutes (host:pid, since, last seen; each
        refreshes its entry every 30 s and removes it when it stops), then the deliveries sent in the
        same days with the scheduler (host:pid) that sent each, newest first, at most --limit.
        Exit status: 0, or 1 when a delivery failed in that time (so a monitor can alert on it).
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let days = try number(arguments.value("--days"), option: "--days", default: 7)
        let limit = try number(arguments.value("--limit"), option: "--limit", default: 20)
        let store = try context.openStore(readOnly: true)
        let scheduler = SchedulerFactory.make(context, store: store)
        let week = context.calendar.date(byAdding: .day, value: 7, to: context.now) ?? context.now.addingTimeInterval(7 * 86_400)
        let upcoming = try scheduler.upcoming(now: context.now, until: week, render: false)
        var out = "Next deliveries:\n"
        if upcoming.isEmpty { out += "  (none in the next 7 days)\n" }
        for item in upcoming.prefix(limit) {
            var line = "  " + LocalTime(item.entry.nextAttemptAt, in: context.timeZone).listFormat + "  "
                + item.summary + " to " + item.entry.channel
            if item.entry.state == .sending { line += " (sending)" }
            if let outcome = item.outcome { line += " (\(outcome))" }
            if item.entry.attempts > 0, item.entry.state == .pending { line += " (retry after \(item.entry.attempts) attempts: \(item.entry.reason ?? ""))" }
            out += line + "\n"
        }
        if upcoming.count > limit { out += "  … and \(upcoming.count - limit) more\n" }
        let since = context.calendar.date(byAdding: .day, value: -days, to: context.now) ?? context.now
        let recent = try store.settledDeliveries(since: since, excluding: [.sent])
        out += "\nNot sent on time in the last \(days) days (late, skipped, cancelled or failed):\n"
        if recent.isEmpty { out += "  (nothing: every delivery was sent on time)\n" }
        for entry in recent {
            out += "  " + LocalTime(entry.updatedAt, in: context.timeZone).listFormat + "  " + entry.state.rawValue + "  "
                + scheduler.describe(entry) + " to " + entry.channel + (entry.reason.map { ": " + $0 } ?? "") + "\n"
        }
        let limits = try store.recurrenceLimits()
        if !limits.isEmpty {
            out += "\nRecurring events whose occurrences are cut short (not all are alerted):\n"
            for limit in limits {
                out += "  " + TextWidth.clean(limit.title) + " (" + limit.eventID.prefix(8) + "): "
                    + limit.message { Rows.when($0, context) } + "\n"
            }
        }
        out += try schedulerSections(scheduler, since: since, days: days, limit: limit, context)
        context.out.write(out)
        return recent.contains { $0.state == .failed } ? 1 : ExitCode.ok
    }

    static func number(_ text: String?, option: String, default value: Int) throws -> Int {
        guard let text else { return value }
        guard let n = Int(text), n > 0, n <= 3660 else {
            throw CLIError.usage("\(option) expects a whole number of days from 1 to 3660, got '\(text)'")
        }
        return n
    }
}
