import DatebookCore
import Foundation

extension Store {
    /// Records which iCalendar UID (and calendar) each event came from: `rows` of (event id, UID).
    func saveSources(calendar: String, ids rows: some Sequence<(String, String)>) throws {
        try wrap {
            let insert = try statement(key: "sources.upsert", BulkRows.sql(BulkRows.Table.sources.head, columns: 3, rows: 1,
                                                                         tail: Self.sourcesUpsert))
            for (id, uid) in rows { try insert.bind(.text(id), .text(calendar), .text(uid)).run() }
        }
    }

    static let sourcesUpsert = "ON CONFLICT(event_id) DO UPDATE SET calendar = excluded.calendar, uid = excluded.uid"

    /// Saves imported events and their UIDs in one transaction; `progress(done)` after each batch.
    public func saveImport(_ result: ICSImport, calendar: String = PlannerICS.importCalendar, progress: (Int) -> Void = { _ in }) throws {
        try bulkTransaction(count: result.events.count) {
            try writeMany(result.events, sources: (calendar, { result.uids[result.events[$0].id] }),
                          expansions: result.expansions, progress: progress)
        }
        progress(result.events.count)
    }
}
