import DatebookCore
import DatebookICal
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
/// being written. A caller that gets to a job before the helper expands it itself.
public final class OccurrenceExpansions: Sendable {
    public struct Job: Sendable, Equatable {
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
        public init?(_ event: borrowing Event, horizon: DateInterval?) {
            guard let recurrence = event.recurrence else { return nil }
            self.init(start: event.start, timeZone: event.timeZone, recurrence: recurrence,
                      window: Store.horizonKeys(for: event, horizon: horizon))
        }

        var keys: [Int64] {
            RecurrenceExpander.keys(start: start, timeZone: timeZone, recurrence: recurrence, window: window).keys
        }
    }

    private enum JobState: Sendable {
        case queued(Job)
        /// Being expanded by the helper (the serial tells a superseded run from the current one).
        case running(Job, serial: Int)
        case done(Job, [Int64])
    }

    private struct State: Sendable {
        var jobs: [Int: JobState] = [:]
        /// Positions in submission order; a position may appear again after a resubmission.
        var queue: [Int] = []
        var head = 0
        var closed = false
        var serial = 0
    }

    private let state = Monitor(State())

    public init() {
        DispatchQueue.global(qos: .userInitiated).async { [self] in run() }
    }

    /// Queues the expansion of the event at `position` (replacing what was queued for it).
    public func submit(_ job: Job, at position: Int) {
        state.update { state in
            state.jobs[position] = .queued(job)
            state.queue.append(position)
        }
    }

    /// No more submissions: the helper stops once the queue is empty.
    public func close() {
        state.update { $0.closed = true }
    }

    /// The keys of `job` for the event at `position`: the helper's result when it expanded exactly
    /// this job, else expanded here. Each result is handed out once.
    func keys(_ job: Job, at position: Int) -> [Int64] {
        let taken = state.wait(for: { state in
            if case .running(let running, _) = state.jobs[position], running == job { return false }
            return true
        }) { $0.jobs.removeValue(forKey: position) } ?? nil
        if case .done(let done, let keys) = taken, done == job { return keys }
        return job.keys
    }

    /// The occurrence keys of the event at `position` for `horizon`; nil when it does not recur.
    func keys(for event: borrowing Event, at position: Int, horizon: DateInterval?) -> [Int64]? {
        Job(event, horizon: horizon).map { keys($0, at: position) }
    }

    /// What the helper does next.
    private enum Step: Sendable {
        case expand(Job, position: Int, serial: Int)
        /// The entry was taken by a caller or queued again later on (that entry comes up in turn).
        case skip
        case stop
    }

    private func run() {
        while true {
            let step = state.wait(for: { $0.head < $0.queue.count || $0.closed }) { state -> Step in
                guard state.head < state.queue.count else {
                    state.queue = []
                    return .stop
                }
                let position = state.queue[state.head]
                state.head += 1
                guard case .queued(let job) = state.jobs[position] else { return .skip }
                state.serial += 1
                state.jobs[position] = .running(job, serial: state.serial)
                return .expand(job, position: position, serial: state.serial)
            } ?? .stop
            guard case .expand(let job, let position, let serial) = step else {
                if case .stop = step { return }
                continue
            }
            let keys = job.keys
            state.update { state in
                if case .running(_, serial) = state.jobs[position] { state.jobs[position] = .done(job, keys) }
            }
        }
    }
}
