import Foundation

/// One dated instance of an event, whole (`Occurrence`) or as a listing reads it (`OccurrenceSummary`).
public struct OccurrenceOf<Item: EventListing>: Sendable, Hashable {
    public var event: Item
    /// The resolved start instant (all-day events: midnight in the user's zone).
    public var start: Date
    /// The recurrence rule, when this row stands for its whole series: Future lists each series
    /// once, at its next occurrence, and Past once, at its last, beyond the last year (`repeats …`).
    public var series: String?

    public init(event: Item, start: Date, series: String? = nil) {
        self.event = event
        self.start = start
        self.series = series
    }

    public init(event: Item, calendar: Calendar) {
        self.init(event: event, start: event.start.resolved(in: calendar))
    }
}

/// An occurrence of a whole event: alerts, `show`, `list --json`, the digest's rows.
public typealias Occurrence = OccurrenceOf<Event>
/// An occurrence as a listing row reads it: `list`, `cal`, the digest's counts.
public typealias OccurrenceSummary = OccurrenceOf<EventSummary>

extension OccurrenceOf where Item == Event {
    /// The listing form of this occurrence.
    public var summary: OccurrenceSummary { OccurrenceSummary(event: EventSummary(event), start: start, series: series) }
}

/// The occurrences of one period, sorted by start, with the period's total of open tasks; as
/// listing summaries, which is all an agenda shows.
public struct AgendaSection: Sendable, Equatable {
    public var period: Period
    public var occurrences: [OccurrenceSummary]

    public var openTasks: Int { occurrences.reduce(0) { $0 + $1.event.badge } }
}

/// Occurrences grouped by period, in the order Next 7 Days, Next 30 Days, Future, Past.
public struct Agenda: Sendable, Equatable {
    public var sections: [AgendaSection]

    /// Groups `occurrences` by period relative to `boundaries.now`; empty periods are left out.
    public init(occurrences: [OccurrenceSummary], boundaries: PeriodBoundaries, periods: [Period] = Period.allCases) {
        var buckets: [Period: [OccurrenceSummary]] = [:]
        for occurrence in occurrences {
            let period = boundaries.period(of: occurrence.start)
            guard periods.contains(period) else { continue }
            buckets[period, default: []].append(occurrence)
        }
        sections = Period.allCases.compactMap { period in
            guard let items = buckets[period], !items.isEmpty else { return nil }
            return AgendaSection(period: period, occurrences: items.sorted(by: OccurrenceSummary.chronological))
        }
    }

    public var openTasks: Int { sections.reduce(0) { $0 + $1.openTasks } }
}

extension OccurrenceOf {
    /// Sort order inside a period: by start, then title, then id, so output is stable.
    public static func chronological(_ a: Self, _ b: Self) -> Bool {
        if a.start != b.start { return a.start < b.start }
        if a.event.title != b.event.title { return a.event.title < b.event.title }
        return a.event.id < b.event.id
    }
}
