import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `PreparedStatements` (a statement run again goes by name) answers as the plain path does.
@Suite(.serialized) struct PreparedStatementTests {
    static func connection(_ url: String, preparing: Bool) throws -> PostgresConnection {
        let connection = try PostgresConnection(conninfo: url, store: "test")
        connection.preparing = preparing
        return connection
    }

    static func values(_ rows: PostgresRows) -> [[String?]] {
        (0..<rows.count).map { row in (0..<Int(rows.api.pointee.nfields(rows.handle))).map { rows.optionalText(row, $0) } }
    }

    /// Statements with and without parameters, NULLs, arrays, RETURNING and an error, each run
    /// three times on a connection that prepares and on one that does not.
    @Test func preparedStatementsAnswerAsThePlainPathDoes() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let plain = try Self.connection(url, preparing: false)
        let prepared = try Self.connection(url, preparing: true)
        try plain.execute("CREATE TABLE items (key TEXT PRIMARY KEY, n BIGINT, note TEXT)")
        let statements: [(String, (Int) -> [String?])] = [
            ("INSERT INTO items (key, n, note) VALUES ($1, $2, $3) RETURNING key, n", { ["k\($0)", String($0), $0 == 1 ? nil : "é \($0)"] }),
            ("INSERT INTO items (key, n, note) SELECT k, n, NULL FROM unnest($1::text[], $2::bigint[]) AS u(k, n) ON CONFLICT (key) DO NOTHING RETURNING key",
             { ["{\"a\\\"\($0)\",b\($0)}", "{\($0),NULL}"] }),
            ("UPDATE items SET note = coalesce($2, note) WHERE n <= $1", { [String($0), $0 == 2 ? nil : "x"] }),
            ("SELECT key, n, note FROM items WHERE n IS NULL OR n >= $1 ORDER BY key COLLATE \"C\"", { [String($0 - 1)] }),
            ("SELECT count(*), min(key) FROM items", { _ in [] }),
        ]
        func answers(_ connection: PostgresConnection) throws -> [[[String?]]] {
            try connection.execute("TRUNCATE items")
            var answers: [[[String?]]] = []
            for round in 0..<3 {
                for (sql, parameters) in statements {
                    answers.append(Self.values(try connection.query(sql, parameters(round))))
                }
                // A unique violation: the same error either way, and the connection goes on.
                do {
                    _ = try connection.query(statements[0].0, statements[0].1(round))
                    Issue.record("a duplicate key was inserted")
                } catch let error as PostgresError {
                    answers.append([[error.sqlState]])
                }
            }
            return answers
        }
        let byName = try answers(prepared)
        #expect(byName == (try answers(plain)))
        #expect(byName.count == 18 && byName[5] == [["23505"]])
        func preparedCount(_ connection: PostgresConnection) throws -> [[String?]] {
            Self.values(try connection.query("SELECT count(*) FROM pg_prepared_statements"))
        }
        #expect(try preparedCount(prepared) == [[String(statements.count)]])
        #expect(try preparedCount(plain) == [["0"]])
    }

    /// `arrayLiteral` (the `unnest` parameters of plans and outcomes) reads back as written.
    @Test func arrayLiteralsReadBackAsWritten() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try Self.connection(url, preparing: true)
        let values: [String?] = ["plain", nil, "", "NULL", "a,b", "{x}", "quote \" here", "back\\slash\\", "tab\tand\nline", "é 🎉", " padded "]
        let rows = try connection.query("SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n",
                                        [PostgresStore.arrayLiteral(values)])
        #expect(Self.values(rows).map { $0[0] } == values)
        #expect(PostgresStore.arrayLiteral([]) == "{}")
    }

    /// A new session (`PQreset`) has none of the old names: they are prepared afresh.
    @Test func aResetConnectionPreparesAgain() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try Self.connection(url, preparing: true)
        for _ in 0..<3 { #expect(Self.values(try connection.query("SELECT $1::int + 1", ["41"])) == [["42"]]) }
        try connection.reset()
        for _ in 0..<3 { #expect(Self.values(try connection.query("SELECT $1::int + 1", ["41"])) == [["42"]]) }
        #expect(Self.values(try connection.query("SELECT name FROM pg_prepared_statements")) == [["datebook_2"]])
    }
}
