import DatebookCore
import Foundation

/// The sections of a digest, in the order they are shown.
public enum DigestSectionKind: String, Sendable, CaseIterable {
    case overdue, today, next7, next30, future

    public var title: String {
        switch self {
        case .overdue: "Overdue"
        case .today: "Today"
        case .next7: Period.next7.title
        case .next30: Period.next30.title
        case .future: Period.future.title
        }
    }
}

/// Which time windows a digest reads, and how many occurrences of each it shows.
///
/// The digest shows only the first few occurrences of each window and counts the rest, so
/// its cost follows what is shown, not the store's size.
/// - Today: from now to the next midnight.
/// - Next 7 Days: the rest of the period (Today is not repeated).
/// - Next 30 Days, Future: the periods of DESIGN.md; `days` below 30 ends the listing early
///   and everything after it counts as Future.
/// - Overdue: occurrences in the `lookBackDays` before now that still have open tasks, the most
///   recent `sectionLimit` of them; the rest are counted ("and 12,345 more").
public struct DigestPlan: Sendable {
    /// One section's half-open range of start instants `[from, to)` (nil: open) and how many to show.
    public struct Window: Sendable {
        public var kind: DigestSectionKind
        public var from: Date?
        public var to: Date?
        public var limit: Int
        /// Only occurrences with open tasks (Overdue).
        public var onlyOpen: Bool
        /// Show the last `limit` occurrences instead of the first (Overdue: the most recent).
        public var newest: Bool = false
    }

    public static let defaultDays = 30
    public static let defaultLookBackDays = 90
    public static let defaultSectionLimit = 20
    public static let defaultFutureLimit = 5

    public let now: Date
    public let windows: [Window]
    /// The first and next month's first day of the calendar grid (the month of `now`).
    public let month: (first: CalendarDate, next: CalendarDate)

    public init(now: Date, calendar: Calendar, days: Int = defaultDays, lookBackDays: Int = defaultLookBackDays,
                sectionLimit: Int = defaultSectionLimit, futureLimit: Int = defaultFutureLimit) {
        self.now = now
        func add(_ n: Int, to date: Date) -> Date {
            calendar.date(byAdding: .day, value: n, to: date) ?? date.addingTimeInterval(TimeInterval(n * 86_400))
        }
        let boundaries = PeriodBoundaries(now: now, calendar: calendar)
        let horizon = min(add(max(1, days), to: now), boundaries.thirtyDays)
        let today = CalendarDate(now, in: calendar.timeZone)
        let midnight = CalendarDate(dayNumber: today.dayNumber + 1).start(in: calendar)
        func clip(_ date: Date) -> Date { min(date, horizon) }
        windows = [
            Window(kind: .overdue, from: add(-lookBackDays, to: now), to: now, limit: sectionLimit, onlyOpen: true, newest: true),
            Window(kind: .today, from: now, to: clip(midnight), limit: sectionLimit, onlyOpen: false),
            Window(kind: .next7, from: clip(midnight), to: clip(boundaries.sevenDays), limit: sectionLimit, onlyOpen: false),
            Window(kind: .next30, from: clip(boundaries.sevenDays), to: horizon, limit: sectionLimit, onlyOpen: false),
            Window(kind: .future, from: horizon, to: nil, limit: futureLimit, onlyOpen: false),
        ].filter { window in
            guard let from = window.from, let to = window.to else { return true }
            return from < to
        }
        let next = today.month == 12 ? CalendarDate(year: today.year + 1, month: 1, day: 1)
            : CalendarDate(year: today.year, month: today.month + 1, day: 1)
        month = (CalendarDate(year: today.year, month: today.month, day: 1), next)
    }
}

/// What the store returned for one window: the first occurrences and the window's totals.
public struct DigestWindowResult: Sendable {
    public var kind: DigestSectionKind
    public var occurrences: [Occurrence]
    /// All occurrences in the window, shown or not.
    public var total: Int
    /// Open tasks of all occurrences in the window.
    public var openTasks: Int
    /// True when counting stopped at a cap: `total` and `openTasks` are lower bounds.
    public var capped: Bool

    public init(kind: DigestSectionKind, occurrences: [Occurrence], total: Int, openTasks: Int, capped: Bool = false) {
        self.kind = kind
        self.occurrences = occurrences
        self.total = total
        self.openTasks = openTasks
        self.capped = capped
    }
}

/// Everything a digest is made from, gathered by the caller (the CLI reads it from the store).
public struct DigestInput: Sendable {
    public var now: Date
    public var calendar: Calendar
    public var windows: [DigestWindowResult]
    /// Day numbers (1…31) of the grid's month that have at least one occurrence.
    public var eventDays: Set<Int>
    /// Occurrences and open tasks from now to the end of the 7-day period, for the summary line.
    public var week: (events: Int, openTasks: Int)
    /// True when counting the week stopped at a cap: `week`'s numbers are lower bounds.
    public var weekCapped: Bool
    /// The to-do lists with open to-dos (`Event.isTaskList`), on no date: shown after the periods.
    public var taskLists: [Event] = []

    public init(now: Date, calendar: Calendar, windows: [DigestWindowResult], eventDays: Set<Int>,
                week: (events: Int, openTasks: Int), weekCapped: Bool = false) {
        self.now = now
        self.calendar = calendar
        self.windows = windows
        self.eventDays = eventDays
        self.week = week
        self.weekCapped = weekCapped
    }

    /// Builds the input from occurrences held in memory (tests, small planners).
    public init(occurrences: [Occurrence], plan: DigestPlan, calendar: Calendar) {
        let sorted = occurrences.sorted(by: Occurrence.chronological)
        func inWindow(_ o: Occurrence, _ from: Date?, _ to: Date?) -> Bool {
            (from.map { o.start >= $0 } ?? true) && (to.map { o.start < $0 } ?? true)
        }
        windows = plan.windows.map { window in
            let all = sorted.filter { inWindow($0, window.from, window.to) && (!window.onlyOpen || $0.event.badge > 0) }
            let shown = window.newest ? all.suffix(window.limit) : all.prefix(window.limit)
            return DigestWindowResult(kind: window.kind, occurrences: Array(shown), total: all.count,
                                      openTasks: all.reduce(0) { $0 + $1.event.badge })
        }
        let first = plan.month.first.start(in: calendar), next = plan.month.next.start(in: calendar)
        eventDays = Set(sorted.filter { inWindow($0, first, next) }.map { CalendarDate($0.start, in: calendar.timeZone).day })
        let seven = PeriodBoundaries(now: plan.now, calendar: calendar).sevenDays
        let week = sorted.filter { inWindow($0, plan.now, seven) }
        self.week = (week.count, week.reduce(0) { $0 + $1.event.badge })
        weekCapped = false
        now = plan.now
        self.calendar = calendar
    }
}
