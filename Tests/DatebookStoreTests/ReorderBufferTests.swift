import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The agenda stream's reorder buffer (Store+Agenda.swift) against a plain sort of the same
/// occurrences: many events sharing a start, all-day and floating events beside zoned ones.
struct ReorderBufferTests {
    static let day = CalendarDate(year: 2026, month: 12, day: 2)

    /// 600 events: 200 share one instant (titles out of id order: "Due 10" sorts before "Due 9"),
    /// the others all-day, floating and zoned over three days, some with equal titles.
    static func events() -> [Event] {
        var events: [Event] = []
        let shared = ISOInstant.parse("2026-12-02T10:00:00Z") ?? .distantPast
        for n in 0..<200 {
            var due = event(String(format: "s%05d", n), .instant(shared))
            due.title = "Due \(n)"
            events.append(due)
        }
        for n in 0..<400 {
            let date = CalendarDate(dayNumber: day.dayNumber + n % 3 - 1)
            let start: EventStart
            switch n % 4 {
            case 0: start = .allDay(date)
            case 1: start = .floating(FloatingTime(date: date, hour: n % 24, minute: n % 60))
            default:
                start = .instant(Date(timeIntervalSince1970: TimeInterval(date.dayNumber * 86_400 + (n * 611) % 86_400)))
            }
            var other = event(String(format: "m%05d", n), start)
            other.title = n % 5 == 0 ? "Same" : "Title \(n % 37)"
            events.append(other)
        }
        return events
    }

    @Test(arguments: ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Berlin"], Backend.allCases)
    func streamsInTheOrderOfAPlainSort(zone: String, backend: Backend) throws {
        let store = try backend.open()
        try store.save(Self.events())
        let calendar = utcCalendar(zone)
        let windows: [(Date?, Date?)] = [
            (nil, nil),
            (ISOInstant.parse("2026-12-01T12:00:00Z"), ISOInstant.parse("2026-12-02T18:00:00Z")),
        ]
        for (from, to) in windows {
            var streamed: [Occurrence] = []
            try store.forEachOccurrence(from: from, to: to, calendar: calendar) { streamed.append($0) }
            let expected = Self.events().map { Occurrence(event: $0, calendar: calendar) }
                .filter { occurrence in
                    (from.map { occurrence.start >= $0 } ?? true) && (to.map { occurrence.start < $0 } ?? true)
                }
                .sorted(by: Occurrence.chronological)
            #expect(streamed.count == expected.count)
            #expect(streamed.map(\.event.id) == expected.map(\.event.id))
            #expect(streamed.map(\.start) == expected.map(\.start))
        }
    }

    /// The buffer alone, fed in key order with an emit before each insert as the store does.
    @Test func emitsEachOccurrenceOnceInChronologicalOrder() throws {
        let calendar = utcCalendar("Asia/Tokyo")
        let occurrences = Self.events().map { Occurrence(event: $0, calendar: calendar) }
        let byKey = Self.events().sorted { ($0.start.occurrenceKey, $0.id) < ($1.start.occurrenceKey, $1.id) }
        var buffer = ReorderBuffer<Event>()
        var emitted: [Occurrence] = []
        for event in byKey {
            let limit = Date(timeIntervalSince1970: TimeInterval(event.start.occurrenceKey - EventStart.allDayEarliest))
            try buffer.emit(before: limit) { emitted.append($0) }
            buffer.insert(Occurrence(event: event, calendar: calendar))
        }
        try buffer.emit(before: nil) { emitted.append($0) }
        #expect(emitted.map(\.event.id) == occurrences.sorted(by: Occurrence.chronological).map(\.event.id))
    }
}
