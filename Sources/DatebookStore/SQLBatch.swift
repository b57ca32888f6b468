/// One statement written for many rows at once: `VALUES ($2, $3), ($4, $5), …` in a fixed set of
/// sizes, so a batch of 10,000 plans is some 40 statements (one round trip each on PostgreSQL),
/// and each size is one SQL text, prepared once per connection (SQLite's statement cache and
/// PostgreSQL's prepared statements are both keyed by the text).
///
/// On PostgreSQL a batch whose columns are all parameters is one statement over one array per
/// column instead (`arrays`): a group of 7 outcomes was 3 statements (4 + 2 + 1), each a round trip
/// inside the group's transaction (bench/results-postgresql.md, Replicas).
///
/// The texts are made once (`init`); `SQLDatabase.run(_:shared:_:values:row:)` runs them.
struct SQLBatch: Sendable {
    /// How one column of a row is written: a parameter as it is, or one PostgreSQL must read as a
    /// number (where the statement does not say it, as in a `WITH … AS (VALUES …)` list, an
    /// untyped parameter is text).
    enum Column: Sendable, Equatable {
        case value, bigint
        /// SQL written into every row as it is (a constant, a shared parameter such as `$1`).
        case verbatim(String)
    }

    /// The rows one statement carries, largest first: a batch takes the binary digits of its size.
    /// The largest keeps within SQLite's 32,766 parameters at 127 columns a row.
    static let sizes = [256, 128, 64, 32, 16, 8, 4, 2, 1]

    /// The statement's text for each of `sizes`, in order.
    let texts: [String]
    /// The parameters of one row.
    let parameters: Int
    /// The same statement for one row, its parameters numbered as the first row's, without the
    /// values list (`UPDATE … WHERE key = $3`): used for a batch of one, and for every row where
    /// the dialect runs rows one by one (`SQLDialect.rowStatements`).
    let single: String?
    /// The statement for any number of rows, each column one array parameter after the shared ones
    /// (`SELECT * FROM unnest(CAST($3 AS TEXT[]), CAST($4 AS BIGINT[]))` for the values list): one
    /// round trip and one prepared text whatever the count, where the dialect reads arrays
    /// (`SQLDialect.columnArrays`). Nil when a column is verbatim (its type would be unknown there).
    let arrays: String?

    /// `make` writes the statement around its values list (`VALUES (…), (…)`); the rows' parameters
    /// are numbered after the `shared` ones (`$1…$shared`).
    init(shared: Int, columns: [Column], single: String? = nil, _ make: (String) -> String) {
        self.single = single
        let parameters = columns.filter { if case .verbatim = $0 { false } else { true } }.count
        self.parameters = parameters
        texts = Self.sizes.map { size in
            var list = "VALUES "
            for row in 0..<size {
                list += row == 0 ? "(" : ", ("
                var parameter = shared + row * parameters
                for (n, column) in columns.enumerated() {
                    if n > 0 { list += ", " }
                    if case .verbatim(let sql) = column {
                        list += sql
                        continue
                    }
                    parameter += 1
                    list += column == .bigint ? "CAST($\(parameter) AS BIGINT)" : "$\(parameter)"
                }
                list += ")"
            }
            return make(list)
        }
        let typed = columns.enumerated().map { n, column -> String? in
            switch column {
            case .value: "CAST($\(shared + n + 1) AS TEXT[])"
            case .bigint: "CAST($\(shared + n + 1) AS BIGINT[])"
            case .verbatim: nil
            }
        }
        let arrays = typed.compactMap { $0 }
        self.arrays = arrays.count == typed.count ? make("SELECT * FROM unnest(" + arrays.joined(separator: ", ") + ")") : nil
    }
}

extension SQLDatabase {
    /// Runs `batch` over `items` (each made into its row's values by `values`) after the `shared`
    /// values, in as few statements as `SQLBatch.sizes` allow (or one per row, `SQLBatch.single`):
    /// one transaction when more than one (a single statement is atomic on its own). The rows
    /// changed, in all.
    @discardableResult
    func run<Item>(_ batch: SQLBatch, shared: [SQLValue], _ items: [Item], values: (Item) -> [SQLValue],
                   row: (Row) throws -> Void = { _ in }) throws -> Int {
        func runAll() throws -> Int {
            var changed = 0
            var start = 0
            for (size, batchText) in zip(SQLBatch.sizes, batch.texts) where size == 1 || !oneByOne {
                let text = size == 1 ? batch.single ?? batchText : batchText
                while items.count - start >= size {
                    var parameters = shared
                    parameters.reserveCapacity(shared.count + size * batch.parameters)
                    for item in items[start..<(start + size)] { parameters += values(item) }
                    changed += try run(text, parameters, row: row)
                    start += size
                }
            }
            return changed
        }
        guard !items.isEmpty else { return 0 }
        if dialect.columnArrays, let arrays = batch.arrays, items.count > 1 || batch.single == nil {
            // One statement (atomic on its own): each column's values as one array literal.
            var columns = Array(repeating: [String?](), count: batch.parameters)
            for item in items {
                for (n, value) in values(item).enumerated() { columns[n].append(value.text) }
            }
            return try run(arrays, shared + columns.map { .text(PostgresStore.arrayLiteral($0)) }, row: row)
        }
        let oneByOne = dialect.rowStatements && batch.single != nil
        let statements = oneByOne ? items.count : items.count / SQLBatch.sizes[0] + (items.count % SQLBatch.sizes[0]).nonzeroBitCount
        return try statements > 1 ? transaction(runAll) : runAll()
    }
}
