import Synchronization

/// The access log's lines, handed to `write` by one thread at a time, in the order they came.
///
/// The server's worker threads used to call the log themselves; the log writes each line to stderr
/// under a lock, and on a loaded machine the other workers spun on that lock while its holder sat in
/// `write(2)`: the lock's slow path was 9 % of the server's CPU under `wrk` (`perf`, a 304 of the
/// feed, 4 workers on 2 shared cores; bench/results-serve.md). Here a worker only appends its line
/// (a lock held for an append); the first that finds no writer at work becomes the writer and
/// writes lines until none is left, the others return at once. The plain path is `write` called
/// for every line, which `AccessLogTests` compares this with.
final class AccessLog: Sendable {
    private let state = Mutex<(lines: [String], writing: Bool)>(([], false))
    private let write: @Sendable (String) -> Void

    init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Queues `line`; writes it (and any queued meanwhile) unless another thread is writing.
    func add(_ line: String) {
        let writer = state.withLock { state in
            state.lines.append(line)
            defer { state.writing = true }
            return !state.writing
        }
        guard writer else { return }
        while true {
            let batch = state.withLock { state in
                defer { state.lines.removeAll(keepingCapacity: true) }
                if state.lines.isEmpty { state.writing = false }
                return state.lines
            }
            guard !batch.isEmpty else { return }
            batch.forEach(write)
        }
    }
}
