import CLoader

/// Reads sent ahead of their turn (libpq's pipeline mode), so the server answers the next one
/// while this process still works through the rows of the one before.
///
/// A listing of the coming weeks reads the occurrences in its window, then the recurring events'
/// summaries, then the spans that fall short of the window and their count: four statements
/// that do not depend on each other's rows, each sent only once the rows before it were matched.
/// `sendAhead` sends them at once, with one sync after them; `query` then takes each result in
/// turn when it is asked for the very statement (text and parameters) at the head of the line.
/// Anything else asked first drops the line (its results are read and freed) and runs as it
/// would have, and so do the statements that were ahead when they come: the answers are the plain
/// path's either way (PostgresPipelineTests). The statements between two syncs run in one
/// implicit transaction, so the reads see one snapshot; an error in one aborts those after it,
/// which then run plainly when asked for.
extension PostgresConnection {
    /// Sends `statements` (read-only) ahead; does nothing when others are still ahead.
    func sendAhead(_ statements: [(sql: String, parameters: [String?])]) {
        guard ahead.isEmpty, !statements.isEmpty, !isBroken, api.pointee.enterPipelineMode(handle) == 1 else { return }
        for (sql, parameters) in statements {
            let sent = withParameters(parameters) { values in
                api.pointee.sendQueryParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
            guard sent == 1 else { break }
            ahead.append((sql, parameters))
        }
        // Nothing sent, or the connection failed: out of pipeline mode; the next statement reports it.
        if ahead.isEmpty || api.pointee.pipelineSync(handle) != 1 { dropAhead() }
    }

    /// The result of the statement at the head of the line (thrown if it failed).
    func takeAhead() throws -> PostgresRows {
        ahead.removeFirst()
        let result = api.pointee.getResult(handle)
        // A statement's results end with NULL.
        if result != nil, let extra = api.pointee.getResult(handle) { api.pointee.clear(extra) }
        do {
            let rows = try check(result)
            if ahead.isEmpty { dropAhead() }
            return rows
        } catch {
            // Those after a failed one are aborted, or the connection is gone: the line ends here.
            dropAhead()
            throw error
        }
    }

    /// libpq is in pipeline mode: statements were sent ahead and their line is not yet taken.
    var isPipelining: Bool { api.pointee.pipelineStatus(handle) != PQ_PIPELINE_OFF }

    /// Reads and frees every result still ahead, up to the sync, and leaves pipeline mode.
    func dropAhead() {
        guard isPipelining else { return }
        var ends = 0
        while true {
            guard let result = api.pointee.getResult(handle) else {
                // One NULL ends each statement still ahead; more means the sync will not come.
                ends += 1
                if isBroken || ends > ahead.count + 1 { break }
                continue
            }
            let status = api.pointee.resultStatus(result)
            api.pointee.clear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        ahead = []
        _ = api.pointee.exitPipelineMode(handle)
    }
}
