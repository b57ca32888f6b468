@testable import DatebookCLI
import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// One occurrence of a series (issue 26): `edit EVENT --occurrence WHEN` makes an override,
/// `rm EVENT --occurrence WHEN` cancels one; `show`, `list --json` and the export say so.
struct OccurrenceCommandTests {
    /// A sandbox (now Mon 2026-11-30 09:00 Berlin) with a weekly standup from Tue 2026-12-01 09:30.
    static func standup() -> Sandbox {
        let sandbox = Sandbox()
        sandbox.run(["add", "Standup", "--at", "2026-12-01 09:30", "--end", "2026-12-01 09:45", "--repeat", "weekly",
                     "--task", "Notes"])
        return sandbox
    }

    static func rows(_ sandbox: Sandbox, _ title: String) -> [String] {
        (sandbox.run(["list", "--period", "next30"]).out + sandbox.run(["list", "--period", "next7"]).out)
            .split(separator: "\n").map(String.init).filter { $0.contains(title) }
    }

    @Test func rmOccurrenceCancelsOneAndShowListsIt() throws {
        let sandbox = Self.standup()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let rm = sandbox.run(["rm", "Standup", "--occurrence", "2026-12-08"])
        #expect(rm.code == 0, "\(rm.err)")
        #expect(rm.out.contains("cancelled") && rm.out.contains("Tue 2026-12-08 09:30"), "\(rm.out)")
        let rows = Self.rows(sandbox, "Standup")
        #expect(rows.count == 4 && !rows.contains { $0.contains("2026-12-08") }, "\(rows)")
        #expect(sandbox.run(["show", "Standup"]).out.contains("  cancelled Tue 2026-12-08 09:30\n"))
        guard ExportPeerTests.peerReady else { return }
        let theirs = try ExportPeerTests.peer(try ExportPeerTests.export(sandbox), from: "2026-12-01T00:00:00Z", to: "2026-12-31T00:00:00Z")
        #expect(theirs.map { $0.split(separator: "\t")[1] } == ["T:1796113800", "T:1797323400", "T:1797928200", "T:1798533000"], "\(theirs)")
    }

    /// Removing a series removes its moved occurrences with it (issue 32: they were left behind).
    @Test func rmASeriesRemovesItsMovedOccurrences() throws {
        let sandbox = Self.standup()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let edit = sandbox.run(["edit", "Standup", "--occurrence", "2026-12-15", "--at", "2026-12-15 14:00", "--title", "Moved standup"])
        #expect(edit.code == 0, "\(edit.err)")
        #expect(Self.rows(sandbox, "tandup").contains { $0.contains("Moved standup") })
        let rm = sandbox.run(["rm", "Standup"])
        #expect(rm.code == 0, "\(rm.err)")
        #expect(Self.rows(sandbox, "tandup").isEmpty, "\(sandbox.run(["list", "--period", "all"]).out)")
    }

    @Test func editOccurrenceMovesOneAndKeepsItsTasks() throws {
        let sandbox = Self.standup()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let edit = sandbox.run(["edit", "Standup", "--occurrence", "2026-12-15", "--at", "2026-12-15 14:00", "--title", "Standup (moved)"])
        #expect(edit.code == 0, "\(edit.err)")
        let rows = Self.rows(sandbox, "Standup")
        #expect(rows.count == 5, "\(rows)")
        #expect(rows.contains { $0.contains("Standup (moved)") && $0.contains("Tue 2026-12-15 14:00") }, "\(rows)")
        #expect(!rows.contains { $0.contains("Tue 2026-12-15 09:30") }, "\(rows)")
        let show = sandbox.run(["show", "Standup"]).out
        #expect(show.contains("  changed  Tue 2026-12-15 09:30 → ") && show.contains("Tue 2026-12-15 14:00  Standup (moved)"), "\(show)")
        #expect(!show.contains("cancelled"), "\(show)")
        let moved = sandbox.run(["show", "Standup (moved)"]).out
        #expect(moved.contains("  replaces Tue 2026-12-15 09:30 of ") && moved.contains("1. [ ] Notes"), "\(moved)")
        #expect(moved.contains("Tue 2026-12-15 14:00 – Tue 2026-12-15 14:15"), "\(moved)")
        let json = sandbox.run(["list", "--period", "next30", "--json"]).out
        #expect(json.contains("\"override\": {\"series\": \""), "\(json)")
        #expect(json.contains("\"replaces\": \"2026-12-15T09:30:00+01:00\"}"), "\(json)")
        #expect(json.components(separatedBy: "\"override\": null").count - 1 == 3)
        guard ExportPeerTests.peerReady else { return }
        let theirs = try ExportPeerTests.peer(try ExportPeerTests.export(sandbox), from: "2026-12-01T00:00:00Z", to: "2026-12-31T00:00:00Z")
        #expect(theirs.count == 5, "\(theirs)")
        #expect(theirs.contains("Standup (moved)\tT:1797339600\tT:1797340500"), "\(theirs)")
    }

    @Test(arguments: [
        (["rm", "Hourly", "--occurrence", "2026-12-02"], "occurs 3 times on Wed 2026-12-02 (Wed 2026-12-02 08:00, Wed 2026-12-02 09:00, Wed 2026-12-02 10:00); give the date and time of one"),
        (["rm", "Hourly", "--occurrence", "2026-12-09"], "'Hourly' has no occurrence on Wed 2026-12-09"),
        (["edit", "Once", "--occurrence", "2026-12-02", "--title", "x"], "'Once' does not repeat"),
        (["edit", "Hourly", "--occurrence", "2026-12-02 09:00", "--repeat", "daily"], "--repeat changes the whole series"),
    ])
    func anOccurrenceThatIsNoneOrNotOneIsExplained(_ arguments: [String], _ message: String) {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        sandbox.run(["add", "Hourly", "--at", "2026-12-02 08:00", "--repeat", "FREQ=HOURLY;BYHOUR=8,9,10;COUNT=6"])
        sandbox.run(["add", "Once", "--at", "2026-12-02 08:00"])
        let run = sandbox.run(arguments)
        #expect(run.code == 64, "\(run.out)")
        #expect(run.err.contains(message), "\(run.err)")
    }

    @Test func rmOccurrenceWithATimeCancelsThatOne() {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        sandbox.run(["add", "Hourly", "--at", "2026-12-02 08:00", "--repeat", "FREQ=HOURLY;BYHOUR=8,9,10;COUNT=6"])
        #expect(sandbox.run(["rm", "Hourly", "--occurrence", "2026-12-02 09:00"]).code == 0)
        let rows = Self.rows(sandbox, "Hourly")
        #expect(rows.count == 5 && !rows.contains { $0.contains("2026-12-02 09:00") }, "\(rows)")
    }

    @Test func editFromSplitsTheSeriesAtThatOccurrence() throws {
        let sandbox = Self.standup()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let edit = sandbox.run(["edit", "Standup", "--from", "2026-12-15", "--at", "2026-12-15 10:00"])
        #expect(edit.code == 0, "\(edit.err)")
        #expect(edit.out.contains("ended ") && edit.out.contains("before Tue 2026-12-15 10:00"), "\(edit.out)")
        let rows = Self.rows(sandbox, "Standup")
        for day in ["Tue 2026-12-01 09:30", "Tue 2026-12-08 09:30", "Tue 2026-12-15 10:00", "Tue 2026-12-22 10:00", "Tue 2026-12-29 10:00"] {
            #expect(rows.contains { $0.contains(day) }, "\(day): \(rows)")
        }
        #expect(rows.count == 5, "\(rows)")
        // The later part keeps the tasks and the length (15 minutes).
        let later = try #require(rows.first { $0.contains("2026-12-15 10:00") }?.split(separator: " ").first.map(String.init))
        let show = sandbox.run(["show", later]).out
        #expect(show.contains("1. [ ] Notes") && show.contains("Tue 2026-12-15 10:00 – Tue 2026-12-15 10:15"), "\(show)")
        guard ExportPeerTests.peerReady else { return }
        let theirs = try ExportPeerTests.peer(try ExportPeerTests.export(sandbox), from: "2026-12-01T00:00:00Z", to: "2026-12-31T00:00:00Z")
        #expect(theirs.map { $0.split(separator: "\t")[1] } == ["T:1796113800", "T:1796718600", "T:1797325200", "T:1797930000", "T:1798534800"],
                "\(theirs)")
    }

    @Test func editRepeatKeepsTheCancelledOccurrencesTheNewRuleStillHas() {
        let sandbox = Self.standup()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["rm", "Standup", "--occurrence", "2026-12-08"]).code == 0)
        #expect(sandbox.run(["edit", "Standup", "--repeat", "FREQ=DAILY;BYDAY=TU,TH"]).code == 0)
        let rows = Self.rows(sandbox, "Standup")
        #expect(!rows.contains { $0.contains("2026-12-08") } && rows.contains { $0.contains("Thu 2026-12-10 09:30") }, "\(rows)")
        #expect(sandbox.run(["edit", "Standup", "--until", "2026-12-24"]).code == 0)
        #expect(!Self.rows(sandbox, "Standup").contains { $0.contains("2026-12-08") })
        // A rule that no longer gives the instance drops its EXDATE.
        #expect(sandbox.run(["edit", "Standup", "--repeat", "FREQ=WEEKLY;BYDAY=TU;INTERVAL=2"]).code == 0)
        #expect(!(sandbox.run(["show", "Standup"]).out.contains("EXDATE")))
    }
}

/// Zone names other programs cannot read (issue 26): refused with the IANA name that keeps the time.
struct ZoneNameCommandTests {
    @Test(arguments: [("UTC+5", "use the IANA name Etc/GMT-5 (the same +05:00 all year; Etc/ signs are inverted)"),
                      ("GMT+0530", "use the IANA name Asia/Kolkata (the same +05:30"),
                      ("GMT+0130", "no IANA zone keeps +01:30; use the zone of the place"),
                      ("GMT-0300", "use the IANA name Etc/GMT+3")])
    func anOffsetZoneNameIsRefusedWithItsIANAName(_ zone: String, _ message: String) {
        var sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        sandbox.tz = zone
        let run = sandbox.run(["add", "Call", "--at", "2026-12-02 10:00"])
        #expect(run.code == 64)
        #expect(run.err.contains("'\(zone)' is not an IANA zone name") && run.err.contains(message), "\(run.err)")
        sandbox.tz = "Etc/GMT-5"
        #expect(sandbox.run(["add", "Call", "--at", "2026-12-02 10:00"]).code == 0)
    }
}
