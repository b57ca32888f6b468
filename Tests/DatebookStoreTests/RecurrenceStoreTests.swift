import DatebookCore
@testable import DatebookICal
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

struct RecurrenceStoreTests {
    let berlin = utcCalendar("Europe/Berlin")

    func berlinTime(_ day: Int, _ month: Int, _ hour: Int) -> Date {
        berlin.date(from: DateComponents(year: 2026, month: month, day: day, hour: hour)) ?? Date()
    }

    func weekly(_ id: String, from start: Date, rule: String = "FREQ=WEEKLY") -> Event {
        Event(id: id, title: "Weekly \(id)", start: .instant(start), timeZone: "Europe/Berlin", symbol: .star,
              color: .red, recurrence: rule)
    }

    func occurrences(_ store: any PlannerStore, _ from: Date?, _ to: Date?) throws -> [Occurrence] {
        var seen: [Occurrence] = []
        try store.forEachOccurrence(from: from, to: to, calendar: berlin) { seen.append($0) }
        return seen
    }

    /// Materialised rows and on-the-fly expansion must agree, and merge with one-off events in order.
    @Test(arguments: [true, false], Backend.allCases)
    func recurringOccurrencesMergeChronologicallyInsideAndOutsideTheHorizon(insideHorizon: Bool, backend: Backend) throws {
        let store = try backend.open()
        let now = berlinTime(20, 10, 9)
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400),
                                               end: now.addingTimeInterval(92 * 86_400))
        try store.save([
            weekly("aaaa000000000001", from: berlinTime(5, 10, 9)),
            weekly("aaaa000000000002", from: berlinTime(6, 10, 8), rule: "FREQ=DAILY;INTERVAL=3"),
            event("bbbb000000000001", .instant(berlinTime(27, 10, 12))),
            event("bbbb000000000002", .allDay(CalendarDate(year: 2026, month: 11, day: 2))),
        ])
        let from = insideHorizon ? now : berlinTime(1, 3, 0).addingTimeInterval(366 * 86_400)
        let to = from.addingTimeInterval(30 * 86_400)
        let seen = try occurrences(store, from, to)
        #expect(seen == seen.sorted(by: Occurrence.chronological))
        let weeklyStarts = seen.filter { $0.event.id.hasSuffix("1") && $0.event.recurrence != nil }.map(\.start)
        #expect(weeklyStarts.count >= 4)
        for start in weeklyStarts {
            #expect(LocalTime(start, in: berlin.timeZone).hour == 9, "09:00 local on both sides of DST")
            #expect(start >= from && start < to)
        }
        #expect(seen.filter { $0.event.id.hasPrefix("bbbb") }.count == (insideHorizon ? 2 : 0))
    }

    /// Listings read recurring summaries in one pass over their covering index; they must list the same
    /// occurrences as the full path: inside the horizon, beyond it, and for an event with no span yet.
    /// (The spanless event, a row as SQLite's schema 1 wrote it, on SQLite only.)
    @Test(arguments: [0, 40, 200, -30], Backend.allCases)
    func listingSummariesAgreeWithFullEvents(daysFromNow: Int, backend: Backend) throws {
        let store = try backend.open()
        let now = berlinTime(20, 10, 9)
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400),
                                               end: now.addingTimeInterval(92 * 86_400))
        var tasked = weekly("aaaa000000000003", from: berlinTime(7, 10, 18))
        tasked.tasks = [EventTask(id: "t", text: "prepare", status: .todo)]
        try store.save([
            weekly("aaaa000000000001", from: berlinTime(5, 10, 9)),
            weekly("aaaa000000000002", from: berlinTime(6, 10, 8), rule: "FREQ=DAILY;INTERVAL=3"),
            tasked,
            weekly("aaaa000000000004", from: berlinTime(1, 6, 7), rule: "FREQ=MONTHLY;COUNT=3"),
            event("bbbb000000000001", .instant(berlinTime(27, 10, 12))),
        ])
        // A recurring event written before spans existed (schema 1): no occurrences, no span.
        try (store as? Store)?.db.execute("""
            INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color, recurrence)
            VALUES ('cccc000000000001', 'Legacy weekly', \(Int64(berlinTime(8, 10, 10).timeIntervalSince1970)), 0,
                    'Europe/Berlin', 'star', 'red', 'FREQ=WEEKLY')
            """)
        let from = now.addingTimeInterval(Double(daysFromNow) * 86_400)
        let to = from.addingTimeInterval(30 * 86_400)
        var full: [String] = []
        var listed: [String] = []
        try store.forEachOccurrence(from: from, to: to, calendar: berlin) {
            full.append("\($0.event.id) \($0.start) \($0.event.badge)")
        }
        try store.forEachOccurrenceSummary(from: from, to: to, calendar: berlin) {
            listed.append("\($0.event.id) \($0.start) \($0.event.badge)")
        }
        #expect(listed == full)
        #expect(full.contains { $0.hasPrefix("cccc000000000001") } == (backend == .sqlite), "the spanless event is expanded on the fly")
        #expect(full.contains { $0.hasPrefix("aaaa000000000003") && $0.hasSuffix(" 1") }, "badges come from the summary")
    }

    /// SQLite only: its recurrence spans (`spanEnds`).
    @Test func movingTheHorizonReMaterialisesOnlyStaleEvents() throws {
        let store = try Store(path: temporaryDirectory() + "/m.sqlite3")
        let now = berlinTime(20, 10, 9)
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
        try store.save([weekly("ffff000000000001", from: berlinTime(5, 10, 9)),
                        weekly("ffff000000000002", from: berlinTime(5, 10, 9), rule: "FREQ=WEEKLY;COUNT=3")])
        #expect(try store.extendRecurrenceHorizon() == 0)
        let later = now.addingTimeInterval(80 * 86_400)
        store.recurrenceHorizon = DateInterval(start: later.addingTimeInterval(-7 * 86_400), end: later.addingTimeInterval(92 * 86_400))
        #expect(try store.extendRecurrenceHorizon() == 2)
        #expect(try store.spanEnds().allSatisfy { $0 > Int64(later.timeIntervalSince1970) + 90 * 86_400 })
        let window = try occurrences(store, later, later.addingTimeInterval(30 * 86_400))
        #expect(window.count >= 4 && window.allSatisfy { $0.event.id.hasSuffix("1") })
    }

    /// Occurrences an older datebook materialised for a rule it expanded wrongly (libical 3.0
    /// ignored BYSETPOS: the Tuesdays too) are made again the first time the store is opened for
    /// writing, and the event is queued so the next pass looks back for its alerts; once only.
    @Test(arguments: Backend.allCases)
    func occurrencesAnOlderExpansionMadeAreMadeAgainOnce(_ backend: Backend) throws {
        let store = try #require(try backend.open() as? any SQLStore)
        let now = berlinTime(20, 10, 9)
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
        // Friday 2 October 2026, and each week's last of Tuesday and Friday after it.
        let retro = weekly("eeee000000000001", from: berlinTime(2, 10, 16), rule: "FREQ=WEEKLY;BYDAY=TU,FR;BYSETPOS=-1")
        try store.save([retro, weekly("eeee000000000002", from: berlinTime(2, 10, 16))])
        _ = try store.changedEvents(taking: true)
        try store.run("INSERT INTO occurrences (event_id, start_key) VALUES ($1, $2)", .text(retro.id),
                      .integer(Int64(berlinTime(20, 10, 16).timeIntervalSince1970)))
        try store.run("DELETE FROM meta WHERE name = 'expansion'")  // as a store an older datebook wrote
        #expect(try store.extendRecurrenceHorizon() == 1)
        #expect(try store.changedEvents(taking: true) == [retro.id])
        let starts = try occurrences(store, berlinTime(1, 10, 0), berlinTime(1, 12, 0)).filter { $0.event.id == retro.id }
        #expect(starts.count == 9 && starts.allSatisfy { berlin.component(.weekday, from: $0.start) == 6 }, "\(starts)")
        #expect(try store.extendRecurrenceHorizon() == 0)
        #expect(try store.changedEvents(taking: true).isEmpty)
        // A store at version 2 (before BYWEEKNO, BYYEARDAY and a DAILY rule's BYDAY ordinals were read
        // by datebook): those rules alone.
        let weeks = weekly("eeee000000000003", from: berlinTime(1, 10, 9), rule: "FREQ=YEARLY;BYWEEKNO=44,45")
        let fridays = weekly("eeee000000000004", from: berlinTime(2, 10, 9), rule: "FREQ=DAILY;BYDAY=-1FR;COUNT=3")
        try store.save([weeks, fridays])
        _ = try store.changedEvents(taking: true)
        for event in [weeks, fridays] {
            try store.run("DELETE FROM occurrences WHERE event_id = $1 AND start_key > $2", .text(event.id),
                          .integer(Int64(berlinTime(2, 10, 9).timeIntervalSince1970)))
        }
        try store.run("UPDATE meta SET value = 2 WHERE name = 'expansion'")
        #expect(try store.extendRecurrenceHorizon() == 2)
        #expect(try store.changedEvents(taking: true) == [weeks.id, fridays.id])
        let made = try occurrences(store, berlinTime(1, 10, 0), berlinTime(1, 12, 0))
        let thursdays = made.filter { $0.event.id == weeks.id }
        #expect(thursdays.map { berlin.component(.day, from: $0.start) } == [1, 29, 5], "\(thursdays)")
        #expect(made.filter { $0.event.id == fridays.id }.map { berlin.component(.day, from: $0.start) } == [2, 9, 16])
    }

    @Test(arguments: Backend.allCases)
    func editingARecurringEventReplacesItsOccurrences(_ backend: Backend) throws {
        let store = try backend.open()
        var meeting = weekly("cccc000000000001", from: berlinTime(5, 10, 9))
        try store.save(meeting)
        meeting.recurrence = "FREQ=WEEKLY;COUNT=2"
        try store.save(meeting)
        #expect(try occurrences(store, berlinTime(1, 10, 0), berlinTime(1, 12, 0)).count == 2)
        meeting.recurrence = nil
        try store.save(meeting)
        #expect(try occurrences(store, berlinTime(1, 10, 0), berlinTime(1, 12, 0)).count == 1)
        try store.delete(id: meeting.id)
        #expect(try occurrences(store, nil, nil).isEmpty)
    }

    @Test(arguments: ["FREQ=SECONDLY", "FREQ=MINUTELY", "FREQ=DAILY;INTERVAL=0", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"], Backend.allCases)
    func hostileRulesYieldOnlyTheFirstStartQuickly(rule: String, backend: Backend) throws {
        let store = try backend.open()
        let started = Date()
        try store.save(weekly("dddd000000000001", from: berlinTime(5, 10, 9), rule: rule))
        let seen = try occurrences(store, nil, nil)
        #expect(seen.count == 1)
        #expect(RecurrenceExpander.problem(rule: rule) != nil)
        #expect(Date().timeIntervalSince(started) < 30)  // unbounded, these expand for minutes
    }

    @Test(arguments: Backend.allCases)
    func hourlyRuleIsCappedPerEventPerWindow(_ backend: Backend) throws {
        let store = try backend.open()
        try store.save(weekly("eeee000000000001", from: berlinTime(5, 10, 9), rule: "FREQ=HOURLY"))
        let from = berlinTime(1, 1, 0).addingTimeInterval(400 * 86_400)
        let seen = try occurrences(store, from, from.addingTimeInterval(60 * 86_400))
        // The cap applies to the key window, which starts 12 hours early (all-day slack).
        #expect(seen.count <= RecurrenceExpander.cap)
        #expect(seen.count >= RecurrenceExpander.cap - 12)
    }

    /// A rule that reaches the cap keeps a span over the whole horizon: no later command expands it
    /// again (its span used to end at the last key, so every `add` and `tick` re-expanded it), and
    /// the cut is read back for `show` and `status`. SQLite only: its recurrence spans (`spanEnds`).
    @Test func aCappedRuleIsMaterialisedOnceAndReportedAsTruncated() throws {
        let store = try Store(path: temporaryDirectory() + "/t.sqlite3")
        let now = berlinTime(20, 10, 9)
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
        let hourly = weekly("abcd000000000001", from: berlinTime(5, 10, 9), rule: "FREQ=HOURLY")
        let plain = weekly("abcd000000000002", from: berlinTime(5, 10, 9))
        try store.save([hourly, plain])
        #expect(try store.extendRecurrenceHorizon() == 0)
        let ends = try store.spanEnds()
        #expect(ends.count == 2 && ends[0] == ends[1])
        let limit = try #require(try store.recurrenceLimit(of: hourly))
        #expect(limit.refusal == nil)
        // 1,000 hours from the horizon's start (less the 12-hour slack for all-day events).
        let first = now.addingTimeInterval(-7 * 86_400 - 12 * 3_600)
        #expect(limit.lastKept == .instant(Date(timeIntervalSince1970: (first.timeIntervalSince1970 / 3_600).rounded(.up) * 3_600
                                                                      + 999 * 3_600)))
        #expect(try store.recurrenceLimit(of: plain) == nil)
        #expect(try store.recurrenceLimits().map(\.eventID) == [hourly.id])
        let refused = weekly("abcd000000000003", from: berlinTime(5, 10, 9), rule: "FREQ=SECONDLY")
        try store.save(refused)
        #expect(try store.recurrenceLimits().map(\.eventID) == [hourly.id, refused.id])
        #expect(try store.recurrenceLimit(of: refused)?.refusal?.hasPrefix("FREQ=SECONDLY is refused") == true)
    }

    @Test func recurrenceTextRoundTripsExceptionDates() {
        let text = "FREQ=WEEKLY;BYDAY=MO\nRDATE:20261201T100000Z\nEXDATE:20261102T080000Z\nEXDATE;VALUE=DATE:20261109"
        let parsed = RecurrenceText(text)
        #expect(parsed.rule == "FREQ=WEEKLY;BYDAY=MO")
        #expect(parsed.rdates.count == 1)
        #expect(parsed.exdates.count == 2)
        #expect(RecurrenceText(parsed.text) == parsed)
    }
}
