import DatebookCore
import Dispatch
import Foundation

/// The materialised occurrence keys of a bulk load's recurring events, expanded on another thread
/// before the rows that need them are made.
///
/// Expansion (libical's iterator, which steps through ICU calendars, plus zone arithmetic) is pure
/// and touches no SQLite. In a 100k-event import it was about half a second, and it shared a core
/// with the thread making rows while the writer waited on both. So an import submits each
/// recurring event as the join places it (`PlannerICS.Options.store`), when the other core is
/// otherwise idle; `writeMany` submits a large batch's events itself when no one did.
///
/// Jobs are keyed by the event's position in the batch. A result is used only for the very job the
/// writer asks about — same start, zone, rule and window — so a job made stale by a later override
/// (an EXDATE added to the master) or a duplicate UID is expanded again by the caller instead of
/// being written. A caller that gets to a job before the helper expands it itself. Everything
/// below is guarded by `condition`.
final class OccurrenceExpansions: @unchecked Sendable {
    struct Job: Sendable, Equatable {
        let start: EventStart
        let timeZone: String
        let recurrence: String
        let window: Range<Int64>

        init(start: EventStart, timeZone: String, recurrence: String, window: Range<Int64>) {
            self.start = start
            self.timeZone = timeZone
            self.recurrence = recurrence
            self.window = window
        }

        /// The expansion `event` needs in a store whose `recurrenceHorizon` is `horizon`; nil
        /// when it does not recur.
        init?(_ event: borrowing Event, horizon: DateInterval?) {
            guard let recurrence = event.recurrence else { return nil }
            self.init(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                      window: Store.horizonKeys(for: event, horizon: horizon))
        }

        var keys: [Int64] {
            RecurrenceExpander.keys(start: start, timeZone: timeZone, recurrence: recurrence, window: window).keys
        }
    }

    private enum State {
        case queued(Job)
        /// Being expanded by the helper (the serial tells a superseded run from the current one).
        case running(Job, serial: Int)
        case done(Job, [Int64])
    }

    private let condition = NSCondition()
    private var states: [Int: State] = [:]
    /// Positions in submission order; a position may appear again after a resubmission.
    private var queue: [Int] = []
    private var head = 0
    private var closed = false
    private var serial = 0

    init() {
        DispatchQueue.global(qos: .userInitiated).async { [self] in run() }
    }

    /// Queues the expansion of the event at `position` (replacing what was queued for it).
    func submit(_ job: Job, at position: Int) {
        condition.lock()
        states[position] = .queued(job)
        queue.append(position)
        condition.broadcast()
        condition.unlock()
    }

    /// No more submissions: the helper stops once the queue is empty.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The keys of `job` for the event at `position`: the helper's result when it expanded exactly
    /// this job, else expanded here. Each result is handed out once.
    func keys(_ job: Job, at position: Int) -> [Int64] {
        condition.lock()
        while case .running(let running, _) = states[position], running == job { condition.wait() }
        let state = states.removeValue(forKey: position)
        condition.unlock()
        if case .done(let done, let keys) = state, done == job { return keys }
        return job.keys
    }

    /// The occurrence keys of the event at `position` for `horizon`; nil when it does not recur.
    func keys(for event: borrowing Event, at position: Int, horizon: DateInterval?) -> [Int64]? {
        Job(event, horizon: horizon).map { keys($0, at: position) }
    }

    private func run() {
        condition.lock()
        while true {
            while head == queue.count && !closed { condition.wait() }
            guard head < queue.count else { break }
            let position = queue[head]
            head += 1
            // Taken by a caller, or queued again later on (that entry comes up in turn).
            guard case .queued(let job) = states[position] else { continue }
            serial += 1
            let mine = serial
            states[position] = .running(job, serial: mine)
            condition.unlock()
            let keys = job.keys
            condition.lock()
            if case .running(_, mine) = states[position] { states[position] = .done(job, keys) }
            condition.broadcast()
        }
        queue = []
        condition.unlock()
    }
}
