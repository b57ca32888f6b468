@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The one schema description (`StoreSchema.current`) is what each backend's migrations build, and
/// what its DDL builds: read back from the database's own catalog (SQLite: `pragma_table_info`,
/// `pragma_index_list`; PostgreSQL: `information_schema.columns`, `pg_index`).
struct SchemaTests {
    /// Rows of a catalog query as text (NULL as nil), `columns` wide.
    typealias Query = (_ sql: String, _ parameters: [String], _ columns: Int) throws -> [[String?]]

    @Test func aMigratedSQLiteStoreHasTheDescribedSchema() throws {
        let folder = ScratchFolder("schema")
        _ = try Store(path: folder.file("store.sqlite3"))
        let migrated = try SQLiteConnection(path: folder.file("store.sqlite3"), flags: 0x2)
        #expect(try Self.sqliteSchema(Self.query(migrated)) == Self.expected(.sqlite))

        let built = try SQLiteConnection(path: folder.file("ddl.sqlite3"), flags: 0x6)
        try built.execute(StoreSchema.current.createSQL(.sqlite))
        #expect(try Self.sqliteSchema(Self.query(built)) == Self.expected(.sqlite))
    }

    @Test func aMigratedPostgreSQLStoreHasTheDescribedSchema() throws {
        let url = try TestPostgres.shared().makeDatabase()
        _ = try PostgresStore(url: url)
        let raw = try PostgresConnection(conninfo: url, store: "test")
        raw.preparing = false
        try raw.execute("SET search_path TO datebook")
        #expect(try Self.postgresSchema(Self.query(raw)) == Self.expected(.postgres))

        try raw.execute("CREATE SCHEMA ddl; SET search_path TO ddl")
        try raw.execute(StoreSchema.current.createSQL(.postgres))
        #expect(try Self.postgresSchema(Self.query(raw)) == Self.expected(.postgres))
    }

    /// The description as lines a catalog can be compared with: a table with its key, a column with
    /// its type (SQLite's by affinity: it keeps any integer in 8 bytes), an index with its columns.
    static func expected(_ kind: SQLDialect.Kind) -> [String] {
        StoreSchema.current.on(kind).tables.sorted { $0.name < $1.name }.flatMap { table in
            let rowID = kind == .sqlite && table.withoutRowID ? " without rowid" : ""
            return ["table \(table.name) key (\(table.key.joined(separator: ", ")))\(rowID)"]
                + table.columns.map { column in
                    let type = kind == .sqlite ? (column.type == .text ? "TEXT" : "INTEGER")
                        : StoreSchema.typeName(column.type == .serial ? .bigint : column.type, .postgres).lowercased()
                    return line(table.name, column.name, type, nullable: column.nullable, default: column.defaultSQL)
                }
                + table.indexes.sorted { $0.name < $1.name }.map { index($0.name, $0.columns, $0.condition) }
        }
    }

    static func line(_ table: String, _ column: String, _ type: String, nullable: Bool, default value: String?) -> String {
        "  \(table).\(column) \(type)\(nullable ? "" : " not null")" + (value.map { " default \($0)" } ?? "")
    }

    static func index(_ name: String, _ columns: [String], _ condition: String?) -> String {
        "  index \(name) (\(columns.joined(separator: ", ")))" + (condition.map { " where \($0)" } ?? "")
    }

    static func sqliteSchema(_ query: Query) throws -> [String] {
        try query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", [], 2)
            .flatMap { table -> [String] in
                let name = table[0] ?? ""
                let columns = try query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info($1) ORDER BY cid", [name], 5)
                let key = columns.filter { $0[4] != "0" }.sorted { Int($0[4] ?? "") ?? 0 < Int($1[4] ?? "") ?? 0 }.compactMap { $0[0] }
                let rowID = table[1]?.hasSuffix("WITHOUT ROWID") == true ? " without rowid" : ""
                let indexes = try query("""
                    SELECT l.name, m.sql FROM pragma_index_list($1) l JOIN sqlite_master m ON m.name = l.name
                    WHERE l.origin = 'c' ORDER BY l.name
                    """, [name], 2).map { row in
                    let indexed = try query("SELECT name FROM pragma_index_info($1) ORDER BY seqno", [row[0] ?? ""], 1).compactMap { $0[0] }
                    let condition = row[1]?.range(of: " WHERE ").map { String(row[1]?[$0.upperBound...] ?? "") }
                    return index(row[0] ?? "", indexed, condition.map(collapsed))
                }
                return ["table \(name) key (\(key.joined(separator: ", ")))\(rowID)"] + columns.map { column in
                    // A key column counts as not null: SQLite lets a rowid table's TEXT key be NULL (a
                    // legacy quirk), and datebook never writes one.
                    let type = column[1]?.uppercased().contains("INT") == true ? "INTEGER" : column[1]?.uppercased() ?? ""
                    return line(name, column[0] ?? "", type, nullable: column[2] == "0" && column[4] == "0", default: column[3])
                } + indexes
            }
    }

    static func postgresSchema(_ query: Query) throws -> [String] {
        let tables = try query("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            ORDER BY table_name COLLATE "C"
            """, [], 1).compactMap { $0[0] }
        let ordered = "array_position(i.indkey::int2[], a.attnum)"
        return try tables.flatMap { name -> [String] in
            let columns = try query("""
                SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
                """, [name], 4)
            let key = try query("""
                SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY \(ordered)
                """, [name], 1).compactMap { $0[0] }
            let indexes = try query("""
                SELECT c.relname, pg_get_expr(i.indpred, i.indrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE i.indrelid = $1::regclass AND NOT i.indisprimary ORDER BY c.relname COLLATE "C"
                """, [name], 2).map { row in
                let indexed = try query("""
                    SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                    WHERE i.indexrelid = $1::regclass ORDER BY \(ordered)
                    """, [row[0] ?? ""], 1).compactMap { $0[0] }
                // `(recurrence IS NULL)` as written: without the parentheses PostgreSQL adds.
                let condition = row[1].map { $0.hasPrefix("(") && $0.hasSuffix(")") ? String($0.dropFirst().dropLast()) : $0 }
                return index(row[0] ?? "", indexed, condition)
            }
            return ["table \(name) key (\(key.joined(separator: ", ")))"] + columns.map { column in
                // `''::text` as written; a sequence's `nextval(…)` is the serial type's, not a default.
                let value = column[3].flatMap { $0.hasPrefix("nextval(") ? nil : $0.replacingOccurrences(of: "::text", with: "") }
                return line(name, column[0] ?? "", column[1] ?? "", nullable: column[2] == "YES", default: value)
            } + indexes
        }
    }

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func query(_ connection: SQLiteConnection) -> Query {
        { sql, parameters, columns in
            let statement = try connection.prepare(sql)
            _ = try statement.bind(parameters.map { .text($0) })
            var rows: [[String?]] = []
            while try statement.step() { rows.append((0..<columns).map { statement.optionalText(Int32($0)) }) }
            return rows
        }
    }

    static func query(_ connection: PostgresConnection) -> Query {
        { sql, parameters, columns in
            let rows = try connection.query(sql, parameters)
            return (0..<rows.count).map { row in (0..<columns).map { rows.isNull(row, $0) ? nil : rows.text(row, $0) } }
        }
    }
}
