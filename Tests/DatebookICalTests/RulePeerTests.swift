import DatebookICal
import DatebookTestSupport
import Foundation
import Testing

/// Seeded random rules, each expanded by datebook and by Python's recurring-ical-events (dateutil),
/// occurrence by occurrence over fourteen months (four years for the YEARLY ones of `yearlyEvent`).
/// The generators keep to rules where the two mean the same (docs/ical-notes.md lists where they do
/// not): no COUNT (dateutil does not count an off-rule DTSTART), no plain HOURLY across a clock
/// change, a YEARLY rule with BYMONTHDAY names its months, and BYSETPOS starts on a whole first week
/// (dateutil reads the first week from DTSTART on) or a whole first day.
@Suite struct RulePeerTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "UTC"]
    static let weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// One VEVENT's DTSTART and RRULE lines.
    static func event(_ random: inout DayStepsTests.Seeded) -> [String] {
        let freq = random.pick(["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY"])
        var parts = ["FREQ=\(freq)"]
        let allDay = freq != "HOURLY" && random.next(5) == 0
        if freq != "HOURLY", random.next(2) == 0 { parts.append("INTERVAL=\(2 + random.next(2))") }
        // BYSETPOS only where each period holds two or more (dateutil searches to the year 9999 for
        // a position that never matches): two weekdays a week, a weekday a month, two times a day or hour.
        var several = false
        if random.next(2) == 0 {
            var days = Array(Set((0..<(1 + random.next(3))).map { _ in random.pick(weekdays) })).sorted()
            several = freq == "MONTHLY" || freq == "YEARLY" || (freq == "WEEKLY" && days.count > 1)
            if freq == "MONTHLY" || freq == "YEARLY", random.next(3) == 0 {
                days = days.map { "\(random.pick([1, 2, -1, 3]))\($0)" }
                several = false
            }
            parts.append("BYDAY=" + days.joined(separator: ","))
        }
        // Days every month has, so no BYMONTH and BYMONTHDAY can miss each other.
        if freq == "HOURLY" || (freq != "WEEKLY" && !parts.contains { $0.hasPrefix("BYDAY=") } && random.next(3) == 0) {
            let days = Set((0..<(1 + random.next(2))).map { _ in random.pick([1, 2, 15, 28, -1, -2, -10]) })
            parts.append("BYMONTHDAY=" + days.sorted().map(String.init).joined(separator: ","))
            several = several && freq != "MONTHLY" && freq != "YEARLY"
        }
        if freq == "YEARLY" || (freq != "HOURLY" && random.next(4) == 0) {
            let months = Set((0..<(1 + random.next(3))).map { _ in 1 + random.next(12) })
            parts.append("BYMONTH=" + months.sorted().map(String.init).joined(separator: ","))
        }
        let hours = !allDay && freq != "HOURLY" && random.next(4) == 0
        if hours { parts.append("BYHOUR=" + random.pick(["9,17", "0,13,23", "8,12"])) }
        if freq == "HOURLY", random.next(2) == 0 { parts.append("BYMINUTE=0,30") }
        several = several || hours || parts.contains("BYMINUTE=0,30")
        let positions = several && random.next(2) == 0
        if positions { parts.append("BYSETPOS=" + random.pick(["1", "-1", "2", "1,-1", "-2"])) }
        let wkst = freq == "WEEKLY" && random.next(2) == 0 ? random.pick(["SU", "TU", "WE", "TH", "FR", "SA"]) : "MO"
        if wkst != "MO" { parts.append("WKST=\(wkst)") }
        // A plain HOURLY rule steps in elapsed hours; with BYMONTHDAY it stays on the wall clock, so
        // it keeps to UTC (no clock change) and a few weeks.
        let zone = freq == "HOURLY" ? "UTC" : random.pick(zones)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TestSupport.zone("UTC")
        var day = calendar.date(from: DateComponents(year: 2025, month: 11, day: 1 + random.next(28))) ?? Date()
        day += TimeInterval(86_400 * random.next(330))
        if freq == "WEEKLY" && positions {
            // dateutil reads the first week from DTSTART on: start on the week's first day.
            let want = (weekdays.firstIndex(of: wkst) ?? 0) + 2  // Calendar: 1 = Sunday
            while calendar.component(.weekday, from: day) != (want > 7 ? want - 7 : want) { day += 86_400 }
        }
        let date = calendar.dateComponents([.year, .month, .day], from: day)
        let ymd = String(format: "%04d%02d%02d", date.year ?? 0, date.month ?? 0, date.day ?? 0)
        // Every rule ends (dateutil searches a rule that never matches up to the year 9999), most after the window.
        let until = day + TimeInterval(86_400 * (freq == "HOURLY" ? 40 : 200 + random.next(300)))
        parts.append("UNTIL=" + (allDay ? Self.day(until) : Self.stamp(until)))
        // dateutil also reads the first day (hour) from DTSTART on: start at its beginning.
        let time = positions && (freq == "DAILY" || freq == "HOURLY") ? "T000000"
            : String(format: "T%02d%02d00", random.pick([0, 2, 9, 13, 23]), random.pick([0, 30]))
        let start = allDay ? "DTSTART;VALUE=DATE:\(ymd)" : zone == "UTC" ? "DTSTART:\(ymd)\(time)Z" : "DTSTART;TZID=\(zone):\(ymd)\(time)"
        return [start, "RRULE:" + parts.joined(separator: ";")]
    }

    /// One YEARLY VEVENT with BYWEEKNO or BYYEARDAY beside what libical refuses or misplaces with
    /// them (BYMONTH, BYMONTHDAY, each other; weeks at the year's ends; WKST), and sometimes times of
    /// day and BYSETPOS. BYWEEKNO always has its days named: without them dateutil takes every day of
    /// those weeks where datebook takes DTSTART's weekday (RuleLimitsTests).
    static func yearlyEvent(_ random: inout DayStepsTests.Seeded) -> [String] {
        var parts = ["FREQ=YEARLY"]
        if random.next(4) == 0 { parts.append("INTERVAL=2") }
        let byWeek = random.next(2) == 0
        if byWeek {
            // dateutil counts a year's weeks wrongly for a WKST other than MO (53 for 2026 with WKST=SU,
            // whose week 1 begins on 4 January: 52), so the last weeks are drawn with WKST=MO only.
            let wkst = random.next(3) == 0 ? random.pick(["SU", "TU", "TH", "SA"]) : "MO"
            let choices = wkst == "MO" ? [1, 2, 20, 26, 52, 53, -1, -2] : [1, 2, 20, 26]
            let weeks = Set((0..<(1 + random.next(3))).map { _ in random.pick(choices) })
            parts.append("BYWEEKNO=" + weeks.sorted().map(String.init).joined(separator: ","))
            parts.append(random.pick(["BYDAY=" + Array(Set((0..<(1 + random.next(3))).map { _ in random.pick(weekdays) })).sorted()
                                          .joined(separator: ","),
                                      "BYMONTHDAY=" + random.pick(["1", "15", "-1", "28,29,30,31"]),
                                      "BYYEARDAY=" + random.pick(["1", "-1", "1,2,3,4,5,6,7", "130,140,150", "-3,-2,-1"])]))
            if wkst != "MO" { parts.append("WKST=" + wkst) }
        } else {
            parts.append("BYYEARDAY=" + random.pick(["1,100,200", "-1", "60", "59,60", "100,-100", "1,32,60,91,121,152,182,213"]))
            if random.next(2) == 0 { parts.append("BYMONTHDAY=" + random.pick(["1", "9,10", "-1", "1,2"])) }
        }
        if random.next(2) == 0 { parts.append("BYMONTH=" + random.pick(["1", "1,12", "2,3", "4,5,6,7", "5"])) }
        let hours = random.next(4) == 0
        if hours { parts.append("BYHOUR=9,17") }
        if random.next(4) == 0 { parts.append("BYSETPOS=" + (hours ? random.pick(["1", "-1", "2"]) : "1")) }
        let zone = random.pick(zones)
        let ymd = String(format: "2026%02d%02d", 1 + random.next(6), 1 + random.next(28))
        let time = String(format: "T%02d0000", random.pick([0, 9, 23]))
        parts.append("UNTIL=20300101T000000Z")
        let start = zone == "UTC" ? "DTSTART:\(ymd)\(time)Z" : "DTSTART;TZID=\(zone):\(ymd)\(time)"
        return [start, "RRULE:" + parts.joined(separator: ";")]
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    static func day(_ date: Date) -> String { String(stamp(date).prefix(8)) }

    @Test(.enabled(if: PeerCheckTests.available, "Python peer skipped: run scripts/setup.sh --test"), arguments: 0..<4)
    func randomRulesMatchPythonRecurringIcalEvents(seed: Int) throws {
        try Self.compare(seed: seed, until: (2027, 3)) { Self.event(&$0) }
    }

    @Test(.enabled(if: PeerCheckTests.available, "Python peer skipped: run scripts/setup.sh --test"), arguments: 0..<3)
    func randomWeekAndYearDayRulesMatchPythonRecurringIcalEvents(seed: Int) throws {
        try Self.compare(seed: seed, until: (2030, 1)) { Self.yearlyEvent(&$0) }
    }

    /// 80 events `make` draws from `seed`, expanded from 2026 to the first of the month `until` by
    /// datebook and by recurring-ical-events, compared per UID.
    static func compare(seed: Int, until: (year: Int, month: Int), _ make: (inout DayStepsTests.Seeded) -> [String]) throws {
        let python = try #require(PeerCheckTests.python)
        var random = DayStepsTests.Seeded(state: UInt64(seed) &* 0x2545_F491_4F6C_DD1D &+ 7)
        var lines: [String] = []
        var rules: [String: String] = [:]
        for n in 0..<80 {
            let event = make(&random)
            rules["r\(n)"] = event.joined(separator: " ")
            lines += ["BEGIN:VEVENT", "UID:r\(n)", "DTSTAMP:20260101T000000Z", "SUMMARY:r\(n)"] + event + ["END:VEVENT"]
        }
        let text = TestSupport.calendar(lines.map { $0 + "\r\n" }.joined())
        let folder = ScratchFolder("rule-peer")
        let path = folder.file("rules.ics")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let script = TestSupport.directory.appendingPathComponent("Support/peer.py").path
        let end = String(format: "%04d-%02d-01T00:00:00Z", until.year, until.month)
        let peer = try PeerCheckTests.run(python, [script, path, "2026-01-01T00:00:00Z", end, "UTC"])
        #expect(peer.status == 0, "peer.py failed: \(peer.error)")
        let theirs = Dictionary(grouping: peer.output.split(separator: "\n").map(String.init)) { $0.prefix { $0 != "\t" } }

        let zone = TestSupport.zone("UTC")
        let doc = try TestSupport.parse(text: text, zone: "UTC")
        let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"),
                                        TestSupport.instant(until.year, until.month, 1, zone: "UTC"))
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: "rules.ics", window: window, defaultTimeZone: zone,
                                              cap: 5_000)
        let ours = Dictionary(grouping: expansion.occurrences.map { occurrence -> String in
            if occurrence.event.start.isAllDay {
                let day = ICalLocalDateTime.of(occurrence.start, in: occurrence.event.timeZone(default: zone))
                return "\(occurrence.event.uid)\tD:\(ICalTestFormat.date(day))"
            }
            return "\(occurrence.event.uid)\tT:\(Int(occurrence.start.timeIntervalSince1970))"
        }) { $0.prefix { $0 != "\t" } }
        for uid in rules.keys.sorted() {
            let mine = (ours[Substring(uid)] ?? []).sorted(), peers = (theirs[Substring(uid)] ?? []).sorted()
            #expect(mine == peers, """
                \(rules[uid] ?? ""): only ours \(Set(mine).subtracting(peers).sorted().prefix(4)), \
                only the peer's \(Set(peers).subtracting(mine).sorted().prefix(4))
                """)
        }
    }
}
