import DatebookCore
import DatebookDelivery
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
        Uncertain: deliveries whose whole message went out but whose server never answered (email
        DATA unanswered within 10 minutes): not sent again, check that they arrived.
        Clock jump: the last time a pass found the clock far ahead of (alerts.clockJump) or behind
        the last pass, in those days. Sent again: deliveries a pass at a wrong, later clock sent more than
        alerts.lateness before their due time, sent again at it once the clock was back (listed among the next
        deliveries until then).
        CalDAV accounts: each one's last sync and its 10 newest conflicts (what lost), as 'caldav status'.
        Retrying: each delivery whose last attempt failed and that is tried again, with its due time, the
        next attempt, the last error and when it is given up.
        Exit status: 0; 1 when a delivery failed in that time or an account's last CalDAV sync failed;
        else 75 while a delivery is retrying (so a monitor can alert on either).
        """,
        toleratesBrokenConfig: true
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
            if item.entry.attempts == 0, item.entry.reason?.hasPrefix(Scheduler.sentEarlyPrefix) == true {
                line += " (again: sent early by a pass at a wrong clock)"
            }
            if let outcome = item.outcome { line += " (\(outcome))" }
            if item.entry.attempts > 0, item.entry.state == .pending { line += " (retry after \(item.entry.attempts) attempts: \(item.entry.reason ?? ""))" }
            out += line + "\n"
        }
        if upcoming.count > limit { out += "  … and \(upcoming.count - limit) more\n" }
        let retrying = try store.openDeliveries().filter { $0.state == .pending && $0.attempts > 0 }
        if !retrying.isEmpty {
            out += "\nRetrying (an attempt failed; tried again until alerts.lateness after the first attempt):\n"
            for entry in retrying { out += "  " + retryLine(entry, scheduler, context) + "\n" }
        }
        let since = context.calendar.date(byAdding: .day, value: -days, to: context.now) ?? context.now
        let recent = try store.settledDeliveries(since: since, excluding: [.sent])
        out += "\nNot sent on time in the last \(days) days (late, skipped, cancelled or failed):\n"
        if recent.isEmpty {
            out += retrying.isEmpty ? "  (nothing: every delivery was sent on time)\n"
                : "  (nothing settled; \(retrying.count) \(retrying.count == 1 ? "delivery is" : "deliveries are") retrying, above)\n"
        }
        for entry in recent {
            out += "  " + LocalTime(entry.updatedAt, in: context.timeZone).listFormat + "  " + entry.state.rawValue + "  "
                + scheduler.describe(entry) + " to " + entry.channel + (entry.reason.map { ": " + $0 } ?? "") + "\n"
        }
        let uncertain = try store.settledDeliveries(since: since, excluding: [.sentLate, .skipped, .cancelled, .failed])
            .filter { $0.reason?.hasPrefix(Scheduler.uncertainPrefix) == true }
        if !uncertain.isEmpty {
            out += "\nUncertain (the whole message went out, the server never answered; not sent again):\n"
            for entry in uncertain {
                out += "  " + LocalTime(entry.updatedAt, in: context.timeZone).listFormat + "  " + scheduler.describe(entry)
                    + " to " + entry.channel + ": " + (entry.reason ?? "").dropFirst(Scheduler.uncertainPrefix.count) + "\n"
            }
        }
        let resent = try store.settledDeliveries(since: since, excluding: [.skipped, .cancelled, .failed])
            .filter { $0.reason?.hasPrefix(Scheduler.sentEarlyPrefix) == true }
        if !resent.isEmpty {
            out += "\nSent again at their due time (a pass at a wrong, later clock had sent them early):\n"
            for entry in resent {
                out += "  " + LocalTime(entry.updatedAt, in: context.timeZone).listFormat + "  " + scheduler.describe(entry)
                    + " to " + entry.channel + "\n"
            }
        }
        if let jump = try ClockJump.last(in: store), max(jump.from, jump.at) >= since {
            out += "\nClock jump:\n  " + clockJumpLine(jump, context) + "\n"
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
        var syncFailed = false
        if let store = store as? any CalDAVStore, case let accounts = try store.calDAVAccounts(), !accounts.isEmpty {
            let report = try CalDAVCommand.report(accounts, store, context, indent: "  ", limit: 10)
            out += "\nCalDAV accounts (last sync, and what lost in conflicts):\n" + report.text
            syncFailed = report.failed
        }
        context.out.write(out)
        if recent.contains(where: { $0.state == .failed }) || syncFailed { return 1 }
        return retrying.isEmpty ? ExitCode.ok : ExitCode.temporaryFailure
    }

    /// `due …  alert 'X' (1h before) to hook: next attempt …, 4 attempts, last: HTTP 503 (server error); gives up …`
    static func retryLine(_ entry: LedgerEntry, _ scheduler: Scheduler, _ context: Context) -> String {
        func time(_ date: Date) -> String { LocalTime(date, in: context.timeZone).listFormat }
        var error = entry.reason ?? "unknown"
        if let colon = error.range(of: " failed: ") { error = String(error[colon.upperBound...]) }
        if error.hasSuffix("; retrying") { error = String(error.dropLast("; retrying".count)) }
        let deadline = (entry.firstAttemptAt ?? entry.dueAt).addingTimeInterval(context.config.alerts.lateness)
        let done = DeliveryProgress(text: entry.progress)
        return "due " + time(entry.dueAt) + "  " + scheduler.describe(entry) + " to " + entry.channel
            + ": next attempt " + time(entry.nextAttemptAt) + " (\(entry.attempts) failed, last: \(error)); gives up after " + time(deadline)
            + (done.isEmpty ? "" : "; " + done.summary + ", the retry sends only the rest")
    }

    /// The last clock jump a pass met, said as such.
    static func clockJumpLine(_ jump: ClockJump, _ context: Context) -> String {
        let from = LocalTime(jump.from, in: context.timeZone).listFormat
        let at = LocalTime(jump.at, in: context.timeZone).listFormat
        let span = Scheduler.duration(abs(jump.at.timeIntervalSince(jump.from)))
        return jump.isBackward
            ? "the clock went back \(span): a pass at \(at) came after one at \(from); what the pass at the wrong time "
                + "skipped as too late and is still due was planned again, and what it sent before its due time is sent again then"
            : "\(span) between the pass at \(from) and the next at \(at): the machine was off or its clock jumped ahead; "
                + "what was skipped in between comes back if the clock returns"
    }

    static func number(_ text: String?, option: String, default value: Int) throws -> Int {
        guard let text else { return value }
        guard let n = Int(text), n > 0, n <= 3660 else {
            throw CLIError.usage("\(option) expects a whole number of days from 1 to 3660, got '\(text)'")
        }
        return n
    }
}
