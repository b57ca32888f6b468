@testable import DatebookCLI
import Foundation
import Testing

/// Hostile and heavy calendars cost their own event, never the planner (issue 26), end to end.
struct HostileCalendarCommandTests {
    static func fixture(_ name: String) -> String { RecurrenceLimitTests.fixture(name) }

    /// One observance repeating every second or minute hung `import`, `feed add` and every `tick`
    /// (libical expanded it on the first conversion; minutely: still running after 120 s).
    @Test(arguments: ["hostile-zone-secondly.ics", "hostile-zone-minutely.ics", "hostile-zone-every-second.ics"])
    func aHostileZoneCostsNoMoreThanItsOwnEvent(name: String) throws {
        let sandbox = Sandbox()
        let path = Self.fixture(name)
        let clock = ContinuousClock()
        var run = CLIRun(out: "", err: "", code: -1)
        let elapsed = clock.measure { run = sandbox.run(["import", path]) }
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasPrefix("imported 2 events from \(path) ("), "\(run.out)")
        #expect(run.err.contains("datebook: warning: \(path):4: VTIMEZONE 'Office Time "), "\(run.err)")
        #expect(run.err.contains("the rule was dropped"), "\(run.err)")
        // Under a second in a release build (bench/overrides.py); generous here for a debug build on a busy machine.
        #expect(elapsed < .seconds(10), "import took \(elapsed)")
        let list = sandbox.run(["list", "--period", "next30"]).out
        #expect(list.contains("Meeting in a hostile zone           Thu 2026-12-10 09:00"), "\(list)")
    }

    @Test func aFeedWithAHostileZoneIsAddedAndTicked() throws {
        let sandbox = Sandbox()
        let path = Self.fixture("hostile-zone-minutely.ics")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let added = sandbox.run(["feed", "add", "hostile", path])
            #expect(added.code == 0, "\(added.err)")
            #expect(added.err.contains("VTIMEZONE 'Office Time MINUTELY'"), "\(added.err)")
            #expect(sandbox.run(["tick"]).code == 0)
            #expect(sandbox.run(["feed", "refresh"]).code == 0)
        }
        #expect(elapsed < .seconds(20), "feed add, tick and refresh took \(elapsed)")
        #expect(sandbox.run(["list", "--period", "next30"]).out.contains("Meeting in a hostile zone"))
    }

    /// A daily series from 2026-11-01 with `count` instances moved from 09:00 to 10:00.
    static func overrides(_ count: Int) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//datebook//tests//EN",
                     "BEGIN:VEVENT", "UID:series", "SUMMARY:Daily", "DTSTART;TZID=Europe/Berlin:20261101T090000",
                     "RRULE:FREQ=DAILY", "END:VEVENT"]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyyMMdd"
        let first = DateComponents(calendar: calendar, year: 2026, month: 11, day: 1).date ?? Date()
        for n in 0..<count {
            let day = formatter.string(from: first.addingTimeInterval(TimeInterval(n) * 86_400))
            lines += ["BEGIN:VEVENT", "UID:series", "SUMMARY:Moved \(n)", "RECURRENCE-ID;TZID=Europe/Berlin:\(day)T090000",
                      "DTSTART;TZID=Europe/Berlin:\(day)T100000", "END:VEVENT"]
        }
        return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    /// N overrides of one series took time growing faster than N² (1,200: 30 s): each rewrote and
    /// re-expanded the master. 10,000 in 2 s is the release budget (bench/overrides.py).
    @Test func manyOverridesOfOneSeriesImportInLinearTime() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/overrides.ics"
        try Self.overrides(3_000).write(toFile: path, atomically: true, encoding: .utf8)
        let clock = ContinuousClock()
        var run = CLIRun(out: "", err: "", code: -1)
        let elapsed = clock.measure { run = sandbox.run(["import", path]) }
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out == "imported 3001 events from \(path)\n", "\(run.err)")
        #expect(elapsed < .seconds(15), "import took \(elapsed)")
        // Now is 2026-11-30 09:00: each day of the week is moved an hour later, and the series' own instance is gone.
        let week = sandbox.run(["list", "--period", "next7"]).out
        #expect(week.contains("Moved 29                            Mon 2026-11-30 10:00"), "\(week)")
        #expect(week.contains("Moved 35                            Sun 2026-12-06 10:00"), "\(week)")
        #expect(!week.contains("Daily"), "\(week)")
    }

    @Test func aRuleThatCanNeverMatchIsRefusedByAddAndSkippedOnImport() {
        let sandbox = Sandbox()
        let add = sandbox.run(["add", "x", "--at", "tomorrow 9:00", "--repeat", "FREQ=MONTHLY;BYDAY=6MO"])
        #expect(add.code == 64)
        #expect(add.err.hasPrefix("datebook: --repeat 'FREQ=MONTHLY;BYDAY=6MO' is refused: BYDAY=6MO can never match "
                                  + "(a month has at most 5 of each weekday)\n"), "\(add.err)")
        let path = Self.fixture("never-matching-rules.ics")
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.out == "imported 5 events from \(path) (4 warnings)\n", "\(run.err)")
        #expect(run.err.contains("\(path):4: UID sixth-monday: BYDAY=6MO can never match (a month has at most 5 of each weekday); "
                                 + "only DTSTART is used"), "\(run.err)")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let list = sandbox.run(["list", "--period", "all"]).out
            #expect(list.contains("Sixth Monday") && list.contains("Last Monday"), "\(list)")
        }
        #expect(elapsed < .seconds(5), "list took \(elapsed)")
    }

    /// Each used to import 0 events (or drop the next one) with exit 0 and no warning.
    @Test(arguments: [
        ("stray-end-vtimezone.ics", 1, ":4: END:VTIMEZONE closes no BEGIN:VTIMEZONE; the line was ignored"),
        ("stray-end-vevent.ics", 3, ":10: END:VEVENT closes no BEGIN:VEVENT; the line was ignored"),
        ("vevent-after-end-vcalendar.ics", 2, ":11: BEGIN:VEVENT after END:VCALENDAR (line 10); it and the components after it "
            + "are read as part of the calendar"),
        ("nested-vcalendar.ics", 2, ":4: BEGIN:VCALENDAR inside another VCALENDAR; its components are read as the outer calendar's"),
        ("duplicated-end-daylight.ics", 1, ":13: END:DAYLIGHT inside VTIMEZONE closes no BEGIN:DAYLIGHT; the line was ignored"),
        ("non-utf8.ics", 2, ":7: UID latin1: the line has bytes that are not UTF-8 (is the file Latin-1?)"),
    ])
    func aRepairedFileImportsEveryEventAndSaysWhatWasRepaired(name: String, events: Int, warning: String) {
        let sandbox = Sandbox()
        let path = Self.fixture(name)
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.out == "imported \(events) event\(events == 1 ? "" : "s") from \(path) (1 warning)\n", "\(run.err)")
        #expect(run.err.hasPrefix("datebook: warning: \(path)\(warning)"), "\(run.err)")
    }

    @Test func crOnlyLineEndsImportEveryEvent() {
        let sandbox = Sandbox()
        let path = Self.fixture("cr-line-ends.ics")
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.out == "imported 2 events from \(path)\n", "\(run.err)")
    }

    @Test func aLatin1ByteInPlannerJSONIsAWarningNamingItsLine() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/latin1.json"
        let bytes = Array("{ \"datebook\": 1, \"events\": [\n  { \"id\": \"00000000000000b1\", \"title\": \"Caf".utf8) + [0xE9]
            + Array("\", \"start\": \"2026-12-01T09:00:00Z\", \"allDay\": false, \"timeZone\": \"Europe/Berlin\", ".utf8)
            + Array("\"symbol\": \"star.fill\", \"color\": \"red\", \"tasks\": [] } ] }\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = sandbox.run(["import", path])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err == "datebook: warning: \(path):2: the line has bytes that are not UTF-8 (is the file Latin-1?); "
                + "each was read as U+FFFD; save the file as UTF-8 and import it again\n")
        #expect(sandbox.run(["list", "--period", "all"]).out.contains("Caf\u{FFFD}"))
    }

    @Test func aMissingImportFileExits66() {
        let sandbox = Sandbox()
        let missing = sandbox.home + "/nothing-here.ics"
        let run = sandbox.run(["import", missing])
        #expect(run.code == 66)
        #expect(run.err == "datebook: \(missing): no such file; check the path\n")
    }

    /// ICS import warned when a rule reached the 1,000-occurrence cut; `add` and JSON import did not.
    @Test func addAndPlannerJSONWarnAtTheOccurrenceCut() throws {
        let sandbox = Sandbox()
        let hourly = sandbox.run(["add", "Every hour", "--at", "tomorrow 9:00", "--repeat", "FREQ=HOURLY"])
        #expect(hourly.code == 0, "\(hourly.err)")
        #expect(hourly.err.hasPrefix("datebook: warning: recurrence truncated: the rule gives 1000 or more occurrences"), "\(hourly.err)")
        #expect(sandbox.run(["add", "Weekly", "--at", "tomorrow 9:00", "--repeat", "weekly"]).err.isEmpty)
        let path = sandbox.home + "/planner.json"
        try """
            { "datebook": 1, "events": [
              { "id": "00000000000000a1", "title": "Every hour in JSON", "start": "2026-12-01T09:00:00Z", "allDay": false,
                "timeZone": "Europe/Berlin", "symbol": "star.fill", "color": "red", "recurrence": "FREQ=HOURLY", "tasks": [] },
              { "id": "00000000000000a2", "title": "Weekly in JSON", "start": "2026-12-01T09:00:00Z", "allDay": false,
                "timeZone": "Europe/Berlin", "symbol": "star.fill", "color": "red", "recurrence": "FREQ=WEEKLY", "tasks": [] } ] }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["import", path])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err.split(separator: "\n").map(String.init) == [
            "datebook: warning: \(path): event 00000000000000a1 \"Every hour in JSON\": recurrence truncated: the rule gives 1000 "
                + "or more occurrences in the planner's window, the most kept per event; none after Tue 2027-01-12 01:00 is shown or alerted",
        ], "\(run.err)")
    }
}
