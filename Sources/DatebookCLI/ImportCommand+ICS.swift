import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook import FILE.ics`: the iCalendar half of `import`.
extension ImportCommand {
    /// Imports an iCalendar file in batches (`PlannerStore.importICS`), all in one transaction.
    static func importICS(_ file: consuming ImportFile, _ context: Context) throws -> Int32 {
        let store = try context.openStore()
        let name = file.name
        // By kilobytes read: the events are counted only as each batch is joined.
        let progress = ProgressBar(total: file.count / 1_000, verb: "importing (kB)", context: context)
        let summary = try store.importICS(file, timeZone: context.timeZone, today: CalendarDate(context.now, in: context.timeZone),
                                          warn: { context.err.write("datebook: warning: " + $0 + "\n") },
                                          progress: { progress.show($0 / 1_000) })
        progress.finish()
        for limit in try store.truncatedRecurrences() {
            guard let uid = summary.uids[limit.eventID] else { continue }
            context.err.write("datebook: warning: \(name): UID \(uid): " + limit.message { Rows.when($0, context) } + "\n")
        }
        let skipped = summary.warnings == 0 ? "" : " (\(summary.warnings) warning\(summary.warnings == 1 ? "" : "s"))"
        context.out.write("imported \(summary.events) event\(summary.events == 1 ? "" : "s") from \(name)\(skipped)\n")
        return ExitCode.ok
    }
}
