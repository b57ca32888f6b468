import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Floating events in the store: keyed by their wall clock read as UTC (`all_day` = 2 since
/// schema 9), and read in the zone of the calendar a query is given.
struct FloatingStoreTests {
    static let breakfast = FloatingTime(date: CalendarDate(year: 2026, month: 12, day: 2), hour: 9, minute: 30)

    static func instant(_ text: String) -> Date { ISOInstant.parse(text) ?? .distantPast }

    static func store(_ backend: Backend) throws -> any PlannerStore {
        let store = try backend.open()
        var weekly = event("weekly", .floating(FloatingTime(date: CalendarDate(year: 2026, month: 10, day: 19), hour: 8, minute: 0)))
        weekly.recurrence = "FREQ=WEEKLY;COUNT=4\nEXDATE:20261102T080000"
        try store.save([event("breakfast", .floating(breakfast), tasks: [.todo]), weekly,
                        event("zoned", .instant(instant("2026-12-02T08:00:00Z")))])
        return store
    }

    @Test(arguments: Backend.allCases)
    func aFloatingEventIsReadBackAsFloating(_ backend: Backend) throws {
        let store = try Self.store(backend)
        #expect(try store.event(id: "breakfast")?.start == .floating(Self.breakfast))
    }

    /// Every query path (agenda stream, listing summaries, digest window, totals, probe, recurring
    /// expansion) reads 09:30 in the zone it is given.
    @Test(arguments: [("Europe/Berlin", "2026-12-02T08:30:00Z"), ("Asia/Tokyo", "2026-12-02T00:30:00Z"),
                      ("Pacific/Kiritimati", "2026-12-01T19:30:00Z"), ("Pacific/Pago_Pago", "2026-12-02T20:30:00Z")],
          Backend.allCases)
    func everyQueryReadsTheWallClockTimeInTheCallersZone(place: (String, String), backend: Backend) throws {
        let (zone, expected) = place
        let store = try Self.store(backend)
        let calendar = utcCalendar(zone)
        let at = Self.instant(expected)
        for summaries in [false, true] {
            var found: [Date] = []
            var before: [String] = []
            if summaries {
                try store.forEachOccurrenceSummary(from: at, to: at.addingTimeInterval(1), calendar: calendar) {
                    if $0.event.id == "breakfast" { found.append($0.start) }
                }
                try store.forEachOccurrenceSummary(from: at.addingTimeInterval(-3600), to: at, calendar: calendar) { before.append($0.event.id) }
            } else {
                try store.forEachOccurrence(from: at, to: at.addingTimeInterval(1), calendar: calendar) {
                    if $0.event.id == "breakfast" { found.append($0.start) }
                }
                try store.forEachOccurrence(from: at.addingTimeInterval(-3600), to: at, calendar: calendar) { before.append($0.event.id) }
            }
            #expect(found == [at])
            #expect(!before.contains("breakfast"))
        }
        let first = try store.firstOccurrences(from: at, to: at.addingTimeInterval(1), calendar: calendar, limit: 5,
                                               onlyOpen: false, singleOnly: false, newest: false)
        #expect(first.map(\.event.id) == ["breakfast"])
        #expect(try store.totals(from: at, to: at.addingTimeInterval(1), calendar: calendar, singleOnly: false, cap: .max).events == 1)
        #expect(try store.totals(from: at.addingTimeInterval(1), to: at.addingTimeInterval(86_400), calendar: calendar, singleOnly: false, cap: .max).events
                == (zone == "Asia/Tokyo" || zone == "Pacific/Kiritimati" ? 1 : 0), "the zoned event at 08:00Z")
        #expect(try store.hasOccurrence(from: at.addingTimeInterval(-1), to: at.addingTimeInterval(1), calendar: calendar))
        #expect(try !store.hasOccurrence(from: at.addingTimeInterval(1), to: at.addingTimeInterval(3600), calendar: calendar))
    }

    @Test(arguments: ["Europe/Berlin", "America/New_York", "Asia/Tokyo"], Backend.allCases)
    func aRecurringFloatingEventStaysAtItsWallClockTimeAcrossDST(zone: String, backend: Backend) throws {
        let store = try Self.store(backend)
        let calendar = utcCalendar(zone)
        var starts: [String] = []
        try store.forEachOccurrenceSummary(from: Self.instant("2026-10-01T00:00:00Z"), to: Self.instant("2026-12-01T00:00:00Z"),
                                           calendar: calendar) {
            if $0.event.id == "weekly" { starts.append(LocalTime($0.start, in: calendar.timeZone).listFormat) }
        }
        #expect(starts == ["Mon 2026-10-19 08:00", "Mon 2026-10-26 08:00", "Mon 2026-11-09 08:00"])
        var expanded: [Date] = []
        try store.expandRecurringEvents(from: Self.instant("2026-10-01T00:00:00Z"), to: Self.instant("2026-12-01T00:00:00Z"),
                                        calendar: calendar, include: { _ in true }) { expanded += $1; return true }
        #expect(expanded.map { LocalTime($0, in: calendar.timeZone).listFormat } == starts)
    }

    /// Schema 9 changes no table: a store of schema 8 is upgraded with its events as they were.
    @Test func schemaEightUpgradesWithItsEvents() throws {
        let path = temporaryDirectory() + "/v8.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute(Store.migrations[0..<8].joined(separator: ";\n") + "; PRAGMA user_version = 8")
            try raw.execute("""
                INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color)
                    VALUES ('t', 'Timed', 1796200000, 0, 'UTC', 'star.fill', 'red'), ('d', 'Day', 1796169600, 1, 'UTC', 'star.fill', 'red')
                """)
        }
        let store = try Store(path: path)
        #expect(try store.userVersion() == Store.schemaVersion)
        #expect(try store.event(id: "t")?.start == .instant(Date(timeIntervalSince1970: 1_796_200_000)))
        #expect(try store.event(id: "d")?.start == .allDay(CalendarDate(dayNumber: 1_796_169_600 / 86_400)))
        try store.save(event("f", .floating(Self.breakfast)))
        #expect(try store.event(id: "f")?.start == .floating(Self.breakfast))
    }
}
