import CLoader

/// The statements a connection runs again and again, prepared on the server once (`PQprepare`)
/// and then run by name (`PQexecPrepared`), so the server parses and plans each only once.
///
/// A scheduler's pass repeats a few statements thousands of times (a claim per batch, an outcome
/// per group of answers); parsing and planning each again took a fifth of the server's time. A
/// statement is prepared on its third run, so the statements a CLI command runs once or twice
/// still take one round trip each. Answers are those of the plain path (`PQexecParams`, PreparedStatementTests); the
/// names are the connection's own and die with it (`forget` after a reset).
struct PreparedStatements {
    /// At most this many statements a connection keeps (those built from data would not repeat).
    static let capacity = 128

    /// Runs before a statement is prepared (the one that prepares it is the next).
    static let plainRuns = 2

    private enum Entry {
        case seen(Int)
        case prepared(String)
    }

    private var entries: [String: Entry] = [:]
    private var counter = 0

    /// Runs `sql` with `parameters` on `connection`: by name once prepared, else plainly (`plain`).
    mutating func run(_ sql: String, _ parameters: [String?], on connection: PostgresConnection,
                      plain: () throws -> PostgresRows) throws -> PostgresRows {
        let name: String
        switch entries[sql] {
        case .prepared(let prepared):
            name = prepared
        case .seen(let runs) where runs >= Self.plainRuns:
            counter += 1
            name = "datebook_\(counter)"
            try connection.prepare(name, sql, parameterCount: parameters.count)
            entries[sql] = .prepared(name)
        case .seen(let runs):
            entries[sql] = .seen(runs + 1)
            return try plain()
        case nil:
            if entries.count < Self.capacity { entries[sql] = .seen(1) }
            return try plain()
        }
        do {
            return try connection.execute(prepared: name, parameters)
        } catch let error as PostgresError {
            // Gone from the server, or its result type changed under it: prepared afresh next time.
            if error.sqlState == "26000" || error.sqlState == "0A000" { entries[sql] = .seen(Self.plainRuns) }
            throw error
        }
    }

    /// The server forgot them all (a new session after `PQreset`).
    mutating func forget() {
        entries = [:]
    }
}

extension PostgresConnection {
    /// `PQprepare`: `sql` under `name` on this connection, parameter types as the server infers them.
    func prepare(_ name: String, _ sql: String, parameterCount: Int) throws {
        _ = try check(api.pointee.prepare(handle, name, sql, Int32(parameterCount), nil))
    }

    /// `PQexecPrepared` in text format, like `query`.
    func execute(prepared name: String, _ parameters: [String?]) throws -> PostgresRows {
        let result: OpaquePointer? = withParameters(parameters) { values in
            api.pointee.execPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        return try check(result)
    }
}
