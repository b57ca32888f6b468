import DatebookCore
import Foundation
import Testing

struct FloatingTimeTests {
    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .gmt
        return calendar
    }

    static func time(_ text: String) -> FloatingTime? { FloatingTime(iso: text) }

    /// Read in a zone, a floating time is the instant showing that wall clock there; in a skipped
    /// hour it moves on by the gap, in a repeated hour it is the first (as Foundation and libical).
    @Test(arguments: [
        ("2026-12-02T09:30", "Europe/Berlin", "2026-12-02T08:30:00Z"),
        ("2026-12-02T09:30", "Asia/Tokyo", "2026-12-02T00:30:00Z"),
        ("2026-12-02T09:30", "America/Los_Angeles", "2026-12-02T17:30:00Z"),
        ("2026-03-29T02:30", "Europe/Berlin", "2026-03-29T01:30:00Z"),
        ("2026-10-25T02:30", "Europe/Berlin", "2026-10-25T00:30:00Z"),
        ("2026-11-01T01:30", "America/New_York", "2026-11-01T05:30:00Z"),
        ("2026-03-08T02:15", "America/New_York", "2026-03-08T07:15:00Z"),
        ("2026-10-04T02:10", "Australia/Lord_Howe", "2026-10-03T15:40:00Z"),
    ])
    func resolvesInTheGivenZone(text: String, zone: String, expected: String) throws {
        let time = try #require(Self.time(text))
        #expect(ISOInstant.format(time.resolved(in: Self.calendar(zone))) == expected)
        #expect(EventStart.floating(time).resolved(in: Self.calendar(zone)) == time.resolved(in: Self.calendar(zone)))
    }

    /// The occurrence key of each kind of start (the store's `start_key`, the scheduler's look-up of
    /// an alert's occurrence): zone-free, an instant's second rounded down, before 1970 too.
    @Test func occurrenceKeysAreZoneFreeSecondsOfEachKindOfStart() throws {
        let ninePast = try #require(Self.time("2026-12-02T09:30"))
        let cases: [(EventStart, Int64)] = [
            (.instant(Date(timeIntervalSince1970: 1_796_030_000.9)), 1_796_030_000),
            (.instant(Date(timeIntervalSince1970: -0.5)), -1),
            (.allDay(CalendarDate(dayNumber: 20_789)), 20_789 * 86_400),
            (.floating(ninePast), ninePast.wallSeconds),
        ]
        for (start, key) in cases { #expect(start.occurrenceKey == key, "\(start)") }
        #expect(ninePast.wallSeconds == 1_796_203_800)  // 2026-12-02T09:30 read as UTC
    }

    @Test func readsAndWritesItsPlannerForm() throws {
        #expect(Self.time("2026-12-02T09:30")?.description == "2026-12-02T09:30")
        #expect(Self.time("2026-12-02T09:30:05")?.description == "2026-12-02T09:30:05")
        #expect(Self.time("2026-12-02T09:30")?.wallClock.listFormat == "Wed 2026-12-02 09:30")
        for bad in ["2026-12-02", "2026-12-02T09:30Z", "2026-12-02T09:30:00+01:00", "2026-12-02T24:00", "2026-02-30T09:00",
                    "2026-12-02T9:30", "2026-12-02 09:30"] {
            #expect(Self.time(bad) == nil, "\(bad)")
        }
    }

    @Test func theWallClockOfAnInstantIsWhatItShowsInTheZone() {
        let instant = Date(timeIntervalSince1970: 1_796_200_000)
        let tokyo = FloatingTime(instant, in: TimeZone(identifier: "Asia/Tokyo") ?? .gmt)
        #expect(tokyo.resolved(in: Self.calendar("Asia/Tokyo")) == instant)
        #expect(tokyo.wallClock == LocalTime(instant, in: TimeZone(identifier: "Asia/Tokyo") ?? .gmt))
    }

    @Test func anEndMustBeFloatingLikeItsStart() throws {
        let start = try #require(Self.time("2026-12-02T09:30"))
        var event = Event(id: "e1", title: "Breakfast", start: .floating(start), end: .instant(Date(timeIntervalSince1970: 1_796_200_000)),
                          timeZone: "UTC", symbol: .star, color: .red)
        let rules = EventValidation(ruleProblem: { _ in nil })
        #expect(rules.problems(event).map(\.message) == ["expected a floating time (YYYY-MM-DDTHH:MM) like the start, got an instant"])
        event.end = .floating(try #require(Self.time("2026-12-02T09:00")))
        #expect(rules.problems(event).map(\.message) == ["the end 2026-12-02T09:00 is before the start 2026-12-02T09:30"])
        event.end = .floating(try #require(Self.time("2026-12-02T10:00")))
        #expect(rules.problems(event).isEmpty)
        event.start = .floating(FloatingTime(wallSeconds: Int64(CalendarDate(year: 3001, month: 1, day: 1).dayNumber) * 86_400))
        event.end = nil
        #expect(rules.problems(event).map(\.message) == ["the time 3001-01-01T00:00 is out of range (years 1–3000)"])
    }
}
