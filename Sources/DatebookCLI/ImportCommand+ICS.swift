import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook import FILE.ics`: the iCalendar half of `import`.
extension ImportCommand {
    /// Imports an iCalendar file; its memory is given back while it is read, and freed before saving.
    static func importICS(_ file: consuming ImportFile, _ context: Context) throws -> Int32 {
        let store = try context.openStore()
        let name = file.name
        let reading = ProgressBar.reading(name, bytes: file.count, context: context)
        let result = try store.decodeImport(file, timeZone: context.timeZone, today: CalendarDate(context.now, in: context.timeZone))
        reading.finish()
        let progress = ProgressBar(total: result.events.count, context: context)
        for warning in result.warnings { context.err.write("datebook: warning: " + warning + "\n") }
        try store.saveImport(result) { progress.show($0) }
        progress.finish()
        for limit in try store.truncatedRecurrences() {
            guard let uid = result.uids[limit.eventID] else { continue }
            context.err.write("datebook: warning: \(name): UID \(uid): " + limit.message { Rows.when($0, context) } + "\n")
        }
        let skipped = result.warnings.isEmpty ? "" : " (\(result.warnings.count) warning\(result.warnings.count == 1 ? "" : "s"))"
        context.out.write("imported \(result.events.count) event\(result.events.count == 1 ? "" : "s") from \(name)\(skipped)\n")
        // Freeing 100k events is a quarter of a second; let it overlap the store's closing.
        BackgroundRelease.release(consume result)
        return ExitCode.ok
    }
}
