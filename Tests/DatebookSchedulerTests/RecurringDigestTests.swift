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
            try digest.readFuture(window, singles: 0, cap: DigestQuery.countCap, store: h.store, calendar: h.calendar)
        }
        var lines = DigestSectionKind.allCases.compactMap { kind in
            digest.windows[kind].map { window in
                "\(kind): \(window.count) events, \(window.openTasks) open: "
                    + window.shown.map { "\($0.event.title) \($0.start.timeIntervalSince1970)" }.joined(separator: ", ")
            }
        }
        lines.append("days \(digest.monthDays.sorted()), week \(digest.week.events) / \(digest.week.openTasks)")
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
}
