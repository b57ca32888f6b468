import DatebookCore
import DatebookRender
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// `RecurringDigest` reads each series' next occurrence once a digest: Overdue's check that a series
/// goes on takes Future's read. The plain path asks the store apart; both must give the same digest.
struct RecurringDigestTests {
    static let now = utc("2026-12-01T09:00:00Z")

    /// Series of every shape Overdue and Future tell apart: ended with open tasks, going on inside the
    /// horizon, going on only past it (yearly, and a COUNT whose last falls in Future), starting after it.
    func harness() throws -> Harness {
        let h = try Harness(zone: "Europe/Berlin")
        h.store.recurrenceHorizon = Store.standardHorizon(now: Self.now)
        let open = [EventTask(id: "t", text: "Notes")]
        let series: [(String, String, String)] = [
            ("Course", "2026-10-05T17:00:00Z", "FREQ=WEEKLY;UNTIL=20261116T170000Z"),
            ("Standup", "2026-11-02T08:30:00Z", "FREQ=WEEKLY"),
            ("Evening class", "2026-10-06T18:00:00Z", "FREQ=WEEKLY;UNTIL=20261208T180000Z"),
            ("Review", "2026-09-10T10:00:00Z", "FREQ=YEARLY"),
            ("Rent", "2026-09-15T07:00:00Z", "FREQ=MONTHLY;COUNT=5"),
            ("Old series", "2026-09-20T07:00:00Z", "FREQ=DAILY;COUNT=3"),
            ("Launch", "2027-06-01T07:00:00Z", "FREQ=WEEKLY"),
        ]
        for (title, start, rule) in series {
            try h.store.save(Event(id: EventID.stable(title), title: title, start: .instant(utc(start)), timeZone: "Europe/Berlin",
                                   symbol: .star, color: .primary, tasks: open, recurrence: rule))
        }
        return h
    }

    /// What a digest takes from `RecurringDigest`: each window's rows, count and open tasks, the month's days and the week.
    func read(_ h: Harness, sharingFuture: Bool) throws -> [String] {
        let plan = DigestPlan(now: Self.now, calendar: h.calendar)
        var digest = try RecurringDigest(plan: plan, store: h.store, calendar: h.calendar, sharingFuture: sharingFuture)
        for window in plan.windows where window.to == nil {
            try digest.readFuture(window, store: h.store, calendar: h.calendar)
        }
        var lines = DigestSectionKind.allCases.compactMap { kind in
            digest.windows[kind].map { window in
                "\(kind): \(window.count) events, \(window.counted.map(\.openTasks).reduce(0, +)) open: "
                    + window.shown.map { "\($0.event.title) \($0.start.timeIntervalSince1970)" }.joined(separator: ", ")
            }
        }
        lines.append("days \(digest.monthDays.sorted()), week \(digest.week.count) / \(digest.week.map(\.openTasks).reduce(0, +))")
        return lines
    }

    @Test func overdueTakingFuturesReadGivesThePlainPathsDigest() throws {
        let h = try harness()
        let shared = try read(h, sharingFuture: true)
        #expect(shared == (try read(h, sharingFuture: false)))
        // Something to compare: the ended series is overdue, the yearly one goes on in Future.
        let overdue = try #require(shared.first { $0.hasPrefix("overdue:") })
        #expect(overdue.contains("Course") && overdue.contains("Old series") && !overdue.contains("Review"), "\(shared)")
        #expect(shared.contains { $0.hasPrefix("future:") && $0.contains("Review") && $0.contains("Rent") }, "\(shared)")
    }

    /// More series than Future counts: the fast path reads the first `countCap + 1` from the
    /// materialised rows and stops; the plain one reads them all. The rows shown and the occurrences
    /// counted are the same, and those past the horizon (a yearly series) do not change that.
    @Test func futureReadsOnlyTheSeriesItCountsAndCountsThePlainPathsFirst() throws {
        let h = try Harness(zone: "Europe/Berlin")
        h.store.recurrenceHorizon = Store.standardHorizon(now: Self.now)
        let base = utc("2026-11-02T06:00:00Z")
        var events = (0..<(DigestQuery.countCap + 40)).map { n in
            Event(id: String(format: "w%04d", n), title: "Weekly \(n % 17)", start: .instant(base.addingTimeInterval(Double(n * 997 % 600_000))),
                  timeZone: "Europe/Berlin", symbol: .star, color: .primary,
                  tasks: (0..<(n % 3)).map { EventTask(id: "t\($0)", text: "Task") }, recurrence: "FREQ=WEEKLY")
        }
        events.append(Event(id: "review", title: "Review", start: .instant(utc("2026-09-10T10:00:00Z")), timeZone: "Europe/Berlin",
                            symbol: .star, color: .primary, recurrence: "FREQ=YEARLY"))
        try h.store.save(events)
        let plan = DigestPlan(now: Self.now, calendar: h.calendar)
        let future = try #require(plan.windows.first { $0.to == nil })
        var shares: [RecurringDigest.Window] = []
        for fast in [true, false] {
            var digest = try RecurringDigest(plan: plan, store: h.store, calendar: h.calendar, sharingFuture: false)
            try digest.readFuture(future, store: h.store, calendar: h.calendar, fast: fast)
            shares.append(try #require(digest.windows[.future]))
        }
        #expect(shares[0].count == DigestQuery.countCap + 1 && shares[1].count == events.count)
        #expect(shares[0].counted == shares[1].counted)
        #expect(shares[0].shown == shares[1].shown && shares[0].shown.count == future.limit)
    }

    /// A window's count stops at `countCap` for single and recurring occurrences together, taken by
    /// start, and so does the week's: 300 single events and 258 recurring occurrences in the coming
    /// week count as 500+, with the open tasks of the first 500 of both.
    @Test func aWindowCountsItsFirstOccurrencesOfBothKindsUpToTheCap() throws {
        let h = try Harness(zone: "Europe/Berlin")
        h.store.recurrenceHorizon = Store.standardHorizon(now: Self.now)
        let midnight = utc("2026-12-01T23:00:00Z")
        var events: [Event] = []
        var expected: [(start: Date, open: Int, single: Bool)] = []
        for n in 0..<300 {
            let start = midnight.addingTimeInterval(Double(n) * 1_200)
            events.append(Event(id: String(format: "s%04d", n), title: "Single \(n)", start: .instant(start), timeZone: "Europe/Berlin",
                                symbol: .star, color: .primary, tasks: [EventTask(id: "t", text: "One")]))
            expected.append((start, 1, true))
        }
        // 43 daily series from tomorrow, each with two open tasks: 6 occurrences each in Next 7 Days.
        for n in 0..<43 {
            let first = midnight.addingTimeInterval(Double(n) * 900)
            events.append(Event(id: String(format: "d%04d", n), title: "Daily \(n)", start: .instant(first), timeZone: "Europe/Berlin",
                                symbol: .star, color: .primary, tasks: [EventTask(id: "a", text: "A"), EventTask(id: "b", text: "B")],
                                recurrence: "FREQ=DAILY;COUNT=6"))
            for day in 0..<6 { expected.append((first.addingTimeInterval(Double(day) * 86_400), 2, false)) }
        }
        try h.store.save(events)
        let plan = DigestPlan(now: Self.now, calendar: h.calendar)
        let input = try DigestQuery.input(plan: plan, store: h.store, calendar: h.calendar)
        let next7 = try #require(input.windows.first { $0.kind == .next7 })
        let first = expected.enumerated().sorted { ($0.element.start, $0.element.single ? 0 : 1, $0.offset) < ($1.element.start, $1.element.single ? 0 : 1, $1.offset) }
            .prefix(DigestQuery.countCap).map(\.element.open).reduce(0, +)
        #expect(next7.total == DigestQuery.countCap && next7.capped && next7.openTasks == first, "\(next7.total) \(next7.openTasks) \(first)")
        #expect(input.week.events == DigestQuery.countCap && input.weekCapped && input.week.openTasks == first)
    }
}

