/// What a listing row shows of an event: the agenda (`list`), `cal`, the digest's counts.
///
/// Both a whole `Event` and an `EventSummary` are listings, so the code that prints or counts rows
/// takes either; only an `Event` can be saved.
public protocol EventListing: Sendable, Hashable {
    var id: String { get }
    var title: String { get }
    var start: EventStart { get }
    var symbol: Symbol { get }
    var color: EventColor { get }
    /// Tasks that are not done; shown as the event's badge.
    var badge: Int { get }
    /// The event has tasks and all of them are done.
    var isComplete: Bool { get }
}

extension EventListing {
    /// The short id shown by `list` (like git's abbreviated hashes).
    public var shortID: String { String(id.prefix(EventID.shortLength)) }
}

/// An event as a listing row reads it from the store: no time zone, notes, alerts, rule or
/// tasks, only how many tasks there are and how many are open. It has no way back to an `Event`,
/// so it cannot be saved in place of one; `Store.event(id:)` loads the whole event.
public struct EventSummary: EventListing, Identifiable {
    public let id: String
    public let title: String
    /// The event's (first) start; an occurrence carries its own instant.
    public let start: EventStart
    public let symbol: Symbol
    public let color: EventColor
    public let tasks: TaskCounts

    public init(id: String, title: String, start: EventStart, symbol: Symbol, color: EventColor, tasks: TaskCounts) {
        self.id = id
        self.title = title
        self.start = start
        self.symbol = symbol
        self.color = color
        self.tasks = tasks
    }

    /// The summary of a whole event.
    public init(_ event: Event) {
        self.init(id: event.id, title: event.title, start: event.start, symbol: event.symbol, color: event.color,
                  tasks: TaskCounts(total: event.tasks.count, open: event.badge))
    }

    public var badge: Int { tasks.open }
    public var isComplete: Bool { tasks.total > 0 && tasks.open == 0 }
}
