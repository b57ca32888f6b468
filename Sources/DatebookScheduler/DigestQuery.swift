import DatebookCore
import DatebookRender
import DatebookStore
import Foundation

/// Reads what a digest shows from the store (for `datebook digest`, `send digest` and the
/// scheduler's digests): bounded queries only, so the cost follows the
/// events shown and not the store's size.
///
/// Single events come from indexed range queries that stop after the rows shown (`firstOccurrences`)
/// or at `countCap` (`countedOccurrences`). Recurring events, when the store has any, contribute every
/// occurrence as in `list`, read once for the digest's whole reach (`RecurringDigest`). A window's
/// totals count its first `countCap` occurrences of both kinds, by start.
public enum DigestQuery {
    /// Counting stops here and the digest says "500+": each counted row costs a table lookup,
    /// and a reader learns nothing more from an exact 63,000.
    static let countCap = 500

    public static func input(plan: DigestPlan, store: any PlannerStore, calendar: Calendar) throws -> DigestInput {
        var recurring = try store.hasRecurringEvents() ? RecurringDigest(plan: plan, store: store, calendar: calendar) : nil
        // Recurring events are read apart; leaving them out of the range queries also lets these
        // run on the covering index of single events alone.
        let single = true
        // The to-do lists, read once: each window takes its due to-dos from them (one query, not one per window).
        let lists = try store.taskLists()
        var windows: [DigestWindowResult] = []
        for window in plan.windows {
            var occurrences = try store.firstOccurrences(from: window.from, to: window.to, calendar: calendar, limit: window.limit,
                                                         onlyOpen: window.onlyOpen, singleOnly: single, newest: window.newest)
            let counted = occurrences.isEmpty ? []
                : try store.countedOccurrences(from: window.from, to: window.to, calendar: calendar, onlyOpen: window.onlyOpen,
                                               singleOnly: single, cap: countCap)
            if window.to == nil {
                try recurring?.readFuture(window, store: store, calendar: calendar)
            }
            let extra = recurring?.windows[window.kind] ?? RecurringDigest.Window()
            let due = DueTask.due(in: lists, from: window.from, to: window.to, calendar: calendar).map { $0.occurrence(calendar: calendar) }
            guard !occurrences.isEmpty || extra.count > 0 || !due.isEmpty else { continue }
            if extra.count > 0 {
                occurrences = try merge(occurrences, extra.shown, window: window, store: store)
            }
            var totals = capped(counted, extra.counted)
            if !due.isEmpty {
                let all = (occurrences + due).sorted(by: Occurrence.chronological)
                occurrences = window.newest ? Array(all.suffix(window.limit)) : Array(all.prefix(window.limit))
                totals.events += due.count
                totals.openTasks += due.count
            }
            windows.append(DigestWindowResult(kind: window.kind, occurrences: occurrences, total: totals.events,
                                              openTasks: totals.openTasks, capped: totals.capped))
        }
        var eventDays = recurring?.monthDays ?? []
        var day = plan.month.first
        while day < plan.month.next {
            let next = CalendarDate(dayNumber: day.dayNumber + 1)
            if !eventDays.contains(day.day),
               try store.hasOccurrence(from: day.start(in: calendar), to: next.start(in: calendar), calendar: calendar, singleOnly: single) {
                eventDays.insert(day.day)
            }
            day = next
        }
        let sevenDays = PeriodBoundaries(now: plan.now, calendar: calendar).sevenDays
        let week = capped(try store.countedOccurrences(from: plan.now, to: sevenDays, calendar: calendar, onlyOpen: false,
                                                       singleOnly: single, cap: countCap), recurring?.week ?? [])
        var input = DigestInput(now: plan.now, calendar: calendar, windows: windows, eventDays: eventDays,
                                week: (week.events, week.openTasks), weekCapped: week.capped)
        input.taskLists = lists.filter { $0.badge > 0 }
        // The week's to-dos due: each an entry of Today or Next 7 Days, and an open task.
        let dueThisWeek = DueTask.due(in: lists, from: plan.now, to: sevenDays, calendar: calendar).count
        input.week = (input.week.events + dueThisWeek, input.week.openTasks + dueThisWeek)
        return input
    }

    /// The totals of a window's first `countCap` occurrences of both kinds, single and recurring,
    /// each counted that far (`countedOccurrences`, `RecurringDigest.Window.counted`).
    static func capped(_ single: [CountedOccurrence], _ recurring: [CountedOccurrence]) -> WindowTotals {
        WindowTotals(capping: CountedOccurrence.merged(single, recurring, limit: countCap + 1).map(\.openTasks), cap: countCap)
    }

    /// The window's single and recurring occurrences in one chronological list of at most
    /// `limit`; the recurring ones shown (listing summaries) are loaded whole (their tasks) by one
    /// read of their ids (one round trip, where one per event was 52 of a digest's 88 statements
    /// on PostgreSQL), and left out if the event is gone meanwhile.
    static func merge(_ single: [Occurrence], _ recurring: [OccurrenceSummary], window: DigestPlan.Window,
                      store: any PlannerStore) throws -> [Occurrence] {
        let all = (single.map { ($0.summary, Optional($0)) } + recurring.map { ($0, nil) })
            .sorted { OccurrenceSummary.chronological($0.0, $1.0) }
        let shown = window.newest ? Array(all.suffix(window.limit)) : Array(all.prefix(window.limit))
        let ids = shown.compactMap { summary, whole in whole == nil ? summary.event.id : nil }
        let loaded = ids.isEmpty ? [:] : try store.events(ids: ids)
        return shown.compactMap { summary, whole in
            if let whole { return whole }
            return loaded[summary.event.id].map { Occurrence(event: $0, start: summary.start, series: summary.series) }
        }
    }
}

/// The occurrences of recurring events a digest shows, read once for all its windows.
///
/// Upcoming windows list every occurrence, like `list`. Overdue lists a recurring event once, at
/// its latest occurrence in the look-back, and only when it has open tasks and does not occur
/// again, however far ahead: the tasks of a series that goes on belong to its next occurrence,
/// which is listed with them. Future lists each series once, at its next occurrence however far
/// ahead, as in `list` (`SeriesReach`).
///
/// The materialised occurrences (`recurrenceHorizon`, now − 7 days … now + 92 days) are read up
/// to the start of Future (or the month's end), then each series' next occurrence from Future's
/// start. Outside the horizon only what the digest needs is expanded, event by event: the ones
/// that may be overdue and the month's earlier days until each is marked. On 100k events of which 10k recur
/// weekly (a loaded two-core host, medians) the digest took 3.2 s with everything read for the
/// whole reach, about 200 ms with the whole horizon read at once, and about 150 ms this way;
/// `list --period next30` on the same store took 80 ms there. Future then took the first 501
/// series alone (`firstSeries`): 209 → 108 ms CPU on a quiet host, against 52 ms for `list`. Every
/// occurrence up to Future is still read (53k here); counting them with a cap in SQL would be the
/// next step.
struct RecurringDigest {
    /// One window's share: the occurrences it shows (listing summaries), how many it holds, and the
    /// first `DigestQuery.countCap + 1` of them, which its totals count.
    struct Window {
        var shown: [OccurrenceSummary] = []
        var count = 0
        var counted: [CountedOccurrence] = []
    }

    var windows: [DigestSectionKind: Window] = [:]
    /// Days (1…31) of the calendar grid's month with an occurrence.
    var monthDays = Set<Int>()
    /// The first `DigestQuery.countCap + 1` occurrences of the coming seven days.
    var week: [CountedOccurrence] = []
    /// Where the first read ended.
    private let readTo: Date
    /// Future's read (each series at its next occurrence from `from`), when Overdue's check needed it first.
    private var future: (from: Date, occurrences: [OccurrenceSummary])?

    /// The read of a store with no `recurrenceHorizon` reaches this far past Future's start.
    static let openEndedReach: TimeInterval = 366 * 86_400

    /// `sharingFuture`: Overdue's check that a series goes on takes Future's read (see below);
    /// false asks the store apart, the plain path the shared one is tested against.
    init(plan: DigestPlan, store: any PlannerStore, calendar: Calendar, sharingFuture: Bool = true) throws {
        let monthFirst = plan.month.first.start(in: calendar), monthNext = plan.month.next.start(in: calendar)
        let sevenDays = PeriodBoundaries(now: plan.now, calendar: calendar).sevenDays
        let from = ([monthFirst, plan.now] + plan.windows.compactMap(\.from)).min() ?? plan.now
        let futureFrom = plan.windows.first { $0.to == nil }?.from ?? monthNext
        let reach = max(monthNext, futureFrom.addingTimeInterval(Self.openEndedReach))
        let horizon = store.recurrenceHorizon ?? DateInterval(start: from, end: reach)
        let readFrom = max(from, horizon.start)
        let horizonEnd = max(horizon.end, readFrom)
        readTo = min(max(futureFrom, monthNext), horizonEnd)
        var overdue: [String: OccurrenceSummary] = [:]
        var goesOn = Set<String>()
        // Once every day of the month is marked, no occurrence needs its calendar day worked out.
        let monthLength = plan.month.next.dayNumber - plan.month.first.dayNumber
        try store.forEachRecurringOccurrence(from: readFrom, to: readTo, calendar: calendar) { occurrence in
            let start = occurrence.start
            if monthDays.count < monthLength, start >= monthFirst, start < monthNext {
                monthDays.insert(CalendarDate(start, in: calendar.timeZone).day)
            }
            if start >= plan.now {
                goesOn.insert(occurrence.event.id)
                if start < sevenDays, week.count <= DigestQuery.countCap {
                    week.append(CountedOccurrence(start: start, openTasks: occurrence.event.badge))
                }
            }
            // Future lists each series once, at its next occurrence (`readFuture`).
            guard let window = Self.window(of: start, in: plan), window.to != nil else { return }
            if window.onlyOpen {
                if occurrence.event.badge > 0 { overdue[occurrence.event.id] = occurrence }
            } else {
                add(occurrence, to: window)
            }
        }
        try markEarlierDays(from: monthFirst, to: min(readFrom, monthNext), store: store, calendar: calendar)
        guard let overdueWindow = plan.windows.first(where: \.onlyOpen), let overdueFrom = overdueWindow.from else { return }
        // Before the horizon: only events with open tasks that do not go on, and have no later overdue occurrence.
        try store.expandRecurringEvents(from: overdueFrom, to: min(readFrom, plan.now), calendar: calendar, onlyOpen: true,
                                        include: { !goesOn.contains($0.id) && overdue[$0.id] == nil }) { event, starts in
            if let last = starts.last { overdue[event.id] = OccurrenceSummary(event: event, start: last) }
            return true
        }
        // The few that did not occur in the first read may still occur later, however far ahead.
        let candidates = Set(overdue.keys).subtracting(goesOn)
        let after = max(readTo, plan.now)
        let futureStart = plan.windows.first { $0.to == nil }.map { $0.from ?? readTo }
        if !candidates.isEmpty, sharingFuture, let futureStart, futureStart >= plan.now, futureStart >= readFrom, futureStart <= after {
            // Future's read answers it, and is kept for Future: a series occurring at or after `after`
            // has a next occurrence at or after Future's start, and one whose next occurrence lies
            // before `after` occurred in the first read at or after now, so is no candidate. The
            // store's pass over every series (its next occurrences, the rules of those past the
            // horizon) then runs once a digest instead of twice.
            var read: [OccurrenceSummary] = []
            try store.forEachRecurringOccurrence(from: futureStart, to: nil, calendar: calendar) { read.append($0) }
            for occurrence in read where candidates.contains(occurrence.event.id) { goesOn.insert(occurrence.event.id) }
            future = (futureStart, read)
        } else if !candidates.isEmpty {
            try store.forEachRecurringOccurrence(from: after, to: nil, calendar: calendar) { occurrence in
                if candidates.contains(occurrence.event.id) { goesOn.insert(occurrence.event.id) }
            }
        }
        // Most go on: leave them out before sorting (sorting them all was 7 % of a digest on 100k).
        for occurrence in overdue.values.filter({ !goesOn.contains($0.event.id) }).sorted(by: OccurrenceSummary.chronological) {
            add(occurrence, to: overdueWindow)
        }
    }

    /// The window `start` falls in.
    static func window(of start: Date, in plan: DigestPlan) -> DigestPlan.Window? {
        plan.windows.first { window in
            (window.from.map { start >= $0 } ?? true) && (window.to.map { start < $0 } ?? true)
        }
    }

    /// Marks the grid's days in `[from, to)` (before the horizon) that have a recurring occurrence,
    /// expanding events one by one until every one of those days is marked.
    private mutating func markEarlierDays(from: Date, to: Date, store: any PlannerStore, calendar: Calendar) throws {
        guard from < to else { return }
        let first = CalendarDate(from, in: calendar.timeZone).dayNumber
        let last = CalendarDate(to.addingTimeInterval(-1), in: calendar.timeZone).dayNumber
        var unmarked = Set((first...max(first, last)).map { CalendarDate(dayNumber: $0).day }).subtracting(monthDays)
        guard !unmarked.isEmpty else { return }
        var marked = monthDays
        try store.expandRecurringEvents(from: from, to: to, calendar: calendar, include: { _ in true }) { _, starts in
            for start in starts {
                let day = CalendarDate(start, in: calendar.timeZone).day
                marked.insert(day)
                unmarked.remove(day)
            }
            return !unmarked.isEmpty
        }
        monthDays = marked
    }

    /// Future: each series once, at its next occurrence however far ahead (as in `list`), each with
    /// its rule (`OccurrenceOf.series`). Only the first `countCap + 1` series are counted, so those
    /// are all it reads when the materialised occurrences hold them (`firstSeries`); `fast` false
    /// reads every series, the plain path the other is tested against.
    mutating func readFuture(_ window: DigestPlan.Window, store: any PlannerStore, calendar: Calendar, fast: Bool = true) throws {
        let from = window.from ?? readTo
        if let future, future.from == from {
            for occurrence in future.occurrences { add(occurrence, to: window) }
            return
        }
        if fast, let first = try store.firstSeries(atOrAfter: from, calendar: calendar, count: DigestQuery.countCap + 1) {
            for occurrence in first { add(occurrence, to: window) }
            return
        }
        try store.forEachRecurringOccurrence(from: from, to: nil, calendar: calendar) { occurrence in
            add(occurrence, to: window)
        }
    }

    /// Counts `occurrence` in `window` and keeps it when it is among the ones shown; occurrences
    /// arrive in chronological order.
    private mutating func add(_ occurrence: OccurrenceSummary, to window: DigestPlan.Window) {
        // In place: a copy of the share would copy its `shown` array on every occurrence.
        windows[window.kind, default: Window()].count += 1
        if windows[window.kind, default: Window()].counted.count <= DigestQuery.countCap {
            windows[window.kind, default: Window()].counted.append(CountedOccurrence(start: occurrence.start, openTasks: occurrence.event.badge))
        }
        if windows[window.kind, default: Window()].shown.count < window.limit {
            windows[window.kind, default: Window()].shown.append(occurrence)
        } else if window.newest {
            windows[window.kind, default: Window()].shown.removeFirst()
            windows[window.kind, default: Window()].shown.append(occurrence)
        }
    }
}
