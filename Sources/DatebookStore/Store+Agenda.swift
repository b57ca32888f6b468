import DatebookCore
import Foundation

extension Store {
    /// How far an all-day event's real start can lie from its key (midnight UTC): zones span UTC−12…UTC+14.
    static let allDayEarliest: Int64 = 14 * 3600
    static let allDayLatest: Int64 = 12 * 3600

    /// Occurrences starting in `[from, to)` (open bounds when nil), in chronological order, streamed.
    ///
    /// One indexed range query on `start_key`, widened by the span of UTC offsets so all-day events
    /// are caught; a small reorder buffer then emits exact chronological order without loading the
    /// whole range. Never reads events outside the window.
    public func forEachOccurrence(from: Date?, to: Date?, calendar: Calendar, _ body: (Occurrence) throws -> Void) throws {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let from {
            conditions.append("e.start_key >= ?")
            values.append(.integer(Int64(from.timeIntervalSince1970.rounded(.down)) - Self.allDayLatest))
        }
        if let to {
            conditions.append("e.start_key < ?")
            values.append(.integer(Int64(to.timeIntervalSince1970.rounded(.up)) + Self.allDayEarliest))
        }
        var pending: [Occurrence] = []
        func flush(before limit: Date?) throws {
            guard !pending.isEmpty else { return }
            pending.sort(by: Occurrence.chronological)
            var emitted = 0
            for occurrence in pending {
                if let limit, occurrence.start >= limit { break }
                try body(occurrence)
                emitted += 1
            }
            pending.removeFirst(emitted)
        }
        try stream(where: conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values,
                   order: "e.start_key, e.id, t.position") { event in
            let occurrence = Occurrence(event: event, calendar: calendar)
            if let from, occurrence.start < from { return }
            if let to, occurrence.start >= to { return }
            let (key, _) = Self.key(event.start)
            // No later row can start before key − 14 h: everything earlier is final.
            let safe = Date(timeIntervalSince1970: TimeInterval(key - Self.allDayEarliest))
            if pending.count > 64 { try flush(before: safe) }
            pending.append(occurrence)
        }
        try flush(before: nil)
    }

    /// The agenda of the given periods for `boundaries.now`.
    public func agenda(boundaries: PeriodBoundaries, calendar: Calendar, periods: [Period] = Period.allCases) throws -> Agenda {
        var occurrences: [Occurrence] = []
        for period in periods {
            let range = boundaries.range(of: period)
            try forEachOccurrence(from: range.from, to: range.to, calendar: calendar) { occurrences.append($0) }
        }
        return Agenda(occurrences: occurrences, boundaries: boundaries, periods: periods)
    }

    /// Tasks with the given statuses, each with its event, ordered by status then event start.
    public func tasks(statuses: [TaskStatus]) throws -> [(task: EventTask, event: Event)] {
        let marks = statuses.map { _ in "?" }.joined(separator: ", ")
        var result: [(EventTask, Event)] = []
        let wanted = Set(statuses)
        try stream(where: "e.id IN (SELECT event_id FROM tasks WHERE status IN (\(marks)))",
                   statuses.map { .text($0.rawValue) }, order: "e.start_key, e.id, t.position") { event in
            for task in event.tasks where wanted.contains(task.status) { result.append((task, event)) }
        }
        return result
    }
}
