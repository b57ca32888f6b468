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
    public func saveImport(_ result: ICSImport, calendar: String, progress: (Int) -> Void = { _ in }) throws {
        try bulkTransaction(count: result.events.count) {
            try writeMany(result.events, sources: (calendar, { result.uids[result.events[$0].id] }),
                          expansions: result.expansions, progress: progress)
        }
        progress(result.events.count)
    }

    /// The indexes and triggers a large import drops are dropped once, before its first batch,
    /// and made again after its last; into an empty store the batches' new events go in in bulk.
    ///
    /// Each batch is in id order, but the batches are not: into an empty store, the new events'
    /// rows wait in `ImportRuns` and go in in key order at the end. (A page cache of a quarter KiB
    /// per expected event, 244 MB at 1M, did not make up for the disorder: 56 s of CPU against
    /// 47.5 s with the 2 MB cache, for 460 MB of peak memory against 181 MB.)
    public func importTransaction<T>(expected: Int, _ body: () throws -> T) throws -> T {
        try bulkTransaction(count: expected) {
            let bulk = try beginBulk(count: expected, stage: true)
            importBulk = bulk
            // A failed import's staged rows go with the scratch file.
            defer { (importBulk, importRuns) = (nil, nil) }
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
