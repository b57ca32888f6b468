import DatebookICal
import Foundation
import Testing

@Suite struct RecurrenceTests {
    let year2026 = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2027, 1, 1, zone: "UTC"))

    func expand(_ event: ICalEvent, zone: String, window: DateInterval? = nil, cap: Int = 1000) throws
        -> (starts: [Date], truncated: Bool, warning: String?) {
        let tz = TestSupport.zone(zone)
        return try ICalRecurrence.occurrences(
            rrule: event.rrule, rdates: event.rdates, exdates: event.exdates, start: event.start,
            duration: event.duration(in: tz), timeZone: event.timeZone(default: tz),
            window: window ?? year2026, cap: cap)
    }

    @Test(arguments: [("berlin-weekly", "Europe/Berlin", 40), ("ny-weekly", "America/New_York", 40)])
    func weeklyNineOClockStaysNineAcrossDST(uid: String, zone: String, count: Int) throws {
        let doc = try TestSupport.parse("dst.ics", zone: "UTC")
        let event = try #require(doc.events.first { $0.uid == uid })
        let result = try expand(event, zone: "UTC")
        #expect(result.starts.count == count)
        #expect(result.warning == nil)
        for start in result.starts {
            let local = TestSupport.local(start, zone)
            #expect(local.hour == 9 && local.minute == 0, "\(uid) at \(start) is \(local.hour):\(local.minute) local")
        }
        // The UTC hour changes across the DST switches (8/7 UTC in Berlin, 14/13 in New York).
        let utcHours = Set(result.starts.map { TestSupport.local($0, "UTC").hour })
        #expect(utcHours.count == 2)
    }

    /// A window ending at or before DTSTART holds no occurrence (the expander does not ask libical);
    /// one that reaches DTSTART starts there.
    @Test func windowBeforeTheFirstStartHoldsNothing() throws {
        let doc = try TestSupport.parse("dst.ics", zone: "UTC")
        let event = try #require(doc.events.first { $0.uid == "berlin-weekly" })
        let first = try #require(expand(event, zone: "UTC").starts.first)
        let before = try expand(event, zone: "UTC", window: DateInterval(start: first.addingTimeInterval(-30 * 86_400), end: first))
        #expect(before.starts.isEmpty && !before.truncated && before.warning == nil)
        let reaching = try expand(event, zone: "UTC", window: DateInterval(start: first.addingTimeInterval(-30 * 86_400),
                                                                            end: first.addingTimeInterval(8 * 86_400)))
        #expect(reaching.starts == [first, first.addingTimeInterval(7 * 86_400)])
    }

    @Test func untilInUTCIncludesTheLastLocalInstance() throws {
        let doc = try TestSupport.parse("dst.ics", zone: "UTC")
        let event = try #require(doc.events.first { $0.uid == "ny-weekly" })
        let result = try expand(event, zone: "UTC")
        #expect(result.starts.last == TestSupport.instant(2026, 11, 30, 9, zone: "America/New_York"))
    }

    @Test(arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
    func allDayOccurrencesAreDatesInTheUsersZone(zone: String) throws {
        let doc = try TestSupport.parse("allday.ics", zone: zone)
        let event = try #require(doc.events.first { $0.uid == "allday-weekly" })
        let window = TestSupport.window(TestSupport.instant(2026, 12, 1, zone: zone), TestSupport.instant(2027, 3, 1, zone: zone))
        let result = try expand(event, zone: zone, window: window)
        let days = result.starts.map { TestSupport.local($0, zone) }
        #expect(days.map(\.day) == [28, 4, 11, 18, 25, 1])
        #expect(days.allSatisfy { $0.hour == 0 && $0.minute == 0 })
        let birthday = try #require(doc.events.first { $0.uid == "allday-birthday" })
        let leap = TestSupport.window(TestSupport.instant(2024, 1, 1, zone: zone), TestSupport.instant(2033, 1, 1, zone: zone))
        let birthdays = try expand(birthday, zone: zone, window: leap).starts.map { TestSupport.local($0, zone) }
        // RFC 5545: an invalid date (Feb 29 in a common year) is skipped.
        #expect(birthdays.map(\.year) == [2024, 2028, 2032])
    }

    @Test func exdateInUTCExcludesTheZonedInstance() throws {
        let doc = try TestSupport.parse("exdate-utc.ics")
        let event = try #require(doc.events.first)
        #expect(event.exdates.count == 3)
        let days = try expand(event, zone: "UTC").starts.map { TestSupport.local($0, "Europe/Berlin").day }
        #expect(days == [5, 6, 8, 11, 12, 13, 14, 20])
    }

    @Test func overrideMovesAnInstanceAndOrphanStandsAlone() throws {
        let doc = try TestSupport.parse("overrides.ics")
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: "overrides.ics", window: year2026,
                                              defaultTimeZone: TestSupport.zone("Europe/Berlin"), cap: 100)
        let summary = expansion.occurrences.map { ($0.event.uid, TestSupport.local($0.start, "America/New_York").day, $0.isOverride) }
        // The orphan starts 09:00 UTC (04:00 in New York), before the master's 10:00 that day.
        #expect(summary.map(\.0) == ["weekly-master", "weekly-master", "weekly-master", "weekly-master", "orphan-override", "weekly-master"])
        #expect(summary.map(\.1) == [5, 13, 19, 26, 2, 2])
        #expect(summary.map(\.2) == [false, true, false, false, false, false])
        #expect(expansion.occurrences[1].event.summary == "Weekly review (moved)")
        #expect(expansion.warnings.isEmpty)
    }

    @Test(arguments: [
        ("secondly", "FREQ=SECONDLY is refused"),
        ("minutely", "FREQ=MINUTELY is refused"),
        ("interval-zero", "INTERVAL=0 is refused"),
    ])
    func refusedRulesYieldOnlyDTSTARTWithWarning(uid: String, message: String) throws {
        let doc = try TestSupport.parse("bombs.ics")
        let event = try #require(doc.events.first { $0.uid == uid })
        let result = try expand(event, zone: "UTC")
        #expect(result.starts == [TestSupport.instant(2026, 1, 1, zone: "UTC")])
        #expect(result.warning?.contains(message) == true)
    }

    @Test func neverMatchingRuleTerminatesQuickly() throws {
        let doc = try TestSupport.parse("bombs.ics")
        let event = try #require(doc.events.first { $0.uid == "never-matches" })
        let clock = ContinuousClock()
        let far = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(9000, 1, 1, zone: "UTC"))
        let elapsed = try clock.measure {
            let result = try expand(event, zone: "UTC", window: far)
            #expect(result.starts.count <= 1)
        }
        #expect(elapsed < .seconds(30))  // unbounded, the search runs to the year 9000
    }

    @Test func hugeCountIsCappedPerWindow() throws {
        let doc = try TestSupport.parse("bombs.ics")
        let event = try #require(doc.events.first { $0.uid == "count-million" })
        let result = try expand(event, zone: "UTC", cap: 500)
        #expect(result.starts.count == 500)
        #expect(result.truncated)
        #expect(result.warning?.contains("500") == true)
        // A window far from DTSTART still terminates (COUNT forbids skipping ahead).
        let later = TestSupport.window(TestSupport.instant(2100, 1, 1, zone: "UTC"), TestSupport.instant(2100, 2, 1, zone: "UTC"))
        let far = try expand(event, zone: "UTC", window: later, cap: 500)
        #expect(far.starts.isEmpty)
    }

    @Test func skippingAheadMatchesFullIteration() throws {
        // set_start must keep INTERVAL phase and BYxxx parts.
        let rules = ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "FREQ=MONTHLY;BYDAY=-1FR", "FREQ=DAILY;INTERVAL=3",
                     "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=30", "FREQ=HOURLY;INTERVAL=7",
                     "FREQ=HOURLY", "FREQ=DAILY;INTERVAL=2;BYHOUR=9,15", "FREQ=WEEKLY;INTERVAL=3",
                     "FREQ=YEARLY;INTERVAL=2;BYMONTH=6;BYMONTHDAY=15",
                     "FREQ=MONTHLY;INTERVAL=2;BYSETPOS=-1;BYDAY=MO,TU,WE,TH,FR"]
        let start = ICalDateValue.zoned(TestSupport.instant(2020, 1, 2, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin")
        let zone = TestSupport.zone("Europe/Berlin")
        for rule in rules {
            let window = TestSupport.window(TestSupport.instant(2026, 3, 1, zone: "UTC"), TestSupport.instant(2026, 12, 1, zone: "UTC"))
            let skipped = try ICalRecurrence.occurrences(rrule: rule, rdates: [], exdates: [], start: start, duration: 3600,
                                                         timeZone: zone, window: window, cap: 5000).starts
            let counted = try ICalRecurrence.occurrences(rrule: rule + ";COUNT=100000", rdates: [], exdates: [], start: start,
                                                         duration: 3600, timeZone: zone, window: window, cap: 5000).starts
            #expect(!skipped.isEmpty, "\(rule)")
            #expect(skipped == counted, "\(rule): \(skipped.prefix(3)) vs \(counted.prefix(3)), \(skipped.count) vs \(counted.count)")
        }
    }

    @Test(arguments: ["FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31", "FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30",
                      "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31", "FREQ=WEEKLY;BYMONTH=6;BYMONTHDAY=31;BYDAY=MO",
                      "FREQ=YEARLY;BYWEEKNO=54", "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30"])
    func otherNeverMatchingRulesAreBounded(rule: String) throws {
        let start = ICalDateValue.utc(TestSupport.instant(2026, 1, 1, zone: "UTC"))
        let far = TestSupport.window(TestSupport.instant(2026, 1, 2, zone: "UTC"), TestSupport.instant(9999, 1, 1, zone: "UTC"))
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let result = try ICalRecurrence.occurrences(rrule: rule, rdates: [], exdates: [], start: start, duration: 0,
                                                        timeZone: TestSupport.zone("UTC"), window: far, cap: 100)
            #expect(result.starts.isEmpty)
            #expect(result.warning != nil)
        }
        #expect(elapsed < .seconds(30), "\(rule) took \(elapsed)")  // unbounded, minutes
    }
}

@Suite struct DSTEdgeTests {
    /// RFC 5545 3.3.5: a wall-clock time in the spring-forward gap means the time after the gap
    /// (02:30 → 03:30 CEST); a time repeated in autumn means its first (summer-time) occurrence.
    @Test func gapMovesForwardAndRepeatedHourTakesFirstInstant() throws {
        let zone = TestSupport.zone("Europe/Berlin")
        let start = ICalDateValue.zoned(TestSupport.instant(2026, 3, 27, 2, 30, zone: "Europe/Berlin"), tzid: "Europe/Berlin")
        let window = TestSupport.window(TestSupport.instant(2026, 3, 1, zone: "UTC"), TestSupport.instant(2026, 12, 1, zone: "UTC"))
        let spring = try ICalRecurrence.occurrences(rrule: "FREQ=DAILY;COUNT=4", rdates: [], exdates: [], start: start,
                                                    duration: 0, timeZone: zone, window: window, cap: 10).starts
        #expect(spring.map { TestSupport.local($0, "UTC").hour } == [1, 1, 1, 0])
        #expect(TestSupport.local(spring[2], "Europe/Berlin").hour == 3)
        let autumnStart = ICalDateValue.zoned(TestSupport.instant(2026, 10, 24, 2, 30, zone: "Europe/Berlin"), tzid: "Europe/Berlin")
        let autumn = try ICalRecurrence.occurrences(rrule: "FREQ=DAILY;COUNT=3", rdates: [], exdates: [], start: autumnStart,
                                                    duration: 0, timeZone: zone, window: window, cap: 10).starts
        #expect(autumn.map { TestSupport.local($0, "UTC").hour } == [0, 0, 1])
    }
}

@Suite struct RecurrenceBoundsTests {
    @Test func untilBeforeTheWindowStopsAtOnceEvenWithoutSkipAhead() throws {
        let start = ICalDateValue.utc(TestSupport.instant(2000, 1, 1, zone: "UTC"))
        let window = TestSupport.window(TestSupport.instant(2090, 1, 1, zone: "UTC"), TestSupport.instant(2091, 1, 1, zone: "UTC"))
        let result = try ICalRecurrence.occurrences(rrule: "FREQ=HOURLY;INTERVAL=5;UNTIL=20000201T000000Z", rdates: [], exdates: [],
                                                    start: start, duration: 0, timeZone: TestSupport.zone("UTC"), window: window, cap: 10)
        #expect(result.starts.isEmpty)
        #expect(!result.truncated)
    }

    @Test func exdatesDoNotShortenACappedList() throws {
        let start = ICalDateValue.utc(TestSupport.instant(2026, 1, 1, zone: "UTC"))
        let exdates = (0..<3).map { ICalDateValue.utc(TestSupport.instant(2026, 1, 1 + $0, zone: "UTC")) }
        let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2027, 1, 1, zone: "UTC"))
        let result = try ICalRecurrence.occurrences(rrule: "FREQ=DAILY", rdates: [], exdates: exdates, start: start,
                                                    duration: 0, timeZone: TestSupport.zone("UTC"), window: window, cap: 10)
        #expect(result.starts.count == 10)
        #expect(result.truncated)
        #expect(result.starts.first == TestSupport.instant(2026, 1, 4, zone: "UTC"))
    }
}
