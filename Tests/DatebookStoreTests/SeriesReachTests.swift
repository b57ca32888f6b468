import DatebookCore
@testable import DatebookICal
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

private let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

private func yearly(_ id: String, _ title: String, at start: Date, rule: String = "FREQ=YEARLY") -> Event {
    Event(id: id, title: title, start: .instant(start), timeZone: "Europe/Berlin", symbol: .star, color: .indigo, recurrence: rule)
}

private func instant(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text))
}

/// Recurring events at any distance (issue 26): the open periods list each series once, however
/// far its occurrence, on both backends and whatever the materialised window.
struct SeriesReachTests {
    /// The store as the CLI opens it: occurrences materialised for now − 7 days … now + 92 days.
    static func open(_ backend: Backend) throws -> any PlannerStore {
        let store = try backend.open()
        store.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
        return store
    }

    static func period(_ period: Period, _ store: any PlannerStore, _ calendar: Calendar) throws -> [OccurrenceSummary] {
        let range = PeriodBoundaries(now: now, calendar: calendar).range(of: period)
        var found: [OccurrenceSummary] = []
        try store.forEachOccurrenceSummary(from: range.from, to: range.to, calendar: calendar) { found.append($0) }
        return found
    }

    @Test(arguments: Backend.allCases)
    func futureShowsAYearlySeriesOnceHoweverFarItsFirstOccurrence(_ backend: Backend) throws {
        let calendar = utcCalendar("Europe/Berlin")
        let store = try Self.open(backend)
        // First occurrences 2, 10 and 100 years ahead (the old reach stopped at about 390 days).
        let starts = [try instant("2028-12-01T09:00:00Z"), try instant("2036-12-01T09:00:00Z"), try instant("2126-12-01T09:00:00Z")]
        try store.save([yearly("a0000002", "In two years", at: starts[0]), yearly("a0000010", "In ten years", at: starts[1]),
                        yearly("a0000100", "In a century", at: starts[2]),
                        Event(id: "a0000003", title: "One-off", start: .instant(starts[0]), timeZone: "Europe/Berlin",
                              symbol: .star, color: .indigo)])
        let future = try Self.period(.future, store, calendar)
        #expect(future.map(\.event.id) == ["a0000002", "a0000003", "a0000010", "a0000100"])
        #expect(future.map(\.start) == [starts[0], starts[0], starts[1], starts[2]])
        #expect(future.map(\.series) == ["FREQ=YEARLY", nil, "FREQ=YEARLY", "FREQ=YEARLY"])
    }

    @Test(arguments: Backend.allCases)
    func futureShowsAWeeklySeriesOnceAndTheNearPeriodsEveryOccurrence(_ backend: Backend) throws {
        let calendar = utcCalendar("Europe/Berlin")
        let store = try Self.open(backend)
        let first = try instant("2026-12-02T09:00:00Z")
        try store.save([yearly("b0000001", "Standup", at: first, rule: "FREQ=WEEKLY")])
        #expect(try Self.period(.next7, store, calendar).count == 1)
        #expect(try Self.period(.next30, store, calendar).count == 3)
        let future = try Self.period(.future, store, calendar)
        #expect(future.map(\.start) == [try instant("2026-12-30T09:00:00Z")])
        #expect(future.first?.series == "FREQ=WEEKLY")
    }

    @Test(arguments: Backend.allCases)
    func pastShowsASeriesThatEndedYearsAgoByItsLastOccurrence(_ backend: Backend) throws {
        let calendar = utcCalendar("Europe/Berlin")
        let store = try Self.open(backend)
        // Ended two and five years ago; a third goes on and shows every occurrence of the last year.
        try store.save([yearly("c0000002", "Ended two years ago", at: try instant("2020-01-06T17:00:00Z"),
                               rule: "FREQ=WEEKLY;UNTIL=20241125T170000Z"),
                        yearly("c0000005", "Ended five years ago", at: try instant("2011-03-01T17:00:00Z"),
                               rule: "FREQ=DAILY;UNTIL=20211130T170000Z"),
                        yearly("c0000009", "Goes on", at: try instant("2025-06-02T07:00:00Z"), rule: "FREQ=MONTHLY")])
        let past = try Self.period(.past, store, calendar)
        let ended = past.filter { $0.event.id != "c0000009" }
        #expect(ended.map(\.event.id) == ["c0000005", "c0000002"])
        #expect(ended.map(\.start) == [try instant("2021-11-30T17:00:00Z"), try instant("2024-11-25T17:00:00Z")])
        #expect(ended.allSatisfy { $0.series != nil })
        let goesOn = past.filter { $0.event.id == "c0000009" }
        #expect(goesOn.count == 12)
        #expect(goesOn.allSatisfy { $0.series == nil })
    }

    @Test func theFirstAndLastOccurrenceAreFoundAtAnyDistanceAndForDenseRules() throws {
        let calendar = utcCalendar("UTC")
        let start = EventStart.instant(try instant("2000-01-01T00:00:00Z"))
        #expect(SeriesReach.first(start: start, timeZone: "UTC", recurrence: "FREQ=DAILY", atOrAfter: try instant("2126-05-05T12:00:00Z"),
                                  calendar: calendar) == (try instant("2126-05-06T00:00:00Z")))
        // Hourly for ten years: more than `RecurrenceExpander.cap` in any window the search tries.
        #expect(SeriesReach.last(start: start, timeZone: "UTC", recurrence: "FREQ=HOURLY;UNTIL=20100101T000000Z",
                                 before: try instant("2026-01-01T00:00:00Z"), calendar: calendar) == (try instant("2010-01-01T00:00:00Z")))
        #expect(SeriesReach.first(start: start, timeZone: "UTC", recurrence: "FREQ=DAILY;COUNT=3", atOrAfter: try instant("2001-01-01T00:00:00Z"),
                                  calendar: calendar) == nil)
        let day = EventStart.allDay(CalendarDate(year: 2001, month: 7, day: 4))
        #expect(SeriesReach.first(start: day, timeZone: "UTC", recurrence: "FREQ=YEARLY", atOrAfter: try instant("2036-07-04T00:00:01Z"),
                                  calendar: calendar) == (try instant("2037-07-04T00:00:00Z")))
    }
}
