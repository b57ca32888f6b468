@testable import DatebookCLI
import Foundation
import Testing

/// Hostile and unusual rules from real calendars, end to end (issue 13).
struct RecurrenceLimitTests {
    static func fixture(_ name: String) -> String {
        cliFixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DatebookICalTests/Fixtures/" + name).path
    }

    /// One 743-byte rule made import take 16 s and every later `list`, `add` and `tick` 15–68 s.
    @Test func aRuleOfEverySecondCostsOnlyItsOwnOccurrences() {
        var sandbox = Sandbox()
        sandbox.now = "2026-11-30 09:00"
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let imported = sandbox.run(["import", Self.fixture("hostile-rule.ics")])
            #expect(imported.code == 0)
            #expect(imported.err.contains("hostile-rule.ics: UID hostile: recurrence truncated: the rule gives 1000 or more"),
                    "\(imported.err)")
            #expect(sandbox.run(["list", "--period", "next30"]).out.contains("Weekly neighbour                    Mon 2026-12-07 09:00"))
            #expect(sandbox.run(["add", "Dentist", "--at", "tomorrow 10:00"]).code == 0)
            #expect(sandbox.run(["tick"]).code == 0)
        }
        // Expanding the whole rule in each command took about 14 s a command; a loaded machine stays far below.
        #expect(elapsed < .seconds(30), "import, list, add and tick took \(elapsed)")
        let show = sandbox.run(["show", "Every second of the year"]).out
        #expect(show.contains("  warning  recurrence truncated: the rule gives 1000 or more occurrences in the planner's window, "
                              + "the most kept per event; none after Sun 2026-11-22 21:16 is shown or alerted\n"), "\(show)")
        let status = sandbox.run(["status"]).out
        #expect(status.contains("Recurring events whose occurrences are cut short (not all are alerted):\n  Every second of the year ("))
        #expect(!sandbox.run(["show", "Weekly neighbour"]).out.contains("warning"))
    }

    @Test func exruleRemovesItsStartsAndIsExportedAgain() {
        var sandbox = Sandbox()
        sandbox.now = "2026-01-04 09:00"
        sandbox.tz = "UTC"
        #expect(sandbox.run(["import", Self.fixture("exrule.ics")]).code == 0)
        let list = sandbox.run(["list", "--period", "next30"]).out + sandbox.run(["list", "--period", "next7"]).out
        #expect(list.contains("2026-01-09 09:00") && list.contains("2026-01-12 09:00"))
        #expect(!list.contains("2026-01-10") && !list.contains("2026-01-11"), "\(list)")
        #expect(sandbox.run(["export", "--format", "ics"]).out.contains("EXRULE:FREQ=WEEKLY;BYDAY=SA,SU\r\n"))
    }

    @Test func aMisspeltRulePartIsAWarningOnImportAndRefusedByAdd() {
        let sandbox = Sandbox()
        let run = sandbox.run(["import", Self.fixture("misspelt-rule.ics")])
        #expect(run.code == 0)
        #expect(run.err.contains(":4: UID misspelt-until: 'UNTL=' is not an RRULE part (did you mean UNTIL=?); only DTSTART is used"), "\(run.err)")
        let add = sandbox.run(["add", "x", "--at", "tomorrow 9:00", "--repeat", "FREQ=DAILY;UNTL=20270101"])
        #expect(add.code == 64 || add.code == 65)
        #expect(add.err.contains("'UNTL=' is not an RRULE part (did you mean UNTIL=?)"), "\(add.err)")
    }
}

/// What real servers write, imported and listed (issue 13).
struct CalendarDialectTests {
    @Test func googlesXWrTimezoneFixesFloatingTimesToThatZone() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 09:00"
        #expect(sandbox.run(["import", RecurrenceLimitTests.fixture("xwr-timezone.ics")]).code == 0)
        let list = sandbox.run(["list", "--period", "next7"]).out
        // 09:30 New York is 15:30 in Berlin.
        #expect(list.contains("Floating standup                    Wed 2026-12-02 15:30"), "\(list)")
        #expect(sandbox.run(["show", "Floating standup"]).out.contains("the event's own zone is America/New_York: Wed 2026-12-02 09:30\n"))
    }

    @Test func outlooksTimedRecurrenceIDMovesTheAllDayInstance() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 09:00"
        #expect(sandbox.run(["import", RecurrenceLimitTests.fixture("outlook-allday-override.ics")]).code == 0)
        let list = sandbox.run(["list", "--period", "next30"]).out + sandbox.run(["list", "--period", "next7"]).out
        #expect(list.contains("Weekly all-day (moved)              Tue 2026-12-15 all day"), "\(list)")
        #expect(!list.contains("2026-12-14"), "the original day must be gone: \(list)")
        #expect(list.contains("Mon 2026-12-21 all day"))
    }

    @Test func aStaleOverrideIsDroppedWithAWarning() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 09:00"
        let run = sandbox.run(["import", RecurrenceLimitTests.fixture("stale-override.ics")])
        #expect(run.code == 0)
        #expect(run.err.contains(":13: UID moved-to-mondays: RECURRENCE-ID 20261215T090000Z (SEQUENCE 1) is older than its "
                                 + "series (SEQUENCE 2), which no longer has that instance; the stale override was dropped"), "\(run.err)")
        let list = sandbox.run(["list"]).out
        #expect(!list.contains("stale"), "\(list)")
        #expect(list.contains("Planning (older, its Monday still there) Mon 2026-12-14 15:00") || list.contains("Mon 2026-12-14 15:00"))
        #expect(list.contains("Planning (moved to Tuesday)") && !list.contains("Mon 2026-12-21"))
    }

    @Test func thisAndFutureMovesEveryLaterInstance() {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 08:00"
        let run = sandbox.run(["import", RecurrenceLimitTests.fixture("thisandfuture.ics")])
        #expect(run.code == 0 && run.err.isEmpty, "\(run.err)")
        let list = sandbox.run(["list", "--period", "next7"]).out + sandbox.run(["list", "--period", "next30"]).out
        for day in ["Tue 2026-12-01 09:00", "Fri 2026-12-04 09:00"] { #expect(list.contains("Standup                             " + day)) }
        for day in ["Sat 2026-12-05 09:30", "Wed 2026-12-09 09:30", "Thu 2026-12-10 09:30"] {
            #expect(list.contains("Standup (later, longer)             " + day), "\(day): \(list)")
        }
        #expect(!list.contains("2026-12-08") && !list.contains("2026-12-11") && !list.contains("2026-12-05 09:00"))
        #expect(list.contains("Review                              Mon 2026-12-14 16:00"))
        #expect(list.contains("Review (Tuesdays from now on)       Tue 2026-12-22 17:00"))
        #expect(list.contains("Review (Tuesdays from now on)       Tue 2026-12-29 17:00"))
        #expect(!list.contains("Mon 2026-12-21") && !list.contains("Mon 2026-12-28"), "\(list)")
        // A backup restores the split series: the override that recurs is written with RANGE=THISANDFUTURE.
        let exported = sandbox.run(["export", "--format", "ics"]).out
        #expect(exported.contains("RECURRENCE-ID;RANGE=THISANDFUTURE:20261221T150000Z\r\n"))
        let copy = sandbox.home + "/copy.ics"
        #expect((try? exported.write(toFile: copy, atomically: true, encoding: .utf8)) != nil)
        let restored = sandbox.home + "/restored.sqlite3"
        let again = sandbox.run(["import", copy], storePath: restored)
        #expect(again.code == 0 && again.err.isEmpty, "\(again.err)")
        let relisted = sandbox.run(["list", "--period", "next7"], storePath: restored).out
            + sandbox.run(["list", "--period", "next30"], storePath: restored).out
        #expect(relisted == list)
    }

    /// RECURRENCE-IDs name instances of the original series (RFC 5545; recurring-ical-events, which
    /// `PeerCheckTests` runs on the same fixture): a THISANDFUTURE override of an instance another one
    /// moved, and a single override of such an instance, reach the part that holds it, in any file order.
    @Test func aChainOfThisAndFutureOverridesAndSingleOnesApplyInOrder() {
        var sandbox = Sandbox()
        sandbox.now = "2026-11-30 08:00"
        let run = sandbox.run(["import", RecurrenceLimitTests.fixture("thisandfuture-chain.ics")])
        #expect(run.code == 0)
        // Only the override whose RECURRENCE-ID the series never reaches is warned about, and not as "BYxxx parts".
        #expect(run.err.split(separator: "\n") == [
            "datebook: warning: \(RecurrenceLimitTests.fixture("thisandfuture-chain.ics")):52: UID ended-before: RANGE=THISANDFUTURE "
                + "names no instance of its series (RECURRENCE-ID 20261205T120000Z); the override applies to its own instance only",
        ], "\(run.err)")
        func standups(_ storePath: String? = nil) -> [String] {
            let list = sandbox.run(["list", "--period", "next7"], storePath: storePath).out
                + sandbox.run(["list", "--period", "next30"], storePath: storePath).out
            return list.split(separator: "\n").filter { $0.contains("Standup") }.map { line in
                String(line.dropFirst(13)).trimmingCharacters(in: .whitespaces)
                    .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
            }
        }
        let expected = [
            "Standup Tue 2026-12-01 09:00", "Standup Wed 2026-12-02 09:00", "Standup (half past nine) Thu 2026-12-03 09:30",
            "Standup (late, once) Fri 2026-12-04 11:30", "Standup (half past nine) Sat 2026-12-05 09:30",
            "Standup (ten o'clock) Sun 2026-12-06 10:00", "Standup (ten o'clock) Mon 2026-12-07 10:00",
            "Standup (ten o'clock) Wed 2026-12-09 10:00", "Standup (afternoon, once) Thu 2026-12-10 14:00",
            "Standup (ten o'clock) Fri 2026-12-11 10:00", "Standup (ten o'clock) Sat 2026-12-12 10:00",
        ]
        #expect(standups() == expected)
        // The export re-imports to the same occurrences.
        let exported = sandbox.run(["export", "--format", "ics"]).out
        let copy = sandbox.home + "/copy.ics"
        #expect((try? exported.write(toFile: copy, atomically: true, encoding: .utf8)) != nil)
        let restored = sandbox.home + "/restored.sqlite3"
        let again = sandbox.run(["import", copy], storePath: restored)
        #expect(again.code == 0, "\(again.err)")
        #expect(standups(restored) == expected)
    }

    /// A date-time RECURRENCE-ID of an all-day series names the day of its own wall clock (a UTC or floating
    /// midnight), so the viewer's zone changes nothing: in New York `20261228T000000Z` once named 27 December.
    @Test(arguments: ["UTC", "America/New_York"])
    func aTimedRecurrenceIDOfAnAllDaySeriesMovesItsDayInEveryZone(zone: String) throws {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-01 08:00"
        sandbox.tz = zone
        let run = sandbox.run(["import", RecurrenceLimitTests.fixture("allday-timed-recurrence-id.ics")])
        #expect(run.code == 0 && run.err.isEmpty, "\(run.err)")
        let json = sandbox.run(["list", "--json", "--period", "all"]).out
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rows = (list["periods"] as? [[String: Any]] ?? []).flatMap { $0["events"] as? [[String: Any]] ?? [] }
        let market = rows.filter { ($0["title"] as? String)?.hasPrefix("Market day") == true }
        let days = market.map { row in
            "\(row["title"] as? String ?? "") \(String((row["start"] as? String ?? "").prefix(10)))"
                + ((row["override"] as? [String: Any]).map { " replaces \(String(($0["replaces"] as? String ?? "").prefix(10)))" } ?? "")
        }
        #expect(days == [
            "Market day 2026-12-07",
            "Market day (moved, UTC id) 2026-12-15 replaces 2026-12-14",
            "Market day (moved, floating id) 2026-12-22 replaces 2026-12-21",
            "Market day (an afternoon instead) 2026-12-29 replaces 2026-12-28",
            "Market day 2027-01-04",
        ], "\(json)")
    }

    /// Rules libical 3.0 expands wrongly (`RuleLimits`), end to end: imported from a file and typed
    /// with `add --repeat`, listed on the days the rule names and no others.
    @Test func theLastDayOfEachMonthAndTheLastMeetingOfEachWeekAreListedOnTheirDays() throws {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-02 08:00"
        sandbox.tz = "Europe/Berlin"
        let file = sandbox.home + "/rules.ics"
        try CalDAVToDoListTests.calendar("""
            BEGIN:VEVENT\r
            UID:retro\r
            DTSTAMP:20261101T000000Z\r
            SUMMARY:Retro\r
            DTSTART;TZID=Europe/Berlin:20261103T160000\r
            RRULE:FREQ=WEEKLY;BYDAY=TU,TH;BYSETPOS=-1\r
            END:VEVENT\r

            """).write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        #expect(sandbox.run(["add", "Rent", "--at", "2026-11-30 09:00", "--repeat", "FREQ=DAILY;BYMONTHDAY=-1"]).code == 0)
        let list = sandbox.run(["list", "--period", "next30"]).out + sandbox.run(["list", "--period", "next7"]).out
        let days = list.split(separator: "\n").filter { $0.contains("Retro") || $0.contains("Rent") }
            .map { $0.split(separator: " ").suffix(4).joined(separator: " ") }.sorted()
        // Thursdays only (libical gave the Tuesdays too), and the 31st (libical gave no day at all).
        #expect(days == ["Rent Thu 2026-12-31 09:00", "Retro Thu 2026-12-03 16:00", "Retro Thu 2026-12-10 16:00",
                         "Retro Thu 2026-12-17 16:00", "Retro Thu 2026-12-24 16:00", "Retro Thu 2026-12-31 16:00"], "\(list)")
    }
}
