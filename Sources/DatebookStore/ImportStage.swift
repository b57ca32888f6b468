import DatebookCore

/// Where an import read in batches puts the rows its batches write in bulk into an empty store:
/// TEMP tables, one per planner table, inserted into the store's tables in key order at the end,
/// or earlier when the import reads or writes again an event it saved (`Store.flushImportStage`).
///
/// Each batch is in id order, but the batches together are not: written straight into the store,
/// the rows of 1M events (3M tasks) landed all over their B-trees, and with SQLite's 2 MB page
/// cache nearly every row evicted a dirty page to the file and read another back. `pwrite` and
/// `pread` were 32% of the import's 63 s of CPU (perf, 1M VEVENTs + 3M VTODOs, bench/results.md).
/// Appended to a TEMP table (a file SQLite unlinks as it opens it), sorted by SQLite's external
/// sorter and inserted in key order, each page of the store is written once, at the B-tree's edge.
/// The plain path (`BulkRows.Table.head`, straight into the store) is what a save of one batch
/// takes, and `ImportBatchTests` compares the two.
enum ImportStage {
    /// The TEMP table holding `table`'s rows.
    static func name(_ table: BulkRows.Table) -> String { "import_stage_" + table.name }

    /// `table`'s inserted columns, as its `head` lists them: `(event_id, start_key)`.
    static func columns(_ table: BulkRows.Table) -> String {
        let head = table.head
        guard let open = head.firstIndex(of: "("), let close = head.lastIndex(of: ")") else { return "" }
        return String(head[open...close])
    }

    /// Makes the empty TEMP table of `table` (no key, no constraint: rows are only appended).
    static func create(_ table: BulkRows.Table) -> String {
        "CREATE TEMP TABLE \(name(table)) AS SELECT \(columns(table).dropFirst().dropLast()) FROM main.\(table.name) WHERE 0"
    }

    /// What `BulkInserter` writes a staged row with.
    static func head(_ table: BulkRows.Table) -> String { "INSERT INTO temp.\(name(table)) \(columns(table)) VALUES" }

    /// Moves the staged rows of `table` into the store's table in key order, as its `head` and
    /// `tail` would have inserted them (`WHERE true` keeps an upsert tail from reading as a join).
    static func flush(_ table: BulkRows.Table) -> [String] {
        let insert = table.head.hasSuffix(" VALUES") ? String(table.head.dropLast(" VALUES".count)) : table.head
        let select = "SELECT \(columns(table).dropFirst().dropLast()) FROM temp.\(name(table)) WHERE true ORDER BY \(table.key)"
        return [insert + " " + select + (table.tail.isEmpty ? "" : " " + table.tail), "DELETE FROM temp.\(name(table))"]
    }

    static func drop(_ table: BulkRows.Table) -> String { "DROP TABLE IF EXISTS temp.\(name(table))" }
}

extension Store {
    /// Makes the TEMP tables of an import's staged rows (inside its transaction: a rollback drops them).
    func createImportStage() throws {
        try wrap { for table in BulkRows.Table.allCases { try db.execute(ImportStage.create(table)) } }
    }

    /// Inserts the rows staged so far into the store's tables in key order (parents first).
    func flushImportStage() throws {
        guard importStagePending else { return }
        try wrap {
            for table in BulkRows.Table.allCases {
                for sql in ImportStage.flush(table) { try db.execute(sql) }
            }
        }
        importStagePending = false
    }

    /// Flushes and drops the TEMP tables at the end of the import.
    func dropImportStage() throws {
        try flushImportStage()
        try wrap { for table in BulkRows.Table.allCases { try db.execute(ImportStage.drop(table)) } }
    }

    /// An event an earlier batch of the running import saved: its rows may still be staged.
    public func importedEvent(id: String) throws -> Event? {
        try flushImportStage()
        return try event(id: id)
    }
}
