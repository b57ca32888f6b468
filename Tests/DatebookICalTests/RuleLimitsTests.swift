@testable import DatebookICal
import Foundation
import Testing

/// BYSETPOS, negative BYMONTHDAY, BYWEEKNO and BYYEARDAY where libical 3.0 gets them wrong
/// (`RuleLimits`). Each expected list is Python dateutil's for the same rule (DTSTART on the rule, so both count it alike);
/// `RulePeerTests` compares seeded random rules the same way.
@Suite struct RuleLimitsTests {
    static let berlin = TestSupport.zone("Europe/Berlin")

    /// Starts of `rule` from `start` (wall-clock, Europe/Berlin) inside `[from, to)`, as Berlin wall-clock text.
    func starts(_ rule: String, from start: ICalLocalDateTime, window: (String, String) = ("2026-01-01", "2030-01-01"))
        throws -> [String] {
        let day = DateFormatter()
        day.timeZone = Self.berlin
        day.dateFormat = "yyyy-MM-dd"
        let window = try TestSupport.window(#require(day.date(from: window.0)), #require(day.date(from: window.1)))
        let result = try ICalRecurrence.occurrences(
            rrule: rule, rdates: [], exdates: [], start: .zoned(start.instant(in: Self.berlin), tzid: "Europe/Berlin"),
            duration: 0, timeZone: Self.berlin, window: window, cap: 1_000)
        #expect(result.warning == nil)
        let text = DateFormatter()
        text.timeZone = Self.berlin
        text.dateFormat = "yyyy-MM-dd HH:mm"
        return result.starts.map { text.string(from: $0) }
    }

    func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> ICalLocalDateTime {
        ICalLocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute)
    }

    @Test func aNegativeMonthDayOfADailyRuleIsTheDayCountedFromTheMonthsEnd() throws {
        // libical 3.0 gave DTSTART alone.
        #expect(try starts("FREQ=DAILY;BYMONTHDAY=-1;COUNT=5", from: at(2026, 1, 31, 9))
                == ["2026-01-31 09:00", "2026-02-28 09:00", "2026-03-31 09:00", "2026-04-30 09:00", "2026-05-31 09:00"])
        // libical 3.0 left the last days out.
        #expect(try starts("FREQ=DAILY;BYMONTHDAY=2,-1;COUNT=6", from: at(2026, 2, 2, 9))
                == ["2026-02-02 09:00", "2026-02-28 09:00", "2026-03-02 09:00", "2026-03-31 09:00", "2026-04-02 09:00",
                    "2026-04-30 09:00"])
        #expect(try starts("FREQ=HOURLY;INTERVAL=6;BYMONTHDAY=-1;COUNT=5", from: at(2026, 2, 28))
                == ["2026-02-28 00:00", "2026-02-28 06:00", "2026-02-28 12:00", "2026-02-28 18:00", "2026-03-31 00:00"])
    }

    /// YEARLY rules with BYYEARDAY beside BYMONTH or BYMONTHDAY (libical 3.0 refused them: DTSTART
    /// alone, without a warning) and with BYWEEKNO (libical misplaced them); dateutil's lists.
    @Test func yearDaysWithMonthsAndWeeksOfTheYearAreKeptHere() throws {
        #expect(try starts("FREQ=YEARLY;BYYEARDAY=100,200;BYMONTH=4,7", from: at(2026, 4, 10, 9), window: ("2026-01-01", "2028-01-01"))
                == ["2026-04-10 09:00", "2026-07-19 09:00", "2027-04-10 09:00", "2027-07-19 09:00"])
        #expect(try starts("FREQ=YEARLY;BYYEARDAY=1,32,60;BYMONTHDAY=1;COUNT=4", from: at(2026, 1, 1, 9))
                == ["2026-01-01 09:00", "2026-02-01 09:00", "2026-03-01 09:00", "2027-01-01 09:00"])  // day 60: 1 March (not in 2028)
        #expect(try starts("FREQ=YEARLY;BYWEEKNO=20;BYMONTH=5;BYDAY=MO,SU;COUNT=4", from: at(2026, 5, 11, 9))
                == ["2026-05-11 09:00", "2026-05-17 09:00", "2027-05-17 09:00", "2027-05-23 09:00"])
        // The last week of 2027 runs to 2 January 2028 (libical 3.0 skipped that year).
        #expect(try starts("FREQ=YEARLY;BYWEEKNO=-1;BYDAY=TH;COUNT=3", from: at(2026, 12, 31, 9))
                == ["2026-12-31 09:00", "2027-12-30 09:00", "2028-12-28 09:00"])
    }

    /// BYWEEKNO without BYDAY, BYYEARDAY or BYMONTHDAY: DTSTART's weekday of each week, as libical's
    /// fix (libical/libical#941) and lib-recur read it; dateutil takes every day of those weeks.
    /// libical 3.0 gave 30 December 2026 and then 12 May, a Wednesday and a Tuesday, out of order.
    @Test func weeksOfTheYearWithoutDaysAreOnDTSTARTsWeekday() throws {
        #expect(try starts("FREQ=YEARLY;BYWEEKNO=1,20", from: at(2026, 1, 1, 9), window: ("2026-01-01", "2028-01-01"))
                == ["2026-01-01 09:00", "2026-05-14 09:00", "2027-01-07 09:00", "2027-05-20 09:00"])
    }

    /// Week 53 with WKST=SU: 2026's week 1 begins on Sunday 4 January (the week before holds only three
    /// days of 2026), so 2026 has 52 weeks; 2031, whose 1 January is a Wednesday, has 53. dateutil
    /// counts 53 for 2026 (its count of a year's weeks assumes WKST=MO) and gives Friday 1 January 2027.
    @Test func week53CountsWeeksFromWKST() throws {
        #expect(try starts("FREQ=YEARLY;BYWEEKNO=53;BYDAY=FR,SU;WKST=SU", from: at(2026, 4, 8), window: ("2026-01-01", "2033-01-01"))
                == ["2026-04-08 00:00", "2031-12-28 00:00", "2032-01-02 00:00"])
    }

    @Test func setPositionsPickFromEachWeekDayAndHour() throws {
        // libical 3.0 gave every Monday too.
        #expect(try starts("FREQ=WEEKLY;BYDAY=MO,FR;BYSETPOS=-1;COUNT=4", from: at(2026, 4, 3, 9))
                == ["2026-04-03 09:00", "2026-04-10 09:00", "2026-04-17 09:00", "2026-04-24 09:00"])
        #expect(try starts("FREQ=HOURLY;BYMINUTE=0,20,40;BYSETPOS=-1;COUNT=3", from: at(2026, 3, 30, 10, 40))
                == ["2026-03-30 10:40", "2026-03-30 11:40", "2026-03-30 12:40"])
        // DTSTART at noon is the first occurrence; the day's 09:00 before it is not one.
        #expect(try starts("FREQ=DAILY;BYHOUR=9,17;BYSETPOS=1;COUNT=3", from: at(2026, 3, 30, 12))
                == ["2026-03-30 12:00", "2026-03-31 09:00", "2026-04-01 09:00"])
    }

    /// The first week is the whole week DTSTART is in, as the first month of a MONTHLY rule is the
    /// whole month (dateutil agrees on months, but reads the first week from DTSTART on and would
    /// pick Sunday 2026-04-05 here: docs/ical-notes.md).
    @Test func theFirstWeekIsWholeEvenWhenDTSTARTIsInItsMiddle() throws {
        #expect(try starts("FREQ=WEEKLY;BYDAY=TU,SA,SU;BYSETPOS=2;COUNT=4", from: at(2026, 4, 4))
                == ["2026-04-04 00:00", "2026-04-11 00:00", "2026-04-18 00:00", "2026-04-25 00:00"])
        #expect(try starts("FREQ=WEEKLY;BYDAY=TU,SA,SU;BYSETPOS=2;WKST=SU;COUNT=3", from: at(2026, 4, 4))
                == ["2026-04-04 00:00", "2026-04-07 00:00", "2026-04-14 00:00"])
    }

    @Test func setPositionsOfAMonthlyOrYearlyRuleWithSeveralTimesADayPickATime() throws {
        // libical 3.0 picks whole days there, and gave both times.
        #expect(try starts("FREQ=MONTHLY;BYHOUR=9,17;BYSETPOS=-1;COUNT=3", from: at(2026, 1, 15, 17))
                == ["2026-01-15 17:00", "2026-02-15 17:00", "2026-03-15 17:00"])
        // The last Sunday of March at 03:00, the hour after the clocks go forward in Berlin.
        #expect(try starts("FREQ=YEARLY;BYMONTH=3;BYDAY=SU;BYHOUR=1,3;BYSETPOS=-1;COUNT=3", from: at(2026, 3, 29, 3))
                == ["2026-03-29 03:00", "2027-03-28 03:00", "2028-03-26 03:00"])
        // Without a list of times libical's own BYSETPOS stays in use, and is right.
        #expect(RuleLimits(ICalRuleText("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"), start: at(2026, 1, 1), isDate: false) == nil)
    }

    /// The weeks of an INTERVAL begin on WKST (Monday by default) and are counted from DTSTART's
    /// week. From Thursday 6 November 2025, fortnightly Tuesdays are the 11th and 25th with weeks
    /// from Wednesday, the 18th and 2 December with weeks from Saturday (libical 3.0 gave the latter
    /// for both); from Thursday 30 April 2026, fortnightly Sundays begin on 3 May (libical: 10 May).
    @Test func theWeeksOfAnIntervalBeginOnWKST() throws {
        let window = ("2025-11-01", "2026-01-01")
        #expect(try starts("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;WKST=WE", from: at(2025, 11, 6, 9), window: window)
                == ["2025-11-06 09:00", "2025-11-11 09:00", "2025-11-25 09:00", "2025-12-09 09:00", "2025-12-23 09:00"])
        #expect(try starts("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;WKST=SA", from: at(2025, 11, 6, 9), window: window)
                == ["2025-11-06 09:00", "2025-11-18 09:00", "2025-12-02 09:00", "2025-12-16 09:00", "2025-12-30 09:00"])
        #expect(try starts("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU;COUNT=4", from: at(2026, 4, 30, 13, 30))
                == ["2026-04-30 13:30", "2026-05-03 13:30", "2026-05-17 13:30", "2026-05-31 13:30"])
        // RFC 5545's own example: every other week on Tuesday and Sunday, weeks from Monday, then Sunday.
        #expect(try starts("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", from: at(2026, 8, 4, 9))
                == ["2026-08-04 09:00", "2026-08-09 09:00", "2026-08-18 09:00", "2026-08-23 09:00"])
        #expect(try starts("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", from: at(2026, 8, 4, 9))
                == ["2026-08-04 09:00", "2026-08-16 09:00", "2026-08-18 09:00", "2026-08-30 09:00"])
    }

    /// A window years after DTSTART skips ahead to the start of the window's first period: the same
    /// occurrences as a walk from DTSTART.
    @Test func aLateWindowGivesWhatAWalkFromDTSTARTGives() throws {
        let rule = "FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=2"
        let late = try starts(rule, from: at(2020, 1, 6, 9), window: ("2026-06-03", "2026-07-01"))
        let walked = try starts(rule, from: at(2020, 1, 6, 9), window: ("2020-01-01", "2026-07-01"))
        #expect(late == ["2026-06-03 09:00", "2026-06-10 09:00", "2026-06-17 09:00", "2026-06-24 09:00"])
        #expect(walked.suffix(4) == late[...])
        let daily = "FREQ=DAILY;BYMONTHDAY=-3,1"
        #expect(try starts(daily, from: at(2020, 1, 1, 9), window: ("2026-06-01", "2026-07-01"))
                == ["2026-06-01 09:00", "2026-06-28 09:00"])
    }

    /// A position beyond every period's set never matches: the walk ends at the window instead of
    /// stepping hour by hour to the iteration bound.
    @Test func aPositionThatNeverMatchesEndsAtTheWindow() throws {
        #expect(try starts("FREQ=HOURLY;BYSETPOS=2", from: at(2026, 1, 1)) == ["2026-01-01 00:00"])
    }

    /// A walk that runs out of steps before the window (COUNT rules are walked from DTSTART) says so,
    /// as libical's own walk does, instead of ending as if the rule had.
    @Test func aWalkOutOfStepsIsReportedAsStoppedEarly() throws {
        let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2026, 2, 1, zone: "UTC"))
        let result = try ICalRecurrence.occurrences(
            rrule: "FREQ=HOURLY;BYMINUTE=0,30;BYSETPOS=1;COUNT=1000000", rdates: [], exdates: [],
            start: .zoned(TestSupport.instant(2000, 1, 1, zone: "UTC"), tzid: "UTC"), duration: 0, timeZone: TestSupport.zone("UTC"),
            window: window, cap: 1_000)
        #expect(result.truncated && result.starts.isEmpty)
        #expect(result.warning?.hasSuffix("needed more than 200000 steps without reaching the window end; expansion stopped early") == true)
    }
}
