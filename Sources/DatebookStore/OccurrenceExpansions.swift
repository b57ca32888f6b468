import DatebookCore
import Dispatch
import Foundation

/// The materialised occurrence keys of a bulk load's recurring events, expanded on another thread
/// while the writer inserts rows.
///
/// Expansion (libical's iterator plus zone arithmetic) is pure and touches no SQLite; in a large
/// import it is about a twentieth of the work, and the writer's thread is the busy one. Jobs are
/// expanded in order, and `keys(_:)` waits for its job when the writer gets there first.
final class OccurrenceExpansions: @unchecked Sendable {
    struct Job: Sendable {
        let start: EventStart
        let timeZone: String
        let recurrence: String
        let window: Range<Int64>
    }

    private let condition = NSCondition()
    /// Guarded by `condition`: results by job, taken (set back to nil) by `keys(_:)`.
    private var results: [[Int64]?]
    private var ready = 0

    init(_ jobs: [Job]) {
        results = Array(repeating: nil, count: jobs.count)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            for (n, job) in jobs.enumerated() {
                let keys = RecurrenceExpander.keys(start: job.start, timeZone: job.timeZone,
                                                   recurrence: job.recurrence, window: job.window).keys
                condition.lock()
                results[n] = keys
                ready = n + 1
                condition.signal()
                condition.unlock()
            }
        }
    }

    /// The keys of job `n` (each job is taken once).
    func keys(_ n: Int) -> [Int64] {
        condition.lock()
        defer { condition.unlock() }
        while ready <= n { condition.wait() }
        let keys = results[n] ?? []
        results[n] = nil
        return keys
    }
}
