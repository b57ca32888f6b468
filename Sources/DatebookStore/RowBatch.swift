import Foundation

/// Rows of one table inserted `RowBatch.size` at a time by one `VALUES (…), (…)` statement.
///
/// Every run of an INSERT opens the table's cursors, checks the schema cookie and the transaction,
/// and closes them again: for a task row that was about a third of its cost (300k rows in C:
/// 0.62–0.80 s one per run, 0.43–0.50 s sixteen per run). A bulk load into an empty store collects
/// its rows here; the rows of a batch go in in the order they were added.
final class RowBatch {
    static let size = 16

    private let head: String
    private let tail: String
    private let columns: Int
    /// Batches holding the rows these rows refer to: flushed first, so a foreign key always finds
    /// its parent.
    private let parents: [RowBatch]
    private var values: [SQLiteValue] = []
    private var full: SQLiteStatement?

    /// `head`: `INSERT INTO t (a, b) VALUES`; `tail`: what follows the values (`ON CONFLICT …`).
    init(_ head: String, columns: Int, tail: String = "", parents: [RowBatch] = []) {
        self.head = head
        self.tail = tail
        self.columns = columns
        self.parents = parents
        values.reserveCapacity(columns * Self.size)
    }

    /// Adds one row (its values in column order); inserts the batch when it is full.
    func add(_ row: [SQLiteValue], in store: Store) throws {
        values.append(contentsOf: row)
        if values.count == columns * Self.size { try flush(in: store) }
    }

    /// Inserts the rows collected so far (the parents' first).
    func flush(in store: Store) throws {
        for parent in parents { try parent.flush(in: store) }
        let rows = values.count / columns
        guard rows > 0 else { return }
        let statement: SQLiteStatement
        if rows == Self.size, let full {
            statement = full
        } else {
            statement = try store.statement(Self.sql(head, columns: columns, rows: rows, tail: tail))
            if rows == Self.size { full = statement }
        }
        try store.wrap { try statement.bind(values).run() }
        values.removeAll(keepingCapacity: true)
    }

    /// `head (?, …), (?, …) tail` for `rows` rows of `columns` values.
    static func sql(_ head: String, columns: Int, rows: Int, tail: String = "") -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return head + " " + Array(repeating: row, count: rows).joined(separator: ", ") + (tail.isEmpty ? "" : " " + tail)
    }
}

/// The batches of a bulk load into an empty store, parents before children.
struct BulkInserts {
    let events: RowBatch
    let tasks: RowBatch
    let occurrences: RowBatch
    let spans: RowBatch

    init() {
        events = RowBatch(Store.eventsInsert, columns: 14, tail: Store.eventsUpsert)
        tasks = RowBatch("INSERT INTO tasks (event_id, position, id, text, status) VALUES", columns: 5, parents: [events])
        occurrences = RowBatch("INSERT OR IGNORE INTO occurrences (event_id, start_key) VALUES", columns: 2, parents: [events])
        spans = RowBatch("INSERT INTO recurrence_spans (event_id, from_key, to_key) VALUES", columns: 3, parents: [events])
    }

    func flush(in store: Store) throws {
        for batch in [events, tasks, occurrences, spans] { try batch.flush(in: store) }
    }
}
