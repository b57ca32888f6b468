import DatebookCore
import Foundation

extension Store {
    /// Leaves the to-do lists out of a listing of events by date (`Event.isTaskList`: on no date).
    /// An id test against the partial index `events_task_lists`, so the covering indexes of the
    /// listings still answer without a table row per event.
    static let notTaskList = " AND e.id NOT IN (SELECT l.id FROM events l WHERE l.task_list = 1)"
}

extension SQLStore {
    /// Occurrences starting in `[from, to)` (open bounds when nil), in chronological order, streamed.
    ///
    /// One indexed range query on `start_key`, widened by the span of UTC offsets so all-day and
    /// floating events are caught; a small reorder buffer then emits exact chronological order without loading the
    /// whole range. Never reads events outside the window. Recurring events contribute one
    /// occurrence per instance (see SQLStore+Occurrences.swift), merged into the same order.
    public func forEachOccurrence(from: Date?, to: Date?, calendar: Calendar, _ body: (Occurrence) throws -> Void) throws {
        try forEach(from: from, to: to, calendar: calendar,
                    recurring: recurringOccurrences(from: from, to: to, calendar: calendar), read: stream, body)
    }

    /// Like `forEachOccurrence`, as listing summaries: task counts instead of the tasks, read from
    /// a covering index; what a text listing needs, at a fraction of the I/O on large stores.
    public func forEachOccurrenceSummary(from: Date?, to: Date?, calendar: Calendar,
                                         _ body: (OccurrenceSummary) throws -> Void) throws {
        try forEach(from: from, to: to, calendar: calendar,
                    recurring: recurringSummaries(from: from, to: to, calendar: calendar), read: streamSummaries, body)
    }

    /// `read`: `stream` or `streamSummaries` (escaping only so it may take a closure that calls `body`).
    private func forEach<Item: EventListing>(
        from: Date?, to: Date?, calendar: Calendar, recurring sorted: SortedOccurrences<Item>,
        read: @escaping (String, [SQLValue], String, (Item) throws -> Void) throws -> Void,
        _ body: (OccurrenceOf<Item>) throws -> Void
    ) throws {
        var conditions = ["e.recurrence IS NULL" + Store.notTaskList]
        var values: [SQLValue] = []
        var recurring = RecurringMerge(sorted)
        func merged(_ occurrence: OccurrenceOf<Item>) throws {
            try recurring.drain(before: occurrence, body)
            try body(occurrence)
        }
        if let from {
            values.append(.integer(EventStart.lowestKey(from: from)))
            conditions.append("e.start_key >= $\(values.count)")
        }
        if let to {
            values.append(.integer(EventStart.keyBound(to: to)))
            conditions.append("e.start_key < $\(values.count)")
        }
        var buffer = ReorderBuffer<Item>()
        try read(conditions.joined(separator: " AND "), values, "e.start_key, e.id") { event in
            let occurrence = OccurrenceOf(event: event, calendar: calendar)
            if let from, occurrence.start < from { return }
            if let to, occurrence.start >= to { return }
            let key = event.start.occurrenceKey
            // No later row can start before key − 14 h: everything earlier is final.
            try buffer.emit(before: Date(timeIntervalSince1970: TimeInterval(key - EventStart.allDayEarliest)), merged)
            buffer.insert(occurrence)
        }
        try buffer.emit(before: nil, merged)
        try recurring.drain(before: nil, body)
    }

    /// Each event with a task of one of `statuses`, by start, with all its tasks (`datebook tasks`
    /// streams them instead of holding 100k events at once). The events are read in start order
    /// from `events_by_start`, filtered by their task counts where those tell (no sort of wide rows).
    public func forEachEvent(withTaskIn statuses: Set<TaskStatus>, _ body: (Event) throws -> Void) throws {
        guard !statuses.isEmpty else { return }
        let condition: String
        var values: [SQLValue] = []
        switch statuses {
        case Set(TaskStatus.allCases): condition = "e.task_count > 0"
        case [.todo, .doing]: condition = "e.open_count > 0"
        case [.done]: condition = "e.task_count > e.open_count"
        default:
            values = statuses.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) }
            condition = "EXISTS (SELECT 1 FROM tasks x WHERE x.event_id = e.id AND x.status IN ("
                + values.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + "))"
        }
        try stream(where: condition, values, order: "e.start_key, e.id", body)
    }
}

/// Occurrences waiting until no later row can sort before them.
///
/// Rows arrive ordered by key; only all-day and floating events can start up to 14 h before their
/// key, so the buffer holds about a day's rows. Arrivals are appended unsorted and sorted (with
/// the rest still waiting, already sorted: Swift's sort merges the two runs) only when one of them
/// may be emitted. Sorting on insertion instead was quadratic when many rows share a start (10,000
/// alerts due at one moment: each insert compared titles back through all the others).
struct ReorderBuffer<Item: EventListing> {
    /// Sorted from `head`; emitted before `head`.
    private var items: [OccurrenceOf<Item>] = []
    private var head = 0
    /// Not yet sorted in, and the earliest start among them.
    private var arrivals: [OccurrenceOf<Item>] = []
    private var earliestArrival: Date?

    mutating func insert(_ occurrence: OccurrenceOf<Item>) {
        arrivals.append(occurrence)
        earliestArrival = min(earliestArrival ?? occurrence.start, occurrence.start)
    }

    /// Passes on, in order, every item starting before `limit` (all of them when nil).
    mutating func emit(before limit: Date?, _ body: (OccurrenceOf<Item>) throws -> Void) throws {
        // Arrivals that all start at or after `limit` sort after everything emitted now.
        if let earliest = earliestArrival, limit.map({ earliest < $0 }) ?? true {
            items.removeFirst(head)
            head = 0
            items += arrivals
            items.sort(by: OccurrenceOf.chronological)
            arrivals.removeAll(keepingCapacity: true)
            earliestArrival = nil
        }
        while head < items.count {
            if let limit, items[head].start >= limit { break }
            try body(items[head])
            head += 1
        }
        if head > 256, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
