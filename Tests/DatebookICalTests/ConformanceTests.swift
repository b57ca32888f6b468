import DatebookICal
import Foundation
import Testing

/// Recurrence as RFC 5545 and other calendar programs mean it, one fixture per case (issue 13).
/// Where Python's recurring-ical-events agrees, `PeerCheckTests` runs the fixture too.
@Suite struct ConformanceTests {
    func starts(_ fixture: String, uid: String, zone: String = "UTC", from: Date, to: Date, cap: Int = 1000) throws
        -> (starts: [Date], truncated: Bool, warning: String?) {
        let doc = try TestSupport.parse(fixture, zone: zone)
        let event = try #require(doc.events.first { $0.uid == uid })
        let tz = TestSupport.zone(zone)
        return try ICalRecurrence.occurrences(
            rrule: event.rrule, rdates: event.rdates, exdates: event.exdates, exrules: event.exrules, start: event.start,
            duration: event.duration(in: tz), timeZone: event.timeZone(default: tz),
            window: TestSupport.window(from, to), cap: cap)
    }

    func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    /// 743 bytes that libical 3.0 turned into 14 ms a step once skipped ahead: 1,000 occurrences
    /// took 14 s, in every listing. The BYHOUR/BYMINUTE/BYSECOND lists are now multiplied out by
    /// datebook, so the cap is reached at once and the rule costs only its own occurrences.
    @Test func aRuleOfEverySecondReachesTheCapQuickly() throws {
        let clock = ContinuousClock()
        let from = utc("2026-11-23T00:00:00Z")
        var result: (starts: [Date], truncated: Bool, warning: String?) = ([], false, nil)
        let elapsed = try clock.measure {
            result = try starts("hostile-rule.ics", uid: "hostile", from: from, to: utc("2027-03-01T00:00:00Z"))
        }
        #expect(result.starts.count == 1000 && result.truncated)
        #expect(result.starts.first == from)
        #expect(result.starts.last == from.addingTimeInterval(999))
        #expect(result.warning?.contains("more than 1000 occurrences") == true)
        #expect(elapsed < .seconds(10), "expansion took \(elapsed)")  // 14 s before the fix; a bound a loaded machine cannot miss
    }

    /// With BYSETPOS the lists stay libical's, which builds the whole day's set on every step.
    @Test func bySetPosOverASecondByDayRuleIsRefused() {
        let seconds = (0...59).map(String.init).joined(separator: ",")
        let hours = (0...23).map(String.init).joined(separator: ",")
        #expect(ICalRecurrence.refusal(rrule: "FREQ=DAILY;BYHOUR=\(hours);BYMINUTE=\(seconds);BYSECOND=\(seconds);BYSETPOS=1")
                == "BYSETPOS over 86400 times a day is refused (more than one a minute, like FREQ=MINUTELY); only DTSTART is used")
        #expect(ICalRecurrence.refusal(rrule: "FREQ=DAILY;BYHOUR=\(hours);BYMINUTE=\(seconds);BYSETPOS=1") == nil)
        #expect(ICalRecurrence.refusal(rrule: "FREQ=DAILY;BYHOUR=\(hours);BYMINUTE=\(seconds);BYSECOND=\(seconds)") == nil)
    }

    @Test func timeOfDayListsExpandEachDayInOrderAcrossDST() throws {
        let doc = try TestSupport.parse(text: TestSupport.calendar("""
            BEGIN:VEVENT
            UID:twice-a-day
            DTSTART;TZID=Europe/Berlin:20260327T090000
            RRULE:FREQ=DAILY;BYHOUR=17,9;BYMINUTE=30,0;COUNT=9
            END:VEVENT

            """))
        let event = try #require(doc.events.first)
        let zone = TestSupport.zone("Europe/Berlin")
        let result = try ICalRecurrence.occurrences(
            rrule: event.rrule, rdates: [], exdates: [], start: event.start, duration: 0, timeZone: zone,
            window: TestSupport.window(utc("2026-03-01T00:00:00Z"), utc("2026-04-01T00:00:00Z")), cap: 100)
        let local = result.starts.map { TestSupport.local($0, "Europe/Berlin") }
        #expect(local.map { "\($0.day) \($0.hour):\($0.minute)" }
                == ["27 9:0", "27 9:30", "27 17:0", "27 17:30", "28 9:0", "28 9:30", "28 17:0", "28 17:30", "29 9:0"])
        // 29 March is the spring-forward day: 09:00 is 07:00Z there, 08:00Z the day before.
        #expect(result.starts.last == utc("2026-03-29T07:00:00Z"))
    }

    /// Google Calendar and Windows Calendar write a yearly birthday as `FREQ=YEARLY;BYMONTHDAY=16`
    /// and show it once a year; libical takes the month from DTSTART, and so does datebook (python-
    /// dateutil and rrule.js give every month's 16th: docs/ical-notes.md).
    @Test func aYearlyRuleWithAMonthDayKeepsDTSTARTsMonth() throws {
        let result = try ICalRecurrence.occurrences(
            rrule: "FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTHDAY=16", rdates: [], exdates: [], start: .date(year: 2020, month: 7, day: 16),
            duration: 86_400, timeZone: TestSupport.zone("UTC"),
            window: TestSupport.window(utc("2026-01-01T00:00:00Z"), utc("2028-01-01T00:00:00Z")), cap: 100)
        #expect(result.starts == ["2026-07-16T00:00:00Z", "2027-07-16T00:00:00Z"].map(utc))
    }

    /// libical 3.1, Google and Outlook show a DTSTART that is not on its rule as the first
    /// occurrence, and RFC 5545 counts it in COUNT.
    @Test func aStartOffItsRuleIsTheFirstOccurrenceAndCounts() throws {
        let mondays = try starts("dtstart-off-rule.ics", uid: "tuesday-start", from: utc("2026-01-01T00:00:00Z"),
                                 to: utc("2026-03-01T00:00:00Z"))
        #expect(mondays.starts == ["2026-01-06T08:00:00Z", "2026-01-12T08:00:00Z", "2026-01-19T08:00:00Z",
                                   "2026-01-26T08:00:00Z"].map(utc))
        let fifteenths = try starts("dtstart-off-rule.ics", uid: "mid-month-start", from: utc("2026-01-01T00:00:00Z"),
                                    to: utc("2027-01-01T00:00:00Z"))
        #expect(fifteenths.starts == ["2026-03-06T08:00:00Z", "2026-03-15T08:00:00Z", "2026-04-15T07:00:00Z",
                                      "2026-05-15T07:00:00Z"].map(utc))
        let counted = try ICalRecurrence.occurrences(
            rrule: "FREQ=WEEKLY;BYDAY=MO;COUNT=3", rdates: [], exdates: [],
            start: .zoned(utc("2026-01-06T08:00:00Z"), tzid: "Europe/Berlin"), duration: 0,
            timeZone: TestSupport.zone("Europe/Berlin"),
            window: TestSupport.window(utc("2026-01-01T00:00:00Z"), utc("2026-03-01T00:00:00Z")), cap: 100)
        #expect(counted.starts == ["2026-01-06T08:00:00Z", "2026-01-12T08:00:00Z", "2026-01-19T08:00:00Z"].map(utc))
    }

    /// An hourly rule steps in elapsed hours: the hour repeated when clocks go back is kept
    /// (New York 2026-11-01: 01:00 EDT is 05:00Z, 01:00 EST 06:00Z), the hour skipped when they go
    /// forward does not appear twice.
    @Test func hourlyRulesKeepTheRepeatedHour() throws {
        let back = try starts("hourly-dst.ics", uid: "hourly-fall-back", from: utc("2026-10-01T00:00:00Z"),
                              to: utc("2026-12-01T00:00:00Z"))
        #expect(back.starts == ["2026-11-01T03:00:00Z", "2026-11-01T04:00:00Z", "2026-11-01T05:00:00Z",
                                "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z", "2026-11-01T08:00:00Z"].map(utc))
        let forward = try starts("hourly-dst.ics", uid: "hourly-spring-forward", from: utc("2026-03-01T00:00:00Z"),
                                 to: utc("2026-04-01T00:00:00Z"))
        #expect(forward.starts == ["2026-03-08T05:00:00Z", "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z",
                                   "2026-03-08T08:00:00Z"].map(utc))
    }

    /// libical reads RFC 2445's EXRULE; datebook ignored it without a word. (recurring-ical-events
    /// ignores it too, so this fixture has no peer check.)
    @Test func exruleRemovesTheStartsItGives() throws {
        let result = try starts("exrule.ics", uid: "weekdays-by-exrule", from: utc("2026-01-01T00:00:00Z"),
                                to: utc("2026-02-01T00:00:00Z"))
        let days = result.starts.map { TestSupport.local($0, "UTC").day }
        #expect(days == [5, 6, 7, 8, 9, 12, 13, 14, 15, 16])
        #expect(result.warning == nil)
        let written = ICalWriter.write(events: try TestSupport.parse("exrule.ics").events, todos: [], prodID: "-//t//EN",
                                       dtstamp: utc("2026-01-01T00:00:00Z"))
        #expect(written.contains("EXRULE:FREQ=WEEKLY;BYDAY=SA,SU\r\n"))
    }

    @Test func aMisspeltRulePartIsNamedNotSilentlyDropped() throws {
        let result = try starts("misspelt-rule.ics", uid: "misspelt-until", from: utc("2026-01-01T00:00:00Z"),
                                to: utc("2026-02-01T00:00:00Z"))
        #expect(result.starts == [utc("2026-01-05T09:00:00Z")])
        #expect(result.warning == "'UNTL=' is not an RRULE part (did you mean UNTIL=?); only DTSTART is used")
        #expect(ICalRecurrence.refusal(rrule: "FREQ=WEEKLY;BYDAYS=MO") == "'BYDAYS=' is not an RRULE part (did you mean BYDAY=?); only DTSTART is used")
        #expect(ICalRecurrence.refusal(rrule: "FREQ=WEEKLY;X-NAME=1") == "'X-NAME=' is not an RRULE part; only DTSTART is used")
        #expect(ICalRecurrence.refusal(exrule: "FREQ=WEEKLY;UNTL=20260101") != nil)
    }

    /// Google's exports name the calendar's zone in X-WR-TIMEZONE and write floating times.
    @Test func xWrTimezoneGivesFloatingTimesItsZone() throws {
        let doc = try TestSupport.parse("xwr-timezone.ics", zone: "Europe/Berlin")
        let standup = try #require(doc.events.first { $0.uid == "floating-standup" })
        #expect(standup.start == .zoned(utc("2026-12-02T14:30:00Z"), tzid: "America/New_York"))
        #expect(standup.end == .zoned(utc("2026-12-02T15:00:00Z"), tzid: "America/New_York"))
        let review = try #require(doc.events.first { $0.uid == "zoned-review" })
        #expect(review.start == .zoned(utc("2026-12-02T14:00:00Z"), tzid: "Europe/Berlin"))
        #expect(doc.warnings.isEmpty)
        let unknown = try TestSupport.parse(text: TestSupport.calendar(
            "X-WR-TIMEZONE:Mars/Olympus\r\nBEGIN:VEVENT\r\nUID:u\r\nDTSTART:20261202T093000\r\nEND:VEVENT\r\n"), zone: "UTC")
        #expect(unknown.events.first?.start == .floating(ICalLocalDateTime(year: 2026, month: 12, day: 2, hour: 9, minute: 30)))
        #expect(unknown.warnings.map(\.message) == ["X-WR-TIMEZONE 'Mars/Olympus' is not a known time zone; its floating times "
                                                   + "stay floating (read in the zone they are viewed in)"])
    }

    /// Outlook writes a timed RECURRENCE-ID, with a Windows TZID, for an instance of an all-day
    /// series: it names that day.
    @Test func aTimedRecurrenceIDMovesTheDayOfAnAllDaySeries() throws {
        let doc = try TestSupport.parse("outlook-allday-override.ics", zone: "UTC")
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: "outlook-allday-override.ics",
                                              window: TestSupport.window(utc("2026-12-01T00:00:00Z"), utc("2027-01-01T00:00:00Z")),
                                              defaultTimeZone: TestSupport.zone("UTC"), cap: 100)
        let days = expansion.occurrences.map { TestSupport.local($0.start, "UTC").day }
        #expect(days == [7, 15, 21, 28])
        #expect(expansion.occurrences.map(\.isOverride) == [false, true, false, false])
    }

    /// The series moved from Tuesdays to Mondays (SEQUENCE 2); an override of a Tuesday from before
    /// (SEQUENCE 1) names an instance that is gone. recurring-ical-events still shows it.
    @Test func aStaleOverrideOfAnInstanceTheSeriesNoLongerHasIsDropped() throws {
        let doc = try TestSupport.parse("stale-override.ics", zone: "UTC")
        #expect(doc.events.map(\.sequence) == [2, 1, 0, 2])
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: "stale-override.ics",
                                              window: TestSupport.window(utc("2026-12-01T00:00:00Z"), utc("2027-01-01T00:00:00Z")),
                                              defaultTimeZone: TestSupport.zone("UTC"), cap: 100)
        #expect(expansion.occurrences.map(\.start) == ["2026-12-07T09:00:00Z", "2026-12-14T14:00:00Z", "2026-12-22T09:00:00Z",
                                                        "2026-12-28T09:00:00Z"].map(utc))
        #expect(expansion.occurrences.map(\.event.summary) == ["Planning (Mondays now)", "Planning (older, its Monday still there)",
                                                               "Planning (moved to Tuesday)", "Planning (Mondays now)"])
    }

    /// RANGE=THISANDFUTURE: the override's properties and its move apply to every later instance.
    @Test func thisAndFutureOverridesEveryLaterInstance() throws {
        let doc = try TestSupport.parse("thisandfuture.ics", zone: "UTC")
        #expect(doc.events.map(\.thisAndFuture) == [false, true, false, true])
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: "thisandfuture.ics",
                                              window: TestSupport.window(utc("2026-12-01T00:00:00Z"), utc("2027-01-06T00:00:00Z")),
                                              defaultTimeZone: TestSupport.zone("UTC"), cap: 100)
        let standup = expansion.occurrences.filter { $0.event.uid == "standup-from-now-on" }
        #expect(standup.map { TestSupport.local($0.start, "Europe/Berlin") }.map { "\($0.day) \($0.hour):\($0.minute)" }
                == ["1 9:0", "2 9:0", "3 9:0", "4 9:0", "5 9:30", "6 9:30", "7 9:30", "9 9:30", "10 9:30"])
        #expect(standup.map { occurrence in occurrence.end.map { $0.timeIntervalSince(occurrence.start) } } == [900, 900, 900, 900, 1800, 1800, 1800, 1800, 1800])
        let review = expansion.occurrences.filter { $0.event.uid == "weekly-from-now-on" }
        #expect(review.map(\.start) == ["2026-12-07T15:00:00Z", "2026-12-14T15:00:00Z", "2026-12-22T16:00:00Z",
                                        "2026-12-29T16:00:00Z", "2027-01-05T16:00:00Z"].map(utc))
        #expect(review.map(\.event.summary).suffix(3) == ["Review (Tuesdays from now on)", "Review (Tuesdays from now on)",
                                                          "Review (Tuesdays from now on)"])
    }
}
