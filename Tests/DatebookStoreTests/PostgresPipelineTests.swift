@testable import DatebookStore
import DatebookTestSupport
import Testing

/// A transaction's `BEGIN` sent with its first statement (PostgresConnection+Begin.swift) opens the
/// same transaction the plain `BEGIN` did, on the plain and the prepared path, and its failures
/// are the statement's.
@Suite(.serialized) struct PostgresPipelineTests {
    static func first(_ connection: PostgresConnection, _ sql: String, _ parameters: [String?] = []) throws -> String? {
        let rows = try connection.query(sql, parameters)
        return rows.count > 0 ? rows.optionalText(0, 0) : nil
    }

    /// Three rounds, so the third runs the statements by name (`PreparedStatements`).
    @Test func aBeginSentWithTheFirstStatementHoldsTheTransactionTogether() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try PostgresConnection(conninfo: url, store: "test")
        let other = try PostgresConnection(conninfo: url, store: "test")
        try connection.execute("CREATE TABLE items (key TEXT PRIMARY KEY)")
        for round in 0..<3 {
            connection.begin()
            let id = try Self.first(connection, "INSERT INTO items (key) VALUES ($1) RETURNING pg_current_xact_id()::text", ["k\(round)"])
            #expect(id != nil)
            #expect(try Self.first(connection, "SELECT pg_current_xact_id()::text || $1", [""]) == id)
            #expect(try Self.first(other, "SELECT count(*) FROM items WHERE key = $1", ["k\(round)"]) == "0")
            if round == 1 { try connection.rollback() } else { try connection.commit() }
        }
        #expect(try Self.first(other, "SELECT string_agg(key, ',' ORDER BY key) FROM items") == "k0,k2")
    }

    /// A statement that fails fails as itself; the transaction is rolled back and the connection goes on.
    @Test func aFailingFirstStatementFailsAsItselfAndRollsBack() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try PostgresConnection(conninfo: url, store: "test")
        try connection.execute("CREATE TABLE items (key TEXT PRIMARY KEY)")
        _ = try connection.query("INSERT INTO items (key) VALUES ($1)", ["taken"])
        for _ in 0..<3 {
            connection.begin()
            let error = #expect(throws: PostgresError.self) { try connection.query("INSERT INTO items (key) VALUES ($1)", ["taken"]) }
            #expect(error?.sqlState == "23505")
            try connection.rollback()
        }
        connection.begin("BEGIN ISOLATION LEVEL REPEATABLE READ")
        #expect(try Self.first(connection, "SELECT current_setting($1)", ["transaction_isolation"]) == "repeatable read")
        try connection.commit()
    }

    /// `execute` (no parameters) takes the pending `BEGIN` too; a transaction that ran nothing sends
    /// neither `BEGIN` nor `COMMIT`, and what follows runs on its own.
    @Test func executeBeginsTooAndAnEmptyTransactionLeavesNoneOpen() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try PostgresConnection(conninfo: url, store: "test")
        connection.begin()
        try connection.execute("SET LOCAL statement_timeout TO '7s'")
        #expect(try Self.first(connection, "SHOW statement_timeout") == "7s")
        try connection.commit()
        #expect(try Self.first(connection, "SHOW statement_timeout") != "7s")
        connection.begin()
        try connection.commit()
        let one = try Self.first(connection, "SELECT pg_current_xact_id()::text")
        let two = try Self.first(connection, "SELECT pg_current_xact_id()::text")
        #expect(one != nil && one != two)
    }
}
