import DatebookCore
import Foundation

/// `datebook store copy FROM TO`: a whole store into an empty one, SQLite or PostgreSQL either
/// way, in one transaction on the target, with each table's rows counted on both sides.
///
/// Events and tasks travel as `Event` values: read with `forEachEvent`, written by the target's
/// bulk writer (SQLite's `writeMany`, PostgreSQL's `COPY`), whose rows come from `EventColumn` and
/// `TaskColumn`, so a new column reaches the copy without an edit here. The other tables travel as
/// rows of text (`Table`): feeds and the events' iCalendar sources (a feed's overlays are its
/// events' own fields and tasks), the ledger, the action-link key and the links used; the last
/// pass and the queue of changed events (which the target's writes would otherwise fill with every
/// event) go through the stores' accessors. What SQLite derives (occurrences, recurrence spans,
/// alert lead sets) its writer makes. CalDAV accounts are not copied.
public struct StoreCopy {
    /// Rows of one table after a copy (the same on both sides, or the copy was rolled back).
    public struct Count: Equatable, Sendable {
        public var table: String
        public var rows: Int
    }

    /// A table copied row by row as text, by the column names both backends have (`StoreSchema`).
    struct Table {
        var name: String
        var columns: [String]
    }

    static let tables: [Table] = ["event_sources", "feeds", "deliveries", "secrets", "used_action_links"].map { name in
        Table(name: name, columns: StoreSchema.current.sharedColumns(of: name))
    }

    /// Every table a copy counts, in the order of its report.
    public static let countedTables = ["events", "tasks"] + tables.map(\.name) + ["last pass"]

    let source: any SQLStore
    let target: any SQLStore

    /// Opens the store at `source` (FROM), which must hold a datebook store, for reading, and the
    /// one at `target` (TO) with the standard recurrence horizon of `now`; an error of either
    /// names its side (`StoreCopyError.store`).
    public init(from source: String, to target: String, now: Date) throws {
        self.source = try StoreCopyError.Side.source.naming {
            guard try StoreOpener.schemaVersions(source) != nil else {
                throw StoreCopyError.noStore(store: StoreLocation.redacted(source))
            }
            return try StoreOpener.openSQL(source, readOnly: true)
        }
        self.target = try StoreCopyError.Side.target.naming { try StoreOpener.openSQL(target) }
        self.target.recurrenceHorizon = Store.standardHorizon(now: now)
    }

    /// What is read from the source, in one snapshot.
    struct Snapshot {
        var events: [Event] = []
        var rows: [String: [[String?]]] = [:]
        var lastPass: Date?
        /// The events the source's next pass looks back for (`changed_events`; not counted).
        var changed: Set<String> = []

        /// Where a text holds a NUL byte (`event 'ID' title`, `deliveries row 3 reason`), which
        /// PostgreSQL cannot store: the same rule as at input (`EventValidation.nulProblem`).
        var nulByte: String? {
            for event in events {
                if let problem = EventValidation.nulFields(event).first { return "event '\(event.id)' \(problem.field)" }
            }
            for table in StoreCopy.tables {
                for (n, row) in (rows[table.name] ?? []).enumerated() {
                    if let column = row.indices.first(where: { row[$0]?.utf8.contains(0) == true }) {
                        return "\(table.name) row \(n + 1) \(table.columns[column])"
                    }
                }
            }
            return nil
        }

        var counts: [Count] {
            [Count(table: "events", rows: events.count), Count(table: "tasks", rows: events.reduce(0) { $0 + $1.tasks.count })]
                + StoreCopy.tables.map { Count(table: $0.name, rows: rows[$0.name]?.count ?? 0) }
                + [Count(table: "last pass", rows: lastPass == nil ? 0 : 1)]
        }
    }

    /// Copies the source into the target, which must hold nothing yet; returns the rows per table.
    ///
    /// - Throws: `StoreCopyError.targetNotEmpty` (nothing written), `.countMismatch` (rolled back),
    ///   or `.store`: a store error of the source or the target (rolled back).
    @discardableResult
    public func run() throws -> [Count] {
        let found = try StoreCopyError.Side.target.naming { try counts(in: target) }
        let occupied = found.filter { $0.rows > 0 }
        guard occupied.isEmpty else { throw StoreCopyError.targetNotEmpty(store: target.location, tables: occupied) }
        let snapshot = try StoreCopyError.Side.source.naming { try read() }
        if let place = snapshot.nulByte { throw StoreCopyError.nulByte(store: source.location, place: place) }
        let expected = snapshot.counts
        try StoreCopyError.Side.target.naming {
            try write(snapshot) {
                let written = try counts(in: target)
                for (want, got) in zip(expected, written) where want.rows != got.rows {
                    throw StoreCopyError.countMismatch(store: target.location, table: want.table, source: want.rows, target: got.rows)
                }
            }
        }
        return expected
    }

    // MARK: Reading

    /// Everything of the source, read in one snapshot (SQLite: a read transaction; PostgreSQL:
    /// a repeatable-read one), so a scheduler writing meanwhile cannot tear it.
    func read() throws -> Snapshot {
        var snapshot = Snapshot()
        try source.run(source.dialect.beginSnapshot)
        do {
            try source.forEachEvent { snapshot.events.append($0) }
            for table in Self.tables { snapshot.rows[table.name] = try rows(of: table, in: source) }
            snapshot.lastPass = try source.lastPass()
            snapshot.changed = try source.changedEvents(taking: false)
            try source.run("COMMIT")
        } catch {
            _ = try? source.run("ROLLBACK")
            throw error
        }
        return snapshot
    }

    private func rows(of table: Table, in store: some SQLStore) throws -> [[String?]] {
        let columns = table.columns
        return try store.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table.name)") { row in
            columns.indices.map { row.optionalText(Int32($0)) }
        }
    }

    // MARK: Writing

    /// Writes `snapshot` and runs `verify` in one transaction on the target.
    private func write(_ snapshot: Snapshot, verify: () throws -> Void) throws {
        let tables = Self.tables.map { table in
            CopiedRows(table: table.name, columns: table.columns, rows: snapshot.rows[table.name] ?? [])
        }
        try target.writeCopy(events: snapshot.events, tables: tables) {
            try snapshot.lastPass.map(target.setLastPass)
            try target.replaceChangedEvents(with: snapshot.changed)
            try verify()
        }
    }

    // MARK: Counting

    /// The rows of every counted table of `store`, in `countedTables` order.
    func counts(in store: any SQLStore) throws -> [Count] {
        var counts: [Count] = []
        for table in Self.countedTables.dropLast() {
            counts.append(Count(table: table, rows: try store.first("SELECT count(*) FROM \(table)") { $0.int(0) } ?? 0))
        }
        counts.append(Count(table: "last pass", rows: try store.lastPass() == nil ? 0 : 1))
        return counts
    }
}

/// One table's rows as a copy writes them: text, NULL as nil, in `columns`' order.
struct CopiedRows {
    var table: String
    var columns: [String]
    var rows: [[String?]]
}

// MARK: Each backend's bulk path

extension Store {
    /// `writeMany` (with SQLite's checks off for a large load, `bulkTransaction`), then one
    /// prepared insert per row.
    func writeCopy(events: [Event], tables: [CopiedRows], then finish: () throws -> Void) throws {
        try bulkTransaction(count: events.count) {
            try writeMany(events)
            for table in tables {
                let values = table.columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
                let sql = "INSERT INTO \(table.table) (\(table.columns.joined(separator: ", "))) VALUES (\(values))"
                for row in table.rows { try run(sql, row.map(SQLValue.optional), row: { _ in }) }
            }
            try finish()
        }
    }
}

extension PostgresStore {
    /// COPY for the events, their tasks and each table, with the foreign keys and indexes set
    /// aside meanwhile (`withoutPlannerChecks`).
    func writeCopy(events: [Event], tables: [CopiedRows], then finish: () throws -> Void) throws {
        try transaction {
            try withoutPlannerChecks {
                try copyRows(of: events, events: "events", tasks: "tasks")
                for table in tables {
                    try wrap { try connection.copy(into: table.table, columns: table.columns, rows: table.rows) }
                }
            }
            try finish()
        }
    }
}

/// Why `datebook store copy` refused or undid a copy.
public enum StoreCopyError: Error, Equatable, CustomStringConvertible {
    /// The target holds rows already: nothing was written.
    case targetNotEmpty(store: String, tables: [StoreCopy.Count])
    /// After writing, a table of the target did not hold as many rows as the source: rolled back.
    case countMismatch(store: String, table: String, source: Int, target: Int)
    /// A text of the source holds a NUL byte (`place` names it): nothing was written.
    case nulByte(store: String, place: String)
    /// The source names no datebook store (a new file, an empty schema): nothing was written.
    case noStore(store: String)
    /// A store error of one side; whatever the target had written was rolled back.
    case store(Side, StoreError)

    /// A side of the copy, as the command line names it.
    public enum Side: String, Sendable {
        case source = "FROM", target = "TO"

        /// Runs `body`; a `StoreError` in it becomes `.store(self, error)`.
        func naming<T>(_ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as StoreError {
                throw StoreCopyError.store(self, error)
            }
        }
    }

    /// The store error inside, whose kind (a server out of reach, a refused login) decides the exit code.
    public var storeError: StoreError? {
        if case .store(_, let error) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case let .targetNotEmpty(store, tables):
            "store copy: the target \(store) is not empty ("
                + tables.map { "\($0.table): \($0.rows)" }.joined(separator: ", ")
                + "); copy into a new SQLite file or an empty PostgreSQL database or schema (?schema=NAME) — nothing was written"
        case let .countMismatch(store, table, source, target):
            "store copy: \(table) has \(source) row(s) in the source but \(target) in the target \(store); the copy was rolled back, nothing was written"
        case let .nulByte(store, place):
            "store copy: \(place) in the source \(store) contains a NUL byte (U+0000), which datebook no longer accepts; edit it there and copy again — nothing was written"
        case .noStore(let store):
            "store copy: FROM \(store) holds no datebook store; check the path or URL (and ?schema=NAME)"
        case let .store(side, error):
            "store copy: \(side.rawValue): \(error.description)"
        }
    }
}
