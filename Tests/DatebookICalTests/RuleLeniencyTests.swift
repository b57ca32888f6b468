import DatebookICal
import Foundation
import Testing

/// Rules other programs write that RFC 5545 does not quite allow, read for what they clearly mean
/// (issue 26): a malformed COUNT or UNTIL beside a valid one.
@Suite struct RuleLeniencyTests {
    func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    func starts(_ event: ICalEvent, zone: TimeZone) throws -> [Date] {
        try ICalRecurrence.occurrences(
            rrule: event.rrule, rdates: event.rdates, exdates: event.exdates, start: event.start, duration: 0,
            timeZone: event.timeZone(default: zone),
            window: TestSupport.window(utc("2026-01-01T00:00:00Z"), utc("2028-01-01T00:00:00Z")), cap: 1000).starts
    }

    /// Python's recurring-ical-events refuses this file ("UNTIL parameter has a bad format"), so there is
    /// no peer check; refusing the rule whole used to keep only DTSTART.
    @Test func aMalformedCountOrUntilBesideAValidOneIsDroppedWithAWarning() throws {
        let doc = try TestSupport.parse("until-bad-count.ics", zone: "UTC")
        let zone = TestSupport.zone("UTC")
        let weekly = try #require(doc.events.first { $0.uid == "until-with-bad-count" })
        #expect(weekly.rrule == "FREQ=WEEKLY;UNTIL=20261201T000000Z")
        #expect(try starts(weekly, zone: zone) == ["2026-11-02T08:00:00Z", "2026-11-09T08:00:00Z", "2026-11-16T08:00:00Z",
                                                   "2026-11-23T08:00:00Z", "2026-11-30T08:00:00Z"].map(utc))
        let daily = try #require(doc.events.first { $0.uid == "count-with-bad-until" })
        #expect(daily.rrule == "FREQ=DAILY;COUNT=3")
        #expect(try starts(daily, zone: zone) == ["2026-11-03T09:00:00Z", "2026-11-04T09:00:00Z", "2026-11-05T09:00:00Z"].map(utc))
        #expect(doc.warnings.map(\.description) == [
            "until-bad-count.ics:4: UID until-with-bad-count: RRULE COUNT=abc is malformed and was dropped; the rule ends by its UNTIL alone",
            "until-bad-count.ics:12: UID count-with-bad-until: RRULE UNTIL=2026-13-45 is malformed and was dropped; the rule ends by its COUNT alone",
        ])
    }

    /// BYDAY ordinals where RFC 5545 forbids them (outside MONTHLY and YEARLY, beside BYWEEKNO): dropped
    /// with a warning, read as dateutil reads them. libical walked nothing for `DAILY;BYDAY=-1FR` and
    /// refused `BYWEEKNO=20;BYDAY=1MO`, so only DTSTART was kept, without a word. A rule stored before
    /// (not through the parser) expands the same.
    @Test func byDayOrdinalsWhereTheyAreForbiddenAreDroppedWithAWarning() throws {
        let text = TestSupport.calendar("""
            BEGIN:VEVENT\r\nUID:fridays\r\nDTSTART:20260102T090000Z\r\nRRULE:FREQ=DAILY;BYDAY=-1FR,1FR;COUNT=3\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:week20\r\nDTSTART:20260511T090000Z\r\nRRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=1MO;COUNT=2\r\nEND:VEVENT\r
            BEGIN:VEVENT\r\nUID:kept\r\nDTSTART:20260105T090000Z\r\nRRULE:FREQ=MONTHLY;BYDAY=1MO;COUNT=2\r\nEND:VEVENT\r\n
            """)
        let doc = try TestSupport.parse(text: text, zone: "UTC")
        let zone = TestSupport.zone("UTC")
        #expect(doc.events.map(\.rrule) == ["FREQ=DAILY;BYDAY=FR;COUNT=3", "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=2",
                                            "FREQ=MONTHLY;BYDAY=1MO;COUNT=2"])
        #expect(doc.warnings.map(\.message) == [
            "RRULE BYDAY=-1FR,1FR has ordinals, which RFC 5545 forbids with FREQ=DAILY; read as BYDAY=FR",
            "RRULE BYDAY=1MO has ordinals, which RFC 5545 forbids with BYWEEKNO; read as BYDAY=MO",
        ])
        #expect(try starts(doc.events[0], zone: zone) == ["2026-01-02T09:00:00Z", "2026-01-09T09:00:00Z", "2026-01-16T09:00:00Z"].map(utc))
        #expect(try starts(doc.events[1], zone: zone) == ["2026-05-11T09:00:00Z", "2027-05-17T09:00:00Z"].map(utc))
        var stored = doc.events[0]
        stored.rrule = "FREQ=DAILY;BYDAY=-1FR;COUNT=3"
        #expect(try starts(stored, zone: zone) == ["2026-01-02T09:00:00Z", "2026-01-09T09:00:00Z", "2026-01-16T09:00:00Z"].map(utc))
    }

    /// Only a malformed part is dropped: two valid ends stay refused (RFC 5545 forbids both), and a lone bad
    /// COUNT or UNTIL bounds nothing, so the rule is refused as before.
    @Test(arguments: [
        ("FREQ=WEEKLY;UNTIL=20261201T000000Z;COUNT=3", nil),
        ("FREQ=WEEKLY;UNTIL=20261201;COUNT=0", "COUNT=0"),
        ("FREQ=WEEKLY;UNTIL=20261201T250000Z;COUNT=4", "UNTIL=20261201T250000Z"),
        ("FREQ=WEEKLY;UNTIL=20261201T000000;COUNT=-2", "COUNT=-2"),
        ("FREQ=WEEKLY;COUNT=abc", nil),
        ("FREQ=WEEKLY;UNTIL=soon", nil),
        ("FREQ=WEEKLY;UNTIL=soon;COUNT=many", nil),
    ] as [(String, String?)])
    func onlyAMalformedEndBesideAValidOneIsDropped(rule: String, dropped: String?) throws {
        let doc = try TestSupport.parse(text: TestSupport.calendar("""
            BEGIN:VEVENT
            UID:end
            DTSTART:20261102T090000Z
            RRULE:\(rule)
            END:VEVENT

            """))
        let event = try #require(doc.events.first)
        let warning = doc.warnings.first { $0.message.contains("was dropped") }
        #expect(warning?.message.hasPrefix("RRULE \(dropped ?? "") is malformed") ?? (dropped == nil))
        #expect((event.rrule != rule) == (dropped != nil))
    }
}

/// RFC 7529's RSCALE: yearly rules in other calendars, whose months the Gregorian range check does not fit.
@Suite struct NonGregorianRuleTests {
    /// The Gregorian day of `day` `month` in `year` of `calendar`, as UTC midnight; nil when that year lacks
    /// the month (Foundation's Hebrew month 6 is Adar I, which only leap years have).
    static func gregorian(_ calendar: Calendar.Identifier, year: Int, month: Int, day: Int) -> Date? {
        var other = Calendar(identifier: calendar)
        other.timeZone = TestSupport.zone("UTC")
        guard let date = other.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let back = other.dateComponents([.year, .month, .day], from: date)
        // Foundation moves a month a year lacks into the next one: not a date of that year.
        return back.year == year && back.month == month && back.day == day ? date : nil
    }

    static func ymd(_ date: Date) -> String {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = TestSupport.zone("UTC")
        let c = gregorian.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    func expand(rule: String, first: Date, years: Int) throws -> (starts: [Date], warnings: [String]) {
        let doc = try TestSupport.parse(text: TestSupport.calendar("""
            BEGIN:VEVENT
            UID:other-calendar
            DTSTART;VALUE=DATE:\(Self.ymd(first))
            RRULE:\(rule)
            SUMMARY:A day of another calendar
            END:VEVENT

            """), zone: "UTC")
        let event = try #require(doc.events.first)
        let zone = TestSupport.zone("UTC")
        let result = try ICalRecurrence.occurrences(
            rrule: event.rrule, rdates: [], exdates: [], start: event.start, duration: 86_400, timeZone: zone,
            window: DateInterval(start: first, end: first.addingTimeInterval(Double(years) * 365.25 * 86_400)), cap: 1000)
        return (result.starts, doc.warnings.map(\.message) + [result.warning].compactMap { $0 })
    }

    /// Pagumē, the Ethiopic thirteenth month (five or six days in early September).
    @Test func anEthiopicThirteenthMonthRecursEveryYear() throws {
        let firstYear = 2019  // Ethiopic year 2019 begins in September 2026
        let expected = (0..<8).compactMap { Self.gregorian(.ethiopicAmeteMihret, year: firstYear + $0, month: 13, day: 1) }
        #expect(expected.count == 8)
        let first = try #require(expected.first)
        let result = try expand(rule: "RSCALE=ETHIOPIC;FREQ=YEARLY;BYMONTH=13", first: first, years: 8)
        #expect(result.warnings.isEmpty)
        #expect(result.starts.map(Self.ymd) == expected.map(Self.ymd))
        #expect(result.starts.map(Self.ymd).allSatisfy { $0.dropFirst(4).hasPrefix("09") })
    }

    /// Adar I (`5L`) exists only in Hebrew leap years; RFC 7529's default SKIP=OMIT leaves the others out.
    @Test func aHebrewLeapMonthRecursInLeapYearsOnly() throws {
        let years = 5787..<5806
        let expected = years.compactMap { Self.gregorian(.hebrew, year: $0, month: 6, day: 1) }
        #expect(expected.count == 7)  // seven leap years in each 19-year cycle
        let first = try #require(expected.first)
        let result = try expand(rule: "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L", first: first, years: 19)
        #expect(result.warnings.isEmpty)
        #expect(result.starts.map(Self.ymd) == expected.map(Self.ymd))
    }

    @Test(arguments: [
        ("RSCALE=ETHIOPIC;FREQ=YEARLY;BYMONTH=14", "BYMONTH=14 is out of range (1…13, a leap month as 5L); only DTSTART is used"),
        ("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5X", "BYMONTH=5X is out of range (1…13, a leap month as 5L); only DTSTART is used"),
        ("FREQ=YEARLY;BYMONTH=13", "BYMONTH=13 is out of range (1…12); only DTSTART is used"),
        ("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L,13", nil),
    ] as [(String, String?)])
    func monthsBeyondTheirCalendarAreRefused(rule: String, refusal: String?) {
        #expect(ICalRecurrence.refusal(rrule: rule) == refusal)
    }
}
