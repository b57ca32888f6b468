import DatebookCore
@testable import DatebookICal
@testable import DatebookStore
import Foundation
import Testing

/// `SeriesReach.first` answers from a series' own start where `SeriesStart` says nothing can move
/// it, and by expansion otherwise: both must give what the expansion alone gives.
struct SeriesStartTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let start: EventStart
        let zone: String
        let rule: String
        /// Seconds from the start's instant (in `calendar`) to the `from` asked about.
        let from: TimeInterval
        /// Whether the answer may come from the start.
        let certain: Bool
        var calendarZone = "Europe/Berlin"

        var testDescription: String { name }
    }

    private static func at(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    static let cases: [Case] = [
        Case(name: "weekly, asked a month before", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY", from: -30 * 86_400, certain: true),
        Case(name: "weekly, asked at its start", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY;BYDAY=MO", from: 0, certain: true),
        Case(name: "weekly, asked a second after its start", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY", from: 1, certain: true),
        Case(name: "start off the rule's weekdays", start: .instant(at("2027-06-08T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY;BYDAY=MO,FR", from: -86_400, certain: true),
        Case(name: "COUNT=3", start: .instant(at("2027-06-07T07:00:00Z")), zone: "America/New_York",
             rule: "FREQ=DAILY;COUNT=3", from: -86_400, certain: true),
        Case(name: "refused SECONDLY rule", start: .instant(at("2027-06-07T07:00:00Z")), zone: "UTC",
             rule: "FREQ=SECONDLY", from: -86_400, certain: true),
        Case(name: "hourly in New York", start: .instant(at("2027-03-14T05:30:00Z")), zone: "America/New_York",
             rule: "FREQ=HOURLY;INTERVAL=2", from: -3_600, certain: true),
        Case(name: "all-day yearly, asked in Tokyo", start: .allDay(CalendarDate(year: 2028, month: 2, day: 29)), zone: "UTC",
             rule: "FREQ=YEARLY", from: -1, certain: true, calendarZone: "Asia/Tokyo"),
        Case(name: "all-day, asked a second late in Honolulu", start: .allDay(CalendarDate(year: 2027, month: 1, day: 4)),
             zone: "UTC", rule: "FREQ=MONTHLY", from: 1, certain: true, calendarZone: "Pacific/Honolulu"),
        Case(name: "floating daily", start: .floating(FloatingTime(date: CalendarDate(year: 2027, month: 3, day: 28), hour: 2, minute: 30)),
             zone: "Europe/Berlin", rule: "FREQ=DAILY", from: -60, certain: true),
        Case(name: "EXDATE on the start", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY\nEXDATE:20270607T070000Z", from: -86_400, certain: false),
        Case(name: "RDATE before the start", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY\nRDATE:20270601T070000Z", from: -10 * 86_400, certain: false),
        Case(name: "EXRULE", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=DAILY\nEXRULE:FREQ=WEEKLY;BYDAY=MO", from: -86_400, certain: false),
        Case(name: "UNTIL before the start", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY;UNTIL=20270101T000000Z", from: -86_400, certain: false),
        Case(name: "COUNT=0", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=WEEKLY;COUNT=0", from: -86_400, certain: false),
        Case(name: "RRULE: prefix, lower case", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "RRULE:freq=weekly;count=2", from: -86_400, certain: true),
        Case(name: "lower-case count=0", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "freq=weekly;count=0", from: -86_400, certain: false),
        Case(name: "an RDATE line alone, indented", start: .instant(at("2027-06-07T07:00:00Z")), zone: "Europe/Berlin",
             rule: "  RDATE:20270601T070000Z", from: -10 * 86_400, certain: false),
        // 03:30 CEST, just after the clocks went forward: the offset changed, the wall-clock time is not a repeat.
        Case(name: "start just after clocks go forward", start: .instant(at("2027-03-28T01:30:00Z")), zone: "Europe/Berlin",
             rule: "FREQ=DAILY", from: -3_600, certain: true),
        // 02:30 CET, the second 02:30 of the night: the expansion's wall-clock walk names the first.
        Case(name: "start in the hour repeated when clocks go back", start: .instant(at("2026-10-25T01:30:00Z")),
             zone: "Europe/Berlin", rule: "FREQ=DAILY", from: -7_200, certain: false),
    ]

    @Test(arguments: cases)
    func firstOccurrenceIsTheExpansionsAnswer(_ example: Case) throws {
        let calendar = utcCalendar(example.calendarZone)
        let from = example.start.resolved(in: calendar).addingTimeInterval(example.from)
        let expanded = SeriesReach.expandedFirst(start: example.start, timeZone: example.zone, recurrence: example.rule,
                                                 atOrAfter: from, calendar: calendar)
        let answered = SeriesReach.first(start: example.start, timeZone: example.zone, recurrence: example.rule,
                                         atOrAfter: from, calendar: calendar)
        #expect(answered == expanded)
        // Where the answer may come from the start, there is one: else the comparison says nothing.
        if example.certain { #expect(expanded != nil) }
        let certain = SeriesStart.certainFirstKey(start: example.start, timeZone: example.zone, recurrence: example.rule)
        #expect((certain != nil) == example.certain)
    }
}
