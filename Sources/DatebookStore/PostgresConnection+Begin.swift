import CLoader

/// A transaction's `BEGIN` travels with its first statement, in one round trip (libpq's pipeline
/// mode: both sent, then one Sync), instead of a round trip of its own; a transaction that runs
/// nothing sends neither `BEGIN` nor `COMMIT`.
///
/// A replica's group of outcomes was `BEGIN`, the outcomes, the fence, `COMMIT`: four round trips,
/// one of them for `BEGIN` alone (bench/results-postgresql.md, Replicas). The statements and their
/// answers are those of the plain path (PostgresPipelineTests).
extension PostgresConnection {
    /// Begins a transaction with `sql` (`BEGIN`, or one with an isolation level) at the next statement.
    func begin(_ sql: String = "BEGIN") {
        pendingBegin = sql
    }

    /// Commits the transaction; nothing is sent when it ran no statement.
    func commit() throws {
        guard takePendingBegin() == nil else { return }
        try execute("COMMIT")
    }

    /// Rolls the transaction back; nothing is sent when it ran no statement.
    func rollback() throws {
        guard takePendingBegin() == nil else { return }
        try execute("ROLLBACK")
    }

    /// The `BEGIN` still to send, now taken: the caller sends it.
    func takePendingBegin() -> String? {
        defer { pendingBegin = nil }
        return pendingBegin
    }

    /// Sends `begin` and then the statement `send` queues (`PQsendQueryParams`/`PQsendQueryPrepared`)
    /// with one Sync, and reads both answers: the statement's rows, or the first failure (a failed
    /// `BEGIN` aborts the statement, whose own answer then says only that).
    func pipelined(after begin: String, _ send: () -> Int32) throws -> PostgresRows {
        guard api.pointee.enterPipelineMode(handle) == 1 else {
            // Not idle (cannot happen between statements): the two round trips of the plain path.
            try execute(begin)
            guard send() == 1 else { throw connectionError() }
            var answer: OpaquePointer?
            while let result = api.pointee.getResult(handle) {
                if answer == nil { answer = result } else { api.pointee.clear(result) }
            }
            return try check(answer)
        }
        var results: [OpaquePointer] = []
        defer {
            results.forEach { api.pointee.clear($0) }
            _ = api.pointee.exitPipelineMode(handle)
        }
        let sent = api.pointee.sendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) == 1
            && send() == 1 && api.pointee.pipelineSync(handle) == 1
        // Each query's answer ends with a NULL; the Sync's answer ends the pipeline. Two NULLs in a
        // row: nothing more will come (a lost connection).
        var nulls = 0
        while sent, nulls < 2 {
            guard let result = api.pointee.getResult(handle) else {
                nulls += 1
                continue
            }
            nulls = 0
            if api.pointee.resultStatus(result) == PGRES_PIPELINE_SYNC {
                api.pointee.clear(result)
                break
            }
            results.append(result)
        }
        guard sent, results.count == 2 else {
            // What the connection says went wrong (a lost connection), with its SQLSTATE if any.
            if let first = results.first { results.removeFirst(); _ = try check(first) }
            throw connectionError()
        }
        let (began, answer) = (results[0], results[1])
        results = []
        do {
            _ = try check(began)
        } catch {
            api.pointee.clear(answer)
            throw error
        }
        return try check(answer)
    }
}
