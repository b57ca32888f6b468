@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// Recurring events however far away (issue 26, "Every occurrence, at any distance"): `list`,
/// `digest`, `preview` and the exported calendar, at +2, +10 and +100 years and −5 years.
struct SeriesReachCommandTests {
    /// The lines of `text` that mention `title`.
    static func lines(_ text: String, _ title: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.contains(title) }
    }

    @Test(arguments: [("2028-12-01", "Fri 2028-12-01 10:00"), ("2036-12-01", "Mon 2036-12-01 10:00"),
                      ("2126-12-01", "Sun 2126-12-01 10:00")])
    func aYearlyEventFarAheadShowsOnceInFutureWithItsRule(_ day: String, _ shown: String) {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Jubilee", "--at", day + " 10:00", "--repeat", "yearly"]).code == 0)
        #expect(sandbox.run(["add", "Same day once", "--at", day + " 10:00"]).code == 0)
        for period in ["all", "future"] {
            let list = sandbox.run(["list", "--period", period]).out
            let rows = Self.lines(list, "Jubilee")
            #expect(rows.count == 1, "\(list)")
            #expect(rows.first?.contains(shown) == true && rows.first?.hasSuffix("repeats yearly") == true, "\(list)")
            #expect(Self.lines(list, "Same day once").count == 1)
        }
        let json = sandbox.run(["list", "--period", "future", "--json"]).out
        #expect(json.contains("\"repeats\": \"FREQ=YEARLY\", \"forSeries\": true"), "\(json)")
    }

    @Test func aWeeklySeriesShowsEveryOccurrenceInTheNearPeriodsAndOnceInFuture() {
        let sandbox = Sandbox()  // now: Mon 2026-11-30 09:00 Berlin
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Standup", "--at", "2026-12-01 09:30", "--repeat", "weekly"]).code == 0)
        let list = sandbox.run(["list"]).out
        let rows = Self.lines(list, "Standup")
        // Next 7 Days: Dec 1; Next 30 Days: Dec 8, 15, 22, 29; Future: Jan 5 once.
        #expect(rows.count == 6, "\(list)")
        #expect(rows.last?.contains("Tue 2027-01-05 09:30") == true && rows.last?.hasSuffix("repeats weekly") == true, "\(list)")
        #expect(rows.dropLast().allSatisfy { !$0.contains("repeats") })
    }

    @Test(arguments: [("2024-11-25", "Mon 2024-11-25 18:00"), ("2021-11-29", "Mon 2021-11-29 18:00")])
    func aSeriesThatEndedYearsAgoShowsInPastByItsLastOccurrence(_ until: String, _ shown: String) {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Evening class", "--at", "2019-01-07 18:00", "--repeat", "weekly", "--until", until]).code == 0)
        let past = sandbox.run(["list", "--period", "past"]).out
        let rows = Self.lines(past, "Evening class")
        #expect(rows.count == 1, "\(past)")
        #expect(rows.first?.contains(shown) == true && rows.first?.contains("repeats FREQ=WEEKLY;UNTIL=") == true, "\(past)")
        #expect(Self.lines(sandbox.run(["list"]).out, "Evening class") == rows)
    }

    @Test func theDigestShowsAFarSeriesInFutureAndAnOldOneWithOpenTasksInOverdue() {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Decade review", "--at", "2036-12-01 10:00", "--repeat", "yearly"]).code == 0)
        #expect(sandbox.run(["add", "Old course", "--at", "2019-01-07 18:00", "--repeat", "weekly", "--until", "2021-11-29",
                             "--task", "Hand in the essay"]).code == 0)
        let digest = sandbox.run(["digest", "--overdue-days", "3660"])
        #expect(digest.code == 0, "\(digest.err)")
        #expect(digest.out.contains("Decade review"), "\(digest.out)")
        #expect(digest.out.contains("Old course"), "\(digest.out)")
        #expect(Self.lines(digest.out, "Decade review").count == 1, "\(digest.out)")
    }

    /// Future's row for a series says "repeats …" in every digest format and language (golden
    /// files); rows of single occurrences of the same series do not.
    @Test(arguments: [("text", "en_US", "digest-series-en_US.txt"), ("markdown", "en_US", "digest-series-en_US.md"),
                      ("html", "en_US", "digest-series-en_US.html"), ("text", "de_DE", "digest-series-de_DE.txt")])
    func theDigestSaysRepeatsOnTheFutureRowOfASeries(_ format: String, _ locale: String, _ snapshot: String) {
        let sandbox = Sandbox()  // now: Mon 2026-11-30 09:00 Berlin
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        // Colours fixed: an event added without one gets one at random.
        #expect(sandbox.run(["add", "Standup", "--at", "2026-12-01 09:30", "--repeat", "weekly", "--event-color", "indigo"]).code == 0)
        #expect(sandbox.run(["add", "Jubilee", "--at", "2036-12-01", "--repeat", "yearly", "--event-color", "green"]).code == 0)
        #expect(sandbox.run(["add", "Board", "--at", "2027-02-01 15:00", "--repeat", "FREQ=MONTHLY;BYDAY=1MO",
                             "--event-color", "red"]).code == 0)
        let run = sandbox.run(["digest", "--format", format, "--locale", locale])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains(locale == "de_DE" ? "wiederholt sich wöchentlich" : "repeats weekly"), "\(run.out)")
        snapshots.expect(run.out, named: snapshot)
    }

    @Test(arguments: ["2028-11-30 12:00", "2036-11-30 12:00", "2126-11-30 12:00"])
    func previewShowsTheAlertOfAYearlyEventYearsAfterItWasAdded(_ later: String) throws {
        var sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let config = try sandbox.writeConfig("{ channels: { notes: { type: \"file\", path: \"\(sandbox.home)/notes.md\" } }, alerts: { channels: [\"notes\"] } }")
        #expect(sandbox.run(["add", "Anniversary", "--at", "2026-12-01 10:00", "--repeat", "yearly", "--alert", "1h"]).code == 0)
        sandbox.now = later
        let preview = sandbox.run(["--config", config, "preview", "--days", "2"])
        #expect(preview.code == 0, "\(preview.err)")
        #expect(preview.out.contains("Anniversary"), "\(preview.out)")
    }
}
