@testable import DatebookCLI
import Foundation
import Testing

/// What a new user meets on the first day: output that reads right without colour, options with one
/// meaning each, and results that say where they went.
struct FirstDayTests {
    /// Events on the 2nd, 3rd and 5th: each mark follows its own day, and the columns stay aligned.
    @Test func calendarMarkFollowsItsDay() throws {
        let sandbox = Sandbox()
        for day in ["2026-12-02 10:00", "2026-12-03 10:00", "2026-12-05 10:00", "2026-12-12 10:00", "2026-12-13 10:00"] {
            #expect(sandbox.run(["add", "Event", "--at", day]).code == 0)
        }
        let out = sandbox.run(["cal", "2026-12"]).out
        snapshots.expect(out, named: "cal-marks.txt")
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2] == "          1   2*  3*  4   5*")
        #expect(lines[3] == "  6   7   8   9  10  11  12*")
        #expect(lines[4] == " 13* 14  15  16  17  18  19")
        // Every day number sits under its weekday label.
        let header = lines[1]
        for line in lines[2...6] {
            for (offset, character) in line.enumerated() where character.isNumber {
                let column = header.index(header.startIndex, offsetBy: offset)
                #expect(header[column].isLetter, "'\(line)' column \(offset) is not under a weekday")
            }
        }
    }

    @Test func showNamesTheZoneTheTimesAreShownIn() {
        let sandbox = Sandbox()
        #expect(sandbox.run(["--tz", "Etc/UTC", "add", "Standup", "--at", "2026-12-01 08:00"]).code == 0)
        let show = sandbox.run(["show", "Standup"])
        #expect(show.out.contains("  when     Tue 2026-12-01 09:00  (Next 7 Days)\n"), "\(show.out)")
        #expect(show.out.contains("  zone     Europe/Berlin (times above); the event's own zone is Etc/UTC: Tue 2026-12-01 08:00\n"))
        sandbox.run(["add", "Lunch", "--at", "2026-12-01 12:00"])
        #expect(sandbox.run(["show", "Lunch"]).out.contains("  zone     Europe/Berlin\n"))
    }

    /// 02:30 on 28 March 2027 is not on Berlin's clocks: `add` and `edit` refuse it as a start or an
    /// alert time and say which time it would be (saved as 03:30 before, with no word); all-day and
    /// the hour either side are fine.
    @Test func aStartTheClocksSkipIsRefusedNamingTheGap() {
        let sandbox = Sandbox()
        let refused = sandbox.run(["add", "Flight", "--at", "2027-03-28 02:30"])
        #expect(refused.code == 64)
        let gap = "\"02:30\" is not a time on the clock in Europe/Berlin on 2027-03-28: it goes from 02:00 straight to 03:00 "
            + "(did you mean '2027-03-28 03:30'?)"
        #expect(refused.err.hasPrefix("datebook: cannot read time \"2027-03-28 02:30\": " + gap + "\n"), "\(refused.err)")
        #expect(sandbox.run(["list", "--period", "future"]).out.contains("No events"))
        #expect(sandbox.run(["add", "Flight", "--at", "2027-03-28 03:30"]).code == 0)
        #expect(sandbox.run(["edit", "Flight", "--at", "2027-03-28 02:59"]).code == 64)
        #expect(sandbox.run(["--tz", "Asia/Tokyo", "edit", "Flight", "--at", "2027-03-28 02:30"]).code == 0)  // no gap in Tokyo
        #expect(sandbox.run(["add", "Holiday", "--at", "2027-03-28 02:30", "--all-day"]).code == 0)
        // An alert at such a time, the same.
        let alert = sandbox.run(["add", "Call", "--at", "2027-03-28 10:00", "--alert", "at 2027-03-28 02:30"])
        #expect(alert.code == 64)
        #expect(alert.err.hasPrefix("datebook: alert 'at 2027-03-28 02:30': cannot read time \"2027-03-28 02:30\": " + gap),
                "\(alert.err)")
        #expect(sandbox.run(["add", "Call", "--at", "2027-03-28 10:00", "--alert", "at 2027-03-28 03:30"]).code == 0)
        let unread = sandbox.run(["add", "Call", "--at", "2027-03-28 10:00", "--alert", "at tomorow"])
        #expect(unread.err.contains("cannot read alert lead time"))
        #expect(sandbox.run(["list", "--period", "future"]).out.contains("Sun 2027-03-28"))
    }

    /// `--repeat` with BYDAY ordinals RFC 5545 forbids: refused, with the rule to give instead (an
    /// import reads them without the ordinals, with a warning).
    @Test func aRepeatWithOrdinalsItsFrequencyForbidsIsRefused() {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "Walk", "--at", "tomorrow 07:00", "--repeat", "FREQ=DAILY;BYDAY=-1FR"])
        #expect(run.code == 64)
        #expect(run.err.hasPrefix("datebook: --repeat 'FREQ=DAILY;BYDAY=-1FR' is refused: RFC 5545 forbids ordinals in BYDAY=-1FR "
                                  + "there; give 'FREQ=DAILY;BYDAY=FR' for every one of those weekdays"), "\(run.err)")
        #expect(sandbox.run(["add", "Walk", "--at", "tomorrow 07:00", "--repeat", "FREQ=MONTHLY;BYDAY=-1FR"]).code == 0)
    }

    @Test func aRepeatThatEndsBeforeItStartsIsRefused() {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "Walk", "--at", "tomorrow 07:00", "--repeat", "daily", "--until", "2026-11-01"])
        #expect(run.code == 64)
        #expect(run.err.hasPrefix("datebook: --until 2026-11-01 is before the event's start (Tue 2026-12-01 07:00), so it would never occur"))
        #expect(sandbox.run(["list"]).out.contains("No events"))
        // The start's own day is a valid last day, and an event in the past may end in the past.
        #expect(sandbox.run(["add", "Walk", "--at", "tomorrow 07:00", "--repeat", "daily", "--until", "tomorrow"]).code == 0)
        #expect(sandbox.run(["add", "Old", "--at", "2026-10-01 07:00", "--repeat", "weekly", "--until", "2026-11-01"]).code == 0)
        #expect(sandbox.run(["list", "--period", "past"]).out.contains("Thu 2026-10-29 07:00"))
        #expect(sandbox.run(["edit", "Walk", "--until", "2026-11-01"]).code == 64)
        // Moving the start past the end of the repetition is refused the same way.
        let moved = sandbox.run(["edit", "Walk", "--at", "2026-12-05 07:00"])
        #expect(moved.code == 64)
        #expect(moved.err.hasPrefix("datebook: the repetition 'FREQ=DAILY;UNTIL="), "\(moved.err)")
        #expect(moved.err.contains("ends before the event's start (Sat 2026-12-05 07:00), so it would never occur"))
        #expect(sandbox.run(["edit", "Walk", "--at", "2026-12-05 07:00", "--until", "2026-12-31"]).code == 0)
    }

    @Test func colorAlwaysIsTheOutputSwitchEverywhere() {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "X", "--at", "tomorrow", "--color", "always", "--event-color", "red"])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("\u{1B}["))
        #expect(run.err.isEmpty)
        #expect(sandbox.run(["show", "X"]).out.contains("color red"))
        #expect(sandbox.run(["add", "Y", "--at", "tomorrow", "--color", "never"]).code == 0)
    }

    @Test func theOldEventColorSpellingStillWorksWithANote() {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "X", "--at", "tomorrow", "--color", "green"])
        #expect(run.code == 0)
        #expect(run.err == "datebook: --color NAME for the event colour is deprecated; use --event-color green\n")
        #expect(sandbox.run(["show", "X"]).out.contains("color green"))
        #expect(!run.out.contains("\u{1B}["))
        let edit = sandbox.run(["edit", "X", "--color", "mint", "--color", "always"])
        #expect(edit.code == 0)
        #expect(edit.out.contains("\u{1B}["))
        #expect(sandbox.run(["show", "X"]).out.contains("color mint"))
        #expect(sandbox.run(["list", "--color", "red"]).err.hasPrefix("datebook: --color expects auto, always or never, got 'red'"))
    }

    @Test func templatesShowTakesANameWithoutItsMustacheSuffix() {
        let sandbox = Sandbox()
        let short = sandbox.run(["templates", "show", "digest.md"])
        #expect(short.code == 0, "\(short.err)")
        #expect(!short.out.isEmpty)
        #expect(short.out == sandbox.run(["templates", "show", "digest.md.mustache"]).out)
    }

    /// The example config's `~/notes/{{date}}.md` on a machine without `~/notes`: the message says what to run.
    @Test func aFileChannelWithoutItsFolderSaysHowToCreateIt() throws {
        let sandbox = Sandbox()
        let config = sandbox.home + "/config.json5"
        try #"{ channels: { notes: { type: "file", path: "~/notes/{{date}}.md", format: "markdown" } } }"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = sandbox.run(["--config", config, "channels", "test", "notes"])
        #expect(run.code == 69)
        #expect(run.err.contains("directory \(sandbox.home)/notes does not exist; create it first (mkdir -p \(sandbox.home)/notes)"), "\(run.err)")
    }

    /// A channel whose secret is missing is named once: in the header, not again in the reason.
    @Test func dryRunNamesAnUnavailableChannelOnce() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let config = sandbox.home + "/config.json5"
        try """
            { channels: { mail: { type: "email", smtp: "smtps://smtp.example.org:465", username: "me@example.org",
                                  password: { env: "DATEBOOK_TEST_NO_PASSWORD" }, from: "me@example.org", to: ["me@example.org"] } } }
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = sandbox.run(["--config", config, "send", "digest", "--channel", "mail", "--channel", "mail", "--dry-run"])
        #expect(run.out == "── email 'mail' ──\nunavailable: environment variable DATEBOOK_TEST_NO_PASSWORD is not set\n")
        #expect(run.code == 69)
    }
}
