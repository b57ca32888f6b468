import CICal
@testable import DatebookICal
import Foundation
import Testing

/// Rules a fixed number of days apart are stepped in civil days (`DaySteps`), not by libical's
/// iterator; the two walks must give the same occurrences for every such rule.
@Suite struct DayStepsTests {
    /// A small deterministic generator, so a failure names a case that can be run again.
    struct Seeded {
        var state: UInt64
        mutating func next(_ upper: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(upper))
        }
        mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
    }

    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Kiritimati",
                        "Pacific/Pago_Pago", "America/Sao_Paulo", "UTC"]
    static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// 2:30 and 1:30 fall in spring-forward gaps and repeated autumn hours in Berlin and New York.
    @Test(arguments: 0..<6)
    func dayStepsAgreeWithLibicalsIterator(seed: Int) throws {
        var random = Seeded(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        var stepped = 0
        for n in 0..<150 {
            let zoneName = random.pick(Self.zones)
            let zone = try #require(TimeZone(identifier: zoneName))
            let local = ICalLocalDateTime(year: 2024 + random.next(4), month: 1 + random.next(12), day: 1 + random.next(28),
                                          hour: random.pick([0, 1, 2, 9, 23]), minute: random.pick([0, 30, 59]))
            let start: ICalDateValue
            switch random.next(3) {
            case 0: start = .date(year: local.year, month: local.month, day: local.day)
            case 1: start = .floating(local)
            default: start = .zoned(local.instant(in: zone), tzid: zoneName)
            }
            let weekly = random.next(2) == 0
            var rule = weekly ? "FREQ=WEEKLY" : "FREQ=DAILY"
            if random.next(2) == 0 { rule += ";INTERVAL=\(1 + random.next(4))" }
            switch random.next(4) {
            case 0: rule += ";COUNT=\(1 + random.next(60))"
            case 1: rule += String(format: ";UNTIL=%04d%02d%02d", local.year + random.next(2), 1 + random.next(12), 1 + random.next(28))
            case 2: rule += String(format: ";UNTIL=%04d%02d%02dT%02d%02d00Z", local.year + random.next(2), 1 + random.next(12),
                                   1 + random.next(28), random.next(24), random.pick([0, 30]))
            default: break
            }
            let first = Libical.floating(local, isDate: false)
            if weekly, random.next(2) == 0 {
                rule += ";BYDAY=" + Self.weekdays[Int(icaltime_day_of_week(first)) - 1]
            }
            if random.next(3) == 0 { rule += ";WKST=" + random.pick(Self.weekdays) }
            let from = Date(timeIntervalSince1970: 1_704_067_200 + Double(random.next(4 * 365)) * 86_400 + Double(random.next(86_400)))
            let window = DateInterval(start: from, duration: Double(1 + random.next(150)) * 86_400)
            let exdates: [ICalDateValue] = random.next(3) == 0 ? [start] : []
            let duration = Double(random.pick([0, 3_600, 86_400, 3 * 86_400]))
            func expand(_ dayStepping: Bool) throws -> (starts: [Date], truncated: Bool, warning: String?) {
                try ICalRecurrence.occurrences(rrule: rule, rdates: [], exdates: exdates, start: start, duration: duration,
                                               timeZone: zone, window: window, cap: 40, dayStepping: dayStepping)
            }
            let days = try expand(true), libical = try expand(false)
            let label = "case \(seed)/\(n): \(rule) from \(start) in \(zoneName), window \(window)"
            #expect(days.starts == libical.starts, "\(label)")
            #expect(days.truncated == libical.truncated && days.warning == libical.warning, "\(label)")
            #expect(DaySteps.days(ICalRuleText(rule), start: first) != nil, "\(label) is stepped in days")
            stepped += days.starts.count
        }
        // The cases reach into their windows, not only past them.
        #expect(stepped > 300)
    }

    /// Skipping lands on the first occurrence at or after the time asked for, counting from DTSTART.
    @Test func skipLandsOnTheFirstOccurrenceAtOrAfterTheTarget() {
        let start = Libical.floating(ICalLocalDateTime(year: 2026, month: 1, day: 30, hour: 9), isDate: false)
        func after(_ local: ICalLocalDateTime, count: Int? = nil) -> ICalLocalDateTime? {
            let steps = DaySteps(start: start, days: 14, count: count)
            steps.skip(to: Libical.floating(local, isDate: false))
            return steps.next()
        }
        #expect(after(ICalLocalDateTime(year: 2026, month: 2, day: 27, hour: 9)) == ICalLocalDateTime(year: 2026, month: 2, day: 27, hour: 9))
        #expect(after(ICalLocalDateTime(year: 2026, month: 2, day: 27, hour: 9, second: 1))
                == ICalLocalDateTime(year: 2026, month: 3, day: 13, hour: 9))
        #expect(after(ICalLocalDateTime(year: 2025, month: 1, day: 1)) == ICalLocalDateTime(year: 2026, month: 1, day: 30, hour: 9))
        // Across a year end, and COUNT still counts from DTSTART (the 3rd is Feb 27).
        #expect(after(ICalLocalDateTime(year: 2026, month: 12, day: 20)) == ICalLocalDateTime(year: 2027, month: 1, day: 1, hour: 9))
        #expect(after(ICalLocalDateTime(year: 2026, month: 2, day: 20), count: 3) == ICalLocalDateTime(year: 2026, month: 2, day: 27, hour: 9))
        #expect(after(ICalLocalDateTime(year: 2026, month: 2, day: 28), count: 3) == nil)
    }

    @Test func otherRulesStayWithLibical() {
        // 2026-03-02 is a Monday.
        let monday = Libical.floating(ICalLocalDateTime(year: 2026, month: 3, day: 2, hour: 9), isDate: false)
        #expect(DaySteps.days(ICalRuleText("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;WKST=SU"), start: monday) == 14)
        #expect(DaySteps.days(ICalRuleText("FREQ=DAILY;COUNT=3"), start: monday) == 1)
        for rule in ["FREQ=WEEKLY;BYDAY=TU", "FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=WEEKLY;BYDAY=1MO", "FREQ=MONTHLY",
                     "FREQ=DAILY;BYHOUR=9,17", "FREQ=DAILY;BYMONTH=3", "FREQ=DAILY;INTERVAL=5000", "FREQ=DAILY;FREQ=WEEKLY",
                     "FREQ=HOURLY", "FREQ=DAILY;RSCALE=GREGORIAN", "INTERVAL=2"] {
            #expect(DaySteps.days(ICalRuleText(rule), start: monday) == nil, "\(rule)")
        }
    }
}
