import CSQLite
import DatebookCore
import Foundation

/// Receives the values of one row in column order: `Store.eventRow`, `taskRow`, … write each
/// table's values once, for whichever sink a path uses.
protocol RowSink {
    mutating func text(_ value: borrowing String)
    mutating func integer(_ value: Int64)
    mutating func null()
}

extension RowSink {
    mutating func int(_ value: Int) { integer(Int64(value)) }
    mutating func optional(_ value: String?) {
        if let value { text(value) } else { null() }
    }
}

/// The values of one row for `SQLiteStatement.bind` (the row-by-row path).
struct ValueList: RowSink {
    var values: [SQLValue] = []
    mutating func text(_ value: borrowing String) { values.append(.text(copy value)) }
    mutating func integer(_ value: Int64) { values.append(.integer(value)) }
    mutating func null() { values.append(.null) }
}

/// The rows of a bulk load into an empty store: made on a helper thread, inserted by the writer.
///
/// Making a row — reading the event's strings, its alert list, its badge — cost about as much as
/// SQLite's insert of it, and both ran on the one thread every row must pass through. Now a helper
/// thread copies the values of `chunkSize` events at a time into one byte buffer (`Chunk`) while
/// the writer binds the previous chunk straight from it (`SQLITE_STATIC`: no allocation and no copy
/// per value) and inserts `rowsPerStatement` rows per statement run. Each run of an INSERT opens
/// the table's cursors and checks the schema again; for a task row that was about a third of its
/// cost. A chunk's events go in before their tasks, occurrences, spans and sources, so every row
/// finds its event even with foreign keys checked.
final class BulkRows: Sendable {
    static let rowsPerStatement = 64
    static let chunkSize = 256
    /// Chunks made ahead of the writer, at most.
    static let ahead = 4

    /// `head (?, …), (?, …) tail` for `rows` rows of `columns` values.
    static func sql(_ head: String, columns: Int, rows: Int, tail: String = "") -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return head + " " + Array(repeating: row, count: rows).joined(separator: ", ") + (tail.isEmpty ? "" : " " + tail)
    }

    /// The tables in insert order (parents first), with the SQL around their values.
    enum Table: Int, CaseIterable {
        case events, tasks, occurrences, spans, sources

        var columns: Int {
            switch self {
            case .events: EventColumn.allCases.count
            case .tasks: TaskColumn.allCases.count
            case .occurrences: 2
            case .spans, .sources: 3
            }
        }

        /// The store's table.
        var name: String {
            switch self {
            case .events: "events"
            case .tasks: "tasks"
            case .occurrences: "occurrences"
            case .spans: "recurrence_spans"
            case .sources: "event_sources"
            }
        }

        /// `OR FAIL`: a statement of many rows that may abort (`ABORT`, the default) keeps a
        /// statement journal, a copy of each page it changes that existed before it: for rows added
        /// at a B-tree's right edge, that edge's pages at every run (for 1M events, about 9 % of the
        /// insert's time). With `FAIL` a row that breaks a constraint ends the statement and keeps
        /// the rows before it; the error rolls back the caller's transaction whole anyway.
        var head: String {
            switch self {
            case .events: "INSERT OR FAIL INTO \(EventColumn.insertTarget) VALUES"
            case .tasks: "INSERT OR FAIL INTO \(TaskColumn.insertTarget) VALUES"
            case .occurrences: "INSERT OR IGNORE INTO occurrences (event_id, start_key) VALUES"
            case .spans: "INSERT OR FAIL INTO recurrence_spans (event_id, from_key, to_key) VALUES"
            case .sources: "INSERT OR FAIL INTO event_sources (event_id, calendar, uid) VALUES"
            }
        }

        var tail: String {
            switch self {
            case .events: EventColumn.upsertTail
            case .sources: Store.sourcesUpsert
            default: ""
            }
        }
    }

    /// One value of a chunk: text is a range of the chunk's bytes.
    enum Value {
        case null
        case integer(Int64)
        case text(start: Int32, count: Int32)
    }

    /// The rows of up to `chunkSize` events, table by table.
    struct Chunk: RowSink {
        var bytes: [UInt8] = []
        var values: [[Value]] = Array(repeating: [], count: Table.allCases.count)
        var events = 0
        /// After each event, where its values end in each table (`ImportRuns` splits a chunk by event).
        var ends: [Int32] = []
        /// The table `RowSink` calls go to.
        var table = Table.events

        init() {}

        /// An empty chunk with room for as much as `previous` held.
        init(reserving previous: borrowing Chunk) {
            bytes.reserveCapacity(previous.bytes.count + previous.bytes.count / 4)
            for table in values.indices {
                values[table].reserveCapacity(previous.values[table].count + previous.values[table].count / 4)
            }
            ends.reserveCapacity(previous.ends.count)
        }

        mutating func text(_ value: borrowing String) {
            let start = bytes.count
            if value.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: value.utf8) }
            values[table.rawValue].append(.text(start: Int32(start), count: Int32(bytes.count - start)))
        }
        mutating func text(bytes value: UnsafeRawBufferPointer) {
            let start = bytes.count
            // Bound first: `append(contentsOf:)` copies a raw buffer byte by byte.
            bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
            values[table.rawValue].append(.text(start: Int32(start), count: Int32(value.count)))
        }
        mutating func integer(_ value: Int64) { values[table.rawValue].append(.integer(value)) }
        mutating func null() { values[table.rawValue].append(.null) }

        /// The rows written since the last call are one event's.
        mutating func endEvent() {
            for table in values { ends.append(Int32(table.count)) }
            events += 1
        }
    }

    /// What the helper thread needs to make the rows of the events in `order`.
    struct Source: Sendable {
        let events: [Event]
        let order: [Int]
        /// The store's `recurrenceHorizon`: what occurrences are materialised for.
        let horizon: DateInterval?
        let expansions: OccurrenceExpansions?
        /// The `event_sources` row of an event (by index), if it has one.
        let sources: (calendar: String, uid: @Sendable (Int) -> String?)?
    }

    private struct Queue: Sendable {
        var ready: [Chunk] = []
        var finished = false
        var cancelled = false
        /// What the helper threw (`init(producing:)`).
        var failure: (any Error)?
    }

    private let queue = Monitor(Queue())

    init(_ source: Source) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in make(source) }
    }

    /// The chunks `produce` hands over on a helper thread (`ImportRuns.merge`); `hand` returns false
    /// once the writer cancelled, and what `produce` throws, `next` throws after the chunks before it.
    init(producing produce: @escaping @Sendable (_ hand: (Chunk) -> Bool) throws -> Void) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let failure: (any Error)?
            do {
                try produce { hand($0) }
                failure = nil
            } catch {
                failure = error
            }
            queue.update { queue in
                queue.failure = failure
                queue.finished = true
            }
        }
    }

    /// Stops the helper (the writer failed) and waits for it to end; chunks it made are dropped.
    func cancel() {
        queue.update { $0.cancelled = true }
        queue.wait(for: { $0.finished })
    }

    /// The next chunk, in order; nil after the last.
    func next() throws -> Chunk? {
        try queue.wait(for: { !$0.ready.isEmpty || $0.finished }) { queue -> Result<Chunk?, any Error> in
            if !queue.ready.isEmpty { return .success(queue.ready.removeFirst()) }
            return queue.failure.map { .failure($0) } ?? .success(nil)
        }?.get() ?? nil
    }

    private func make(_ source: Source) {
        source.events.withUnsafeBufferPointer { events in make(source, events) }
        queue.update { $0.finished = true }
    }

    /// `events`: read in place, not copied (a copy retains a dozen strings).
    private func make(_ source: Source, _ events: UnsafeBufferPointer<Event>) {
        var chunk = Chunk()
        // Each event is borrowed from the buffer: a copy would retain and release its dozen strings.
        func rows(_ event: borrowing Event, at index: Int) {
            chunk.table = .events
            Store.eventRow(event, into: &chunk)
            chunk.table = .tasks
            event.tasks.withUnsafeBufferPointer { tasks in
                for position in tasks.indices { Store.taskRow(event.id, position, tasks[position], into: &chunk) }
            }
            if let job = OccurrenceExpansions.Job(event, horizon: source.horizon) {
                let keys = source.expansions?.keys(job, at: index) ?? job.keys
                chunk.table = .occurrences
                for key in keys {
                    chunk.text(event.id)
                    chunk.integer(key)
                }
                chunk.table = .spans
                Store.spanRow(event, window: job.window, keys: keys, into: &chunk)
            }
            if let sources = source.sources, let uid = sources.uid(index) {
                chunk.table = .sources
                chunk.text(event.id)
                chunk.text(sources.calendar)
                chunk.text(uid)
            }
            chunk.endEvent()
        }
        for index in source.order {
            rows(events[index], at: index)
            if chunk.events == Self.chunkSize {
                let next = Chunk(reserving: chunk)
                guard hand(chunk) else { return }
                chunk = next
            }
        }
        if chunk.events > 0 { _ = hand(chunk) }
    }

    /// Queues `chunk` for the writer, waiting while `ahead` are queued; false once cancelled.
    private func hand(_ chunk: Chunk) -> Bool {
        queue.wait(for: { $0.ready.count < Self.ahead || $0.cancelled }) { queue -> Bool in
            guard !queue.cancelled else { return false }
            queue.ready.append(chunk)
            return true
        } ?? false
    }
}

/// The writer's side: statements for 1…`rowsPerStatement` rows of each table, bound from chunks.
struct BulkInserter {
    private let store: Store
    private var statements: [[SQLiteStatement?]]

    init(store: Store) {
        self.store = store
        statements = Array(repeating: Array(repeating: nil, count: BulkRows.rowsPerStatement + 1),
                           count: BulkRows.Table.allCases.count)
    }

    /// Inserts the chunk's rows, table by table.
    mutating func insert(_ chunk: BulkRows.Chunk) throws {
        try chunk.bytes.withUnsafeBufferPointer { bytes in
            for table in BulkRows.Table.allCases {
                let values = chunk.values[table.rawValue]
                let rows = values.count / table.columns
                var row = 0
                while row < rows {
                    let count = min(BulkRows.rowsPerStatement, rows - row)
                    let statement = try self.statement(table, rows: count)
                    try statement.bind(values[row * table.columns ..< (row + count) * table.columns], bytes: bytes)
                    try store.wrap { try statement.run() }
                    row += count
                }
            }
        }
    }

    private mutating func statement(_ table: BulkRows.Table, rows: Int) throws -> SQLiteStatement {
        if let cached = statements[table.rawValue][rows] { return cached }
        let prepared = try store.wrap {
            try store.db.prepare(BulkRows.sql(table.head, columns: table.columns, rows: rows, tail: table.tail))
        }
        statements[table.rawValue][rows] = prepared
        return prepared
    }
}

extension SQLiteStatement {
    /// Binds chunk values to parameters 1…n; text points into `bytes`, which must outlive the run.
    func bind(_ values: ArraySlice<BulkRows.Value>, bytes: UnsafeBufferPointer<UInt8>) throws {
        sqlite3_reset(handle)
        var index: Int32 = 1
        for value in values {
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let start, let count):
                if count > 0, let base = bytes.baseAddress {
                    // A nil destructor is SQLITE_STATIC: SQLite reads the bytes in place.
                    let text = UnsafeRawPointer(base + Int(start)).assumingMemoryBound(to: CChar.self)
                    rc = sqlite3_bind_text(handle, index, text, count, nil)
                } else {
                    // Empty text needs a real pointer (a nil one binds NULL); SQLite copies its no bytes.
                    rc = sqlite3_bind_text(handle, index, "", 0, datebook_sqlite_transient())
                }
            }
            try connection.check(rc)
            index += 1
        }
    }
}
