import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

private func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }

/// `firstSeries` (the digest's Future, read from the materialised occurrences and stopped early)
/// gives the first rows of the plain path, `forEachRecurringOccurrence(from:to: nil)`, which looks
/// at every series; and says it cannot answer where the rows do not hold the answer.
struct FirstSeriesTests {
    static let now = utc("2026-12-01T09:00:00Z")
    static let from = utc("2026-12-31T00:00:00Z")

    /// Series whose next occurrences after `from` interleave: timed ones in three zones, all-day ones
    /// (which start at midnight in the reader's zone, up to 14 h from their key), ties on one start
    /// told apart by title, a daily one, and some the rows cannot hold: a yearly one next occurring
    /// past the horizon, one starting after it, one that ended.
    func store(_ backend: Backend) throws -> (any PlannerStore, Calendar) {
        let calendar = utcCalendar("Europe/Berlin")
        let store = try backend.open()
        store.recurrenceHorizon = Store.standardHorizon(now: Self.now)
        var events: [Event] = []
        func add(_ title: String, _ start: EventStart, _ zone: String, _ rule: String, open: Int = 1) {
            let tasks = (0..<open).map { EventTask(id: "t\($0)", text: "Task \($0)") }
            events.append(Event(id: "fs-" + EventID.stable(title), title: title, start: start, timeZone: zone, symbol: .star, color: .primary,
                                tasks: tasks, recurrence: rule))
        }
        for n in 0..<12 {
            add("Weekly \(n)", .instant(utc("2026-11-02T08:00:00Z").addingTimeInterval(Double(n) * 7_200)), "Europe/Berlin", "FREQ=WEEKLY", open: n % 3)
            add("Tokyo \(n)", .instant(utc("2026-11-03T23:30:00Z").addingTimeInterval(Double(n) * 3_600)), "Asia/Tokyo", "FREQ=WEEKLY")
            add("Day off \(n)", .allDay(CalendarDate(year: 2026, month: 11, day: 2 + n % 7)), "Europe/Berlin", "FREQ=WEEKLY", open: 2)
        }
        // Ties: one start, titles in another order than the ids.
        for title in ["Zeta", "Alpha", "Mu", "Beta"] {
            add(title, .instant(utc("2026-11-30T23:00:00Z")), "America/New_York", "FREQ=WEEKLY")
        }
        add("Daily", .instant(utc("2026-11-20T06:00:00Z")), "UTC", "FREQ=DAILY")
        add("Review", .instant(utc("2026-09-10T10:00:00Z")), "Europe/Berlin", "FREQ=YEARLY")
        add("Launch", .instant(utc("2027-06-01T07:00:00Z")), "Europe/Berlin", "FREQ=WEEKLY")
        add("Course", .instant(utc("2026-10-05T17:00:00Z")), "Europe/Berlin", "FREQ=WEEKLY;UNTIL=20261116T170000Z")
        try store.save(events)
        return (store, calendar)
    }

    func plain(_ store: any PlannerStore, _ calendar: Calendar, from: Date) throws -> [String] {
        var all: [String] = []
        try store.forEachRecurringOccurrence(from: from, to: nil, calendar: calendar) { all.append(Self.line($0)) }
        return all
    }

    static func line(_ occurrence: OccurrenceSummary) -> String {
        "\(occurrence.event.title) \(occurrence.start.timeIntervalSince1970) open \(occurrence.event.badge) \(occurrence.series ?? "-")"
    }

    @Test(arguments: Backend.allCases)
    func theFirstSeriesAreThePlainPathsFirstRows(_ backend: Backend) throws {
        let (store, calendar) = try store(backend)
        for from in [Self.from, Self.now, utc("2027-01-03T22:30:00Z"), utc("2026-12-06T23:00:00Z")] {
            let all = try plain(store, calendar, from: from)
            // 43 series go on past `from`; the last two lie past the horizon, beyond any row.
            #expect(all.count == 43, "\(all)")
            #expect(all.suffix(2).allSatisfy { $0.hasPrefix("Launch") || $0.hasPrefix("Review") }, "\(all)")
            for count in 1...41 {
                let first = try #require(try store.firstSeries(atOrAfter: from, calendar: calendar, count: count), "count \(count) from \(from)")
                #expect(first.map(Self.line) == Array(all.prefix(count)), "count \(count) from \(from)")
            }
            // Asked for more than the rows hold: the yearly and the later series may come first among the rest.
            #expect(try store.firstSeries(atOrAfter: from, calendar: calendar, count: all.count) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func withoutRowsThatHoldTheAnswerItSaysSo(_ backend: Backend) throws {
        let (store, calendar) = try store(backend)
        // Past the spans' end, and before their start.
        #expect(try store.firstSeries(atOrAfter: utc("2027-06-01T00:00:00Z"), calendar: calendar, count: 1) == nil)
        #expect(try store.firstSeries(atOrAfter: utc("2026-10-01T00:00:00Z"), calendar: calendar, count: 1) == nil)
        // A store with no horizon materialises each series from its own start.
        store.recurrenceHorizon = nil
        #expect(try store.firstSeries(atOrAfter: Self.from, calendar: calendar, count: 1) == nil)
    }
}
