import DatebookCore
import DatebookICal
import Foundation

/// A recurring event whose occurrences are not all kept: its rule is refused, or it reaches
/// `RecurrenceExpander.cap` occurrences in the materialised window.
public struct RecurrenceLimit: Sendable, Equatable {
    public var eventID: String
    public var title: String
    /// The last occurrence kept (when the cap was reached); nil for a refused rule.
    public var lastKept: EventStart?
    /// Why the rule was refused (only its first start is used); nil when it was only capped.
    public var refusal: String?

    /// One line for `show` and `status`, with `when` formatting an occurrence for the reader.
    public func message(_ when: (EventStart) -> String) -> String {
        if let refusal { return "recurrence limited: " + refusal }
        let after = lastKept.map { "; none after " + when($0) + " is shown or alerted" } ?? ""
        return "recurrence truncated: the rule gives \(RecurrenceExpander.cap) or more occurrences in the planner's window, "
            + "the most kept per event\(after)"
    }
}

/// Events whose recurrence is cut short.
///
/// A rule that reaches the cap inside the materialised window keeps its first `cap` occurrences
/// and its span still claims the whole window (see `spanRow`): listings, `tick` and `add` never
/// expand it again, so one hostile rule costs its own occurrences and nothing else. The cut is
/// recorded by the rows themselves (`cap` of them) and read back here for `show` and `status`.
extension SQLStore {
    /// The limit on `event`'s occurrences, or nil when all of them are kept.
    public func recurrenceLimit(of event: Event) throws -> RecurrenceLimit? {
        guard let recurrence = event.recurrence else { return nil }
        if let refusal = RecurrenceExpander.problem(rule: recurrence) {
            return RecurrenceLimit(eventID: event.id, title: event.title, lastKept: nil, refusal: refusal)
        }
        return try truncated(where: "event_id = $1", [.text(event.id)]).first
    }

    /// Every event whose recurrence reached the cap, without the refused rules (one pass over the
    /// occurrence rows; what an import reports).
    public func truncatedRecurrences() throws -> [RecurrenceLimit] {
        try truncated(where: "TRUE", [])
    }

    /// Every event whose recurrence is cut short, by title (one pass over the occurrence rows).
    public func recurrenceLimits() throws -> [RecurrenceLimit] {
        var limits = try truncatedRecurrences()
        try stream(where: "e.recurrence IS NOT NULL", [], order: "e.id") { event in
            guard let recurrence = event.recurrence, let refusal = RecurrenceExpander.problem(rule: recurrence) else { return }
            limits.append(RecurrenceLimit(eventID: event.id, title: event.title, lastKept: nil, refusal: refusal))
        }
        return limits.sorted { ($0.title, $0.eventID) < ($1.title, $1.eventID) }
    }

    private func truncated(where condition: String, _ values: [SQLValue]) throws -> [RecurrenceLimit] {
        let found = try rows("""
            SELECT event_id, max(start_key) FROM occurrences WHERE \(condition)
            GROUP BY event_id HAVING count(*) >= \(RecurrenceExpander.cap)
            """, values) { ($0.text(0), $0.int64(1)) }
        return try found.compactMap { id, last in
            guard let event = try event(id: id) else { return nil }
            return RecurrenceLimit(eventID: id, title: event.title, lastKept: EventStart(key: last, like: event.start), refusal: nil)
        }
    }
}
