import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

extension StatusCommand {
    /// The scheduler instances alive (seen within `SchedulerInstance.staleAfter`), and who sent the
    /// latest deliveries (`host:pid` of the scheduler that recorded each).
    static func schedulerSections(_ scheduler: Scheduler, since: Date, days: Int, limit: Int, _ context: Context) throws -> String {
        let store = scheduler.store
        let minutes = Int(SchedulerInstance.staleAfter / 60)
        let alive = try store.schedulers(seenSince: context.now.addingTimeInterval(-SchedulerInstance.staleAfter))
        var out = "\nSchedulers seen in the last \(minutes) minutes (datebook run):\n"
        if alive.isEmpty { out += "  (none)\n" }
        for instance in alive {
            out += "  " + instance.claimant + "  since " + LocalTime(instance.started, in: context.timeZone).listFormat
                + ", last seen " + LocalTime(instance.lastSeen, in: context.timeZone).listFormat + ", datebook " + instance.version + "\n"
        }
        let sent = try store.settledDeliveries(since: since).filter { $0.state == .sent || $0.state == .sentLate }
        out += "\nSent in the last \(days) days, newest first (by scheduler host:pid):\n"
        if sent.isEmpty { out += "  (nothing)\n" }
        for entry in sent.prefix(limit) {
            out += "  " + LocalTime(entry.updatedAt, in: context.timeZone).listFormat + "  " + entry.state.rawValue + "  "
                + scheduler.describe(entry) + " to " + entry.channel + " by " + (entry.settledBy ?? "?") + "\n"
        }
        if sent.count > limit { out += "  … and \(sent.count - limit) more\n" }
        return out
    }
}
