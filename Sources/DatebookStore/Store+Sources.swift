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

    /// The indexes and triggers a large import drops are dropped once, before its first batch,
    /// and made again after its last; into an empty store the batches' new events go in in bulk.
    ///
    /// Each batch is in id order, but the batches are not: the primary-key B-trees of tasks,
    /// sources and the events' id index then take rows all over, and with SQLite's 2 MB page cache
    /// nearly every row read and wrote a page through a system call (1M VEVENTs + 3M VTODOs: 16 s
    /// of system time, 47 s of CPU in all, against 10.5 s for 300k read whole). So a large import
    /// gets a page cache of about a quarter KiB per expected event (25 MB at 100k, at most 256 MB),
    /// within the memory the batches saved; the store's own size comes back after.
    public func importTransaction<T>(expected: Int, _ body: () throws -> T) throws -> T {
        let cache = expected >= Self.bulkThreshold ? try wrap { try db.integer("PRAGMA cache_size") } : nil
        if cache != nil { try wrap { try db.execute("PRAGMA cache_size = -\(min(262_144, max(2_000, expected / 4)))") } }
        defer { if let cache { try? db.execute("PRAGMA cache_size = \(cache)") } }
        return try bulkTransaction(count: expected) {
            let bulk = try beginBulk(count: expected)
            importBulk = bulk
            defer { importBulk = nil }
            let result = try body()
            try finishBulk(bulk)
            return result
        }
    }

    public func saveImportBatch(_ batch: ICSImport, calendar: String, rewritten: Set<String>, progress: (Int) -> Void) throws {
        guard let bulk = importBulk else { return try saveImport(batch, calendar: calendar, progress: progress) }
        try writeBatch(batch.events, bulk: bulk, rewritten: rewritten,
                       sources: (calendar, { batch.uids[batch.events[$0].id] }), expansions: batch.expansions, progress: progress)
        progress(batch.events.count)
    }
}
