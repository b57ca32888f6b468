import DatebookCore
import Foundation

/// Large saves (imports, feed refreshes into a young store).
///
/// A secondary index updated row by row costs a B-tree descent per row on a random page; built
/// once at the end, it is one sort. So a batch of at least `bulkThreshold` events going into a
/// store that holds no more events than the batch drops the planner tables' secondary indexes,
/// writes the rows, and re-creates each index from its own `CREATE INDEX` text in `sqlite_master`
/// — all inside the caller's transaction, so a failure rolls the indexes back with the rows.
///
/// The same batch also suspends the triggers on `events`. A row trigger makes SQLite keep a
/// statement journal for every insert (a copy of each page the statement touches, so the trigger
/// can fail and undo it); for 100k events that cost about two seconds. Their effect is replayed
/// afterwards (the lead sets in one statement; every event of the batch queued in `changed_events`;
/// every CalDAV calendar's count of local changes bumped, `CalDAVLocalChanges`), which is why only
/// triggers whose replay is known are suspended.
extension Store {
    /// Smaller batches are written row by row with the indexes in place.
    static let bulkThreshold = 5_000

    /// The indices of `events` in id order, so the primary-key B-trees of events and tasks grow at
    /// their right edge instead of splitting pages all over the file. Ids of 16 lower-case hex
    /// digits (all that datebook makes) sort as the numbers they spell, which is their text order.
    static func idOrder(_ events: [Event]) -> [Int] {
        var keys: [(key: UInt64, index: Int)] = []
        keys.reserveCapacity(events.count)
        for index in events.indices {
            guard let key = hexKey(events[index].id) else {
                return events.indices.sorted { events[$0].id < events[$1].id }
            }
            keys.append((key, index))
        }
        keys.sort { $0.key < $1.key }
        return keys.map(\.index)
    }

    /// The number a 16-digit lower-case hex id spells; nil for any other id.
    ///
    /// Eight digits at a time (the import asks for every event's several times): each byte is
    /// checked and turned into its value in one 64-bit word (`hexValue`), and the nibbles packed.
    /// `BulkLoadTests.hexKeyReadsAsDigitByDigit` compares it with a digit-by-digit reading.
    public static func hexKey(_ id: String) -> UInt64? {
        let utf8 = id.utf8
        guard utf8.count == 16 else { return nil }
        return utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
            let raw = UnsafeRawPointer(bytes.baseAddress!)
            guard let high = hexValue(UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))),
                  let low = hexValue(UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))) else { return nil }
            return high << 32 | low
        } ?? nil
    }

    /// The number eight lower-case hex digits spell, given as the bytes of `word` (the first digit
    /// in the top byte); nil when a byte is no such digit.
    static func hexValue(_ word: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101, tops = ones << 7
        // Every byte ASCII, so that setting its top bit keeps the subtraction below from borrowing.
        guard word & tops == 0 else { return nil }
        // The top bit of each byte of `atLeast(n)` says whether that byte is n or more.
        func atLeast(_ n: UInt64) -> UInt64 { ((word | tops) &- n &* ones) & tops }
        let digits = atLeast(0x30) & ~atLeast(0x3A)
        let letters = atLeast(0x61) & ~atLeast(0x67)
        guard digits | letters == tops else { return nil }
        // A digit's value is its low nibble; a letter's (a = 0x61) its low nibble plus 9.
        var value = (word & (ones &* 0x0F)) &+ (letters >> 7) &* 9
        value = (value | value >> 4) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        return (value | value >> 16) & 0xFFFF_FFFF
    }

    /// The transaction of a save of `count` events.
    ///
    /// Into an empty store, a bulk save writes every task, occurrence and source row right after
    /// the event it belongs to, so SQLite's foreign-key check — a B-tree descent into the events for
    /// each of those rows — can find nothing wrong; for 100k events with 300k tasks it cost about a
    /// second in a C reproduction. The pragma cannot change inside a transaction, so it is switched
    /// off around this one only (a batch of `bulkThreshold`+ events into a store with no events) and
    /// on again after. If another process adds events in between, the save takes the checked
    /// path's explicit deletes, which do not rely on the constraints' cascades.
    ///
    /// Such a load also leaves WAL mode for its transaction when no other connection has the store
    /// open (SQLite refuses at once otherwise, and the load stays in WAL). In WAL mode every page
    /// is written twice — to the log, then copied into the file by the checkpoint when the store
    /// closes — and pages the cache let go of are read back from the log: for 100k events that was
    /// 58 MB written and 136 MB read besides the file's own 57 MB. With a rollback journal the pages
    /// go to the file once, and the journal holds only the few pages the empty store had. The
    /// transaction is as atomic either way; the store is back in WAL mode when it ends.
    func bulkTransaction<T>(count: Int, _ body: () throws -> T) throws -> T {
        let unchecked = try count >= Self.bulkThreshold && eventCount() == 0
        guard unchecked else { return try transaction(body) }
        let leftWAL = (try? db.execute("PRAGMA journal_mode = DELETE")) != nil
        try wrap { try db.execute("PRAGMA foreign_keys = OFF") }
        let result: Result<T, Error> = Result { try transaction(body) }
        try wrap { try db.execute("PRAGMA foreign_keys = ON") }
        // Refused only if another process opened the store meanwhile; its own open asks for WAL again.
        if leftWAL { try? db.execute("PRAGMA journal_mode = WAL") }
        return try result.get()
    }

    /// Writes `events` in id order, in the current transaction; `progress(done)` every 5,000.
    /// `sources`: the `event_sources` row of an event (by index in `events`), if it has one.
    /// `expansions`: recurring events submitted for expansion by their index (an import does so
    /// while it joins); without it a large batch submits its own. An event not submitted is
    /// expanded where its row is made.
    func writeMany(_ events: [Event], sources: (calendar: String, uid: @Sendable (Int) -> String?)? = nil,
                   expansions: OccurrenceExpansions? = nil, progress: (Int) -> Void = { _ in }) throws {
        let bulk = try beginBulk(count: events.count)
        try writeBatch(events, bulk: bulk, sources: sources, expansions: expansions, progress: progress)
        try finishBulk(bulk)
    }

    /// What a large write changed in the schema for its transaction, until `finishBulk` puts it back.
    struct BulkWrite {
        /// The events the store held when the write began; `Int.max` for a small write (not counted).
        let existing: Int
        /// The `CREATE INDEX` statements of the secondary indexes dropped until the end.
        let deferred: [String]
        /// The `CREATE TRIGGER` statements of the triggers on `events` suspended until the end.
        let suspended: [String]?
        /// New events' rows go to `ImportRuns` until the end (an import in batches into an empty store).
        var staged = false
    }

    /// Starts a write of about `count` events (all of a save, or every batch of an import): drops
    /// the secondary indexes and suspends the triggers when it is large enough to gain by it.
    /// `stage`: the write comes in batches not in id order between them (`ImportRuns`).
    func beginBulk(count: Int, stage: Bool = false) throws -> BulkWrite {
        let existing = count >= Self.bulkThreshold ? try eventCount() : Int.max
        var bulk = try BulkWrite(existing: existing, deferred: existing <= count ? dropSecondaryIndexes() : [],
                                 suspended: count >= Self.bulkThreshold ? suspendEventTriggers() : nil)
        if stage, existing == 0 {
            try createImportStage()
            bulk.staged = true
        }
        return bulk
    }

    /// Writes one batch of a write begun with `beginBulk`, in id order.
    ///
    /// `rewritten`: ids an earlier batch of the same write has written (an import's event that a
    /// later batch changes again); into a store that was empty they take the row-by-row path, which
    /// replaces rows, while every other event's rows go in in bulk.
    func writeBatch(_ events: [Event], bulk: BulkWrite, rewritten: Set<String> = [],
                    sources: (calendar: String, uid: @Sendable (Int) -> String?)? = nil,
                    expansions given: OccurrenceExpansions? = nil, progress: (Int) -> Void = { _ in }) throws {
        let order = Self.idOrder(events)
        let horizon = recurrenceHorizon
        // Large batches expand their recurring events on another thread meanwhile.
        var expansions = given
        if expansions == nil, events.count >= Self.bulkThreshold {
            let made = OccurrenceExpansions()
            for index in order {
                if let job = OccurrenceExpansions.Job(events[index], horizon: horizon) {
                    made.submit(job, at: index)
                }
            }
            made.close()
            expansions = made
        }
        let replaced = bulk.existing == 0 ? order.filter { rewritten.contains(events[$0].id) } : order
        if bulk.existing == 0 {
            // Into an empty store every id is new: nothing to delete first, and rows go in in bulk.
            let new = replaced.isEmpty ? order : order.filter { !rewritten.contains(events[$0].id) }
            try writeNew(BulkRows.Source(events: events, order: new, horizon: horizon, expansions: expansions,
                                         sources: sources), staged: bulk.staged, progress: progress)
            // The rows replaced below may be staged.
            if !replaced.isEmpty { try flushImportStage() }
        }
        // Through the buffer: each event is read in place, not copied (a dozen strings each).
        try events.withUnsafeBufferPointer { buffer in
            for (n, index) in replaced.enumerated() {
                try write(buffer[index], expanded: expansions?.keys(for: buffer[index], at: index, horizon: horizon))
                if n % 5_000 == 4_999 { progress(n + 1) }
            }
        }
        if let sources, !replaced.isEmpty {
            try saveSources(calendar: sources.calendar, ids: replaced.lazy.compactMap { index in
                sources.uid(index).map { (events[index].id, $0) }
            })
        }
        if bulk.suspended != nil, bulk.existing != 0 { try queueChanged(events.lazy.map(\.id), allEvents: false) }
    }

    /// Ends a write begun with `beginBulk`: re-creates the dropped indexes and the suspended
    /// triggers, and replays what the triggers would have done.
    func finishBulk(_ bulk: BulkWrite) throws {
        if bulk.staged { try dropImportStage() }
        try rebuildIndexes(bulk.deferred)
        guard let suspended = bulk.suspended else { return }
        try wrap {
            for sql in suspended { try db.execute(sql) }
            try db.execute(Self.alertLeadSetsCatchUp)
            try db.execute(CalDAVLocalChanges.bumpAll)
        }
        // Every event of a load into an empty store is queued by one statement (the others were, batch by batch).
        if bulk.existing == 0 { try queueChanged([String](), allEvents: true) }
    }

    /// Runs `CREATE INDEX` statements with SQLite's sorter on two helper threads (`PRAGMA threads`)
    /// and SQLite's default page cache of 2 MB instead of the writer's 32 MB (`prepareSchema`).
    ///
    /// Each build sorts every row of its table. The sorter keeps as many rows in memory as the page
    /// cache holds before it writes a sorted run, so with 32 MB the `events` indexes of a 1M-event
    /// import were each one big sort on one thread; with 2 MB they are many small sorts that the
    /// helpers share while this thread reads the table. In the sqlite3 shell, the seven rebuilt
    /// indexes of the 1M import took 2.85 s with 32 MB and two helpers and 1.8 s with 2 MB and two
    /// helpers; with the catch-ups after them, 3.0–3.2 s against 2.1 s (2.6 s with 2 MB and no helper;
    /// bench/results.md). The connection is back to its cache and no helpers after.
    private func rebuildIndexes(_ statements: [String]) throws {
        guard !statements.isEmpty else { return }
        let cache = try wrap { try db.integer("PRAGMA cache_size") }
        try wrap {
            try db.execute("PRAGMA threads = 2")
            try db.execute("PRAGMA cache_size = -2000")
        }
        defer {
            try? db.execute("PRAGMA threads = 0")
            try? db.execute("PRAGMA cache_size = \(cache)")
        }
        for sql in statements { try wrap { try db.execute(sql) } }
    }

    /// Inserts the rows of events no stored row has (`BulkRows`: made on a helper thread).
    private func writeNew(_ source: BulkRows.Source, staged: Bool, progress: (Int) -> Void) throws {
        let rows = BulkRows(source)
        var inserter = BulkInserter(store: self)
        let runs = staged ? importRuns : nil
        var done = 0
        do {
            while let chunk = try rows.next() {
                if let runs { try runs.append(chunk) } else { try inserter.insert(chunk) }
                done += chunk.events
                if done / 5_000 != (done - chunk.events) / 5_000 { progress(done) }
            }
            try runs?.endRun()
        } catch {
            rows.cancel()
            throw error
        }
        // Later saves in this transaction must know which events have occurrence rows.
        var occurrences = occurrenceRows ?? OccurrenceRows(before: false)
        for index in source.order where source.events[index].recurrence != nil {
            occurrences.written.insert(source.events[index].id)
        }
        occurrenceRows = occurrences
    }

    /// Drops the triggers on `events` when they are exactly the ones `alertLeadSetsCatchUp`,
    /// `queueChanged` and `CalDAVLocalChanges.bumpAll` replay; returns their `CREATE TRIGGER` statements (nil, and nothing dropped, otherwise).
    private func suspendEventTriggers() throws -> [String]? {
        let triggers = try schemaObjects("type = 'trigger' AND tbl_name = 'events'")
        guard Set(triggers.map(\.name)) == Self.alertLeadSetsTriggers.union(Self.changedEventsTriggers)
            .union(CalDAVLocalChanges.sqliteTriggers) else { return nil }
        return try drop(triggers, kind: "TRIGGER")
    }

    /// Drops the secondary indexes of the planner tables; returns their `CREATE INDEX` statements.
    private func dropSecondaryIndexes() throws -> [String] {
        // Automatic primary-key indexes have no SQL text and stay.
        try drop(schemaObjects("""
            type = 'index' AND sql IS NOT NULL AND tbl_name IN ('events', 'tasks', 'occurrences', 'event_sources')
            """), kind: "INDEX")
    }

    /// Name and `CREATE` text of the schema objects matching `condition`, by name.
    private func schemaObjects(_ condition: String) throws -> [(name: String, sql: String)] {
        try wrap {
            var found: [(name: String, sql: String)] = []
            let rows = try db.prepare("SELECT name, sql FROM sqlite_master WHERE \(condition) ORDER BY name")
            while try rows.step() { found.append((rows.text(0), rows.text(1))) }
            return found
        }
    }

    /// Drops `objects` (`kind`: INDEX or TRIGGER); returns their `CREATE` statements.
    private func drop(_ objects: [(name: String, sql: String)], kind: String) throws -> [String] {
        try wrap { for object in objects { try db.execute("DROP \(kind) \"\(object.name)\"") } }
        return objects.map(\.sql)
    }
}
