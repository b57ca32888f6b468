import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The digest's scan of a window (`firstOccurrences`) asks for a page of rows at a time, so that
/// PostgreSQL walks the index instead of sorting the window; a page too small for the rows the
/// scan needs is asked again, larger. Any page gives the unlimited scan's answer.
struct DigestScanTests {
    /// 60 events a day at 6 instants (ten share each start, so the limit cuts inside a tie, where
    /// the ids decide), every other one with an open task, and an all-day event each day, whose
    /// start lies 9 h before its key in Tokyo.
    static func events(base: Date, calendar: Calendar) -> [Event] {
        var events: [Event] = []
        for day in 0..<4 {
            for n in 0..<60 {
                let start = base.addingTimeInterval(TimeInterval(day * 86_400 + (n % 6) * 3_600))
                events.append(Event(id: String(format: "e%02d%02d", day, (n * 37) % 60), title: "Same", start: .instant(start),
                                    timeZone: "Asia/Tokyo", symbol: .star, color: .red,
                                    tasks: [EventTask(id: "t", text: "x", status: n.isMultiple(of: 2) ? .todo : .done)]))
            }
            let date = CalendarDate(base.addingTimeInterval(TimeInterval(day * 86_400)), in: calendar.timeZone)
            events.append(Event(id: "day\(day)", title: "All day", start: .allDay(date), timeZone: "Asia/Tokyo", symbol: .star, color: .red,
                                tasks: [EventTask(id: "t", text: "x")]))
        }
        return events
    }

    @Test(arguments: Backend.allCases)
    func anyPageGivesTheUnlimitedScansRows(_ backend: Backend) throws {
        func scan(_ store: some SQLStore, _ from: Date?, _ to: Date?, _ calendar: Calendar, limit: Int, onlyOpen: Bool, newest: Bool,
                  page: Int64) throws -> [String] {
            try store.firstOccurrences(from: from, to: to, calendar: calendar, limit: limit, onlyOpen: onlyOpen, singleOnly: true,
                                       newest: newest, page: page).map { "\($0.event.id)@\($0.start.timeIntervalSince1970)" }
        }
        let store = try #require(try backend.open() as? any SQLStore)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let base = Date(timeIntervalSince1970: 1_800_003_600)
        try store.save(Self.events(base: base, calendar: calendar), progress: { _ in })
        let windows: [(Date?, Date?)] = [(nil, nil), (base.addingTimeInterval(-86_400), base.addingTimeInterval(2 * 86_400)),
                                         (base.addingTimeInterval(7_200), nil), (nil, base.addingTimeInterval(3 * 86_400 + 7_200))]
        var compared = 0
        for (from, to) in windows {
            for (limit, onlyOpen, newest) in [(5, false, false), (15, true, true), (25, false, true), (100, true, false)] {
                let plain = try scan(store, from, to, calendar, limit: limit, onlyOpen: onlyOpen, newest: newest, page: .max)
                #expect(plain.count == limit || (onlyOpen && limit == 100 && !plain.isEmpty))
                for page: Int64 in [1, 3, 16, Store.firstOccurrencesPage] {
                    let paged = try scan(store, from, to, calendar, limit: limit, onlyOpen: onlyOpen, newest: newest, page: page)
                    #expect(paged == plain, "page \(page), limit \(limit), newest \(newest), window \(String(describing: from))…\(String(describing: to))")
                    compared += 1
                }
            }
        }
        #expect(compared == 64)
    }
}
