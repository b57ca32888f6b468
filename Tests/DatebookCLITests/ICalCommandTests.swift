@testable import DatebookCLI
import Foundation
import Testing

let cliFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

extension Sandbox {
    /// A sandbox whose clock sits just before the end of summer time in Europe/Berlin.
    static func october() -> Sandbox {
        var sandbox = Sandbox()
        sandbox.now = "2026-10-20 09:00"
        return sandbox
    }

    func exportedEvents() throws -> [[String: Any]] {
        let root = try JSONSerialization.jsonObject(with: Data(run(["export"]).out.utf8)) as? [String: Any]
        return root?["events"] as? [[String: Any]] ?? []
    }
}

struct ICalImportTests {
    let team = cliFixtures.appendingPathComponent("team.ics").path

    @Test func weeklyBerlinMeetingStaysAt0900AcrossDSTAndHonoursEXDATE() {
        let sandbox = Sandbox.october()
        #expect(sandbox.run(["import", team]).code == 0)
        let past = sandbox.run(["list", "--period", "past"]).out
        #expect(past.contains("Team sync                           Mon 2026-10-19 09:00"))
        let next7 = sandbox.run(["list", "--period", "next7"]).out
        #expect(next7.contains("Team sync                           Mon 2026-10-26 09:00"), "after the DST change: \(next7)")
        let next30 = sandbox.run(["list", "--period", "next30"]).out
        #expect(!next30.contains("2026-11-02"), "EXDATE 2026-11-02 08:00Z must remove that Monday: \(next30)")
        #expect(next30.contains("Mon 2026-11-09 09:00"))
        #expect(next30.contains("Mon 2026-11-16 09:00"))
    }

    @Test func brokenComponentIsSkippedWithWarningNamingFileLineAndUID() {
        let sandbox = Sandbox.october()
        let run = sandbox.run(["import", team])
        #expect(run.code == 0)
        #expect(run.out == "imported 2 events from \(team) (1 warning)\n")
        #expect(run.err.hasPrefix("datebook: warning: \(team):30: UID broken@example.org: DTSTART"))
    }

    @Test func todosBecomeTasksAndAlarmsBecomeLeadTimes() throws {
        let sandbox = Sandbox.october()
        sandbox.run(["import", team])
        let events = try sandbox.exportedEvents()
        let sync = events.first { $0["title"] as? String == "Team sync" }
        let tasks = sync?["tasks"] as? [[String: Any]]
        #expect(tasks?.first?["text"] as? String == "Prepare slides")
        #expect(tasks?.first?["status"] as? String == "doing")
        #expect(sync?["alerts"] as? [String] == ["15m"])
        #expect(events.first { $0["title"] as? String == "Dentist" }?["alerts"] as? [String] == ["1d"])
    }

    @Test func reimportUpdatesByUIDInsteadOfDuplicating() throws {
        let sandbox = Sandbox.october()
        sandbox.run(["import", team])
        let copy = sandbox.home + "/team-renamed.ics"
        let text = try String(contentsOfFile: team, encoding: .utf8).replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)")
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", copy]).code == 0)
        let titles = try sandbox.exportedEvents().compactMap { $0["title"] as? String }.sorted()
        #expect(titles == ["Dentist (moved)", "Team sync"])
    }

    @Test(arguments: ["not-ical.html.ics", "not-ical.json.ics"])
    func aFileThatIsNotICalendarIsRefusedWithDiagnosis(name: String) throws {
        let sandbox = Sandbox.october()
        let path = sandbox.home + "/" + name
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("../../DatebookICalTests/Fixtures/" + name).path,
                                         toPath: path)
        let run = sandbox.run(["import", path])
        if name.contains("html") {
            #expect(run.code == 65)
            #expect(run.err.hasPrefix("datebook: \(path): not iCalendar (got an HTML page)"))
        } else {
            // JSON content goes to the planner reader, which names the problem.
            #expect(run.code == 65)
            #expect(run.err.hasPrefix("datebook: \(path):"))
        }
        #expect(try sandbox.exportedEvents().isEmpty)
    }

    @Test func exportAsICSReimportsToTheSamePlanner() throws {
        let first = Sandbox.october()
        first.run(["demo"])
        first.run(["import", team])
        first.run(["add", "Yoga", "--at", "2026-10-21 18:00", "--repeat", "weekly", "--count", "5", "--alert", "1h"])
        let before = try first.exportedEvents()
        let ics = first.home + "/planner.ics"
        #expect(first.run(["export", "--format", "ics", "-o", ics]).code == 0)
        let second = Sandbox.october()
        let run = second.run(["import", ics])
        #expect(run.code == 0, "\(run.err)")
        let after = try second.exportedEvents()
        // Symbols and colours have no iCalendar property; everything else must survive.
        func comparable(_ events: [[String: Any]]) throws -> [String] {
            try events.map { event in
                let kept = event.filter { $0.key != "symbol" && $0.key != "color" }
                return String(decoding: try JSONSerialization.data(withJSONObject: kept, options: .sortedKeys), as: UTF8.self)
            }.sorted()
        }
        #expect(try comparable(after) == comparable(before))
        #expect(before.count == 9 + 2 + 1)
    }

    @Test func repeatOptionsMakeOccurrencesAndRefuseHostileRules() {
        let sandbox = Sandbox.october()
        #expect(sandbox.run(["add", "Standup", "--at", "2026-10-21 09:30", "--repeat", "daily", "--until", "2026-10-23"]).code == 0)
        let next7 = sandbox.run(["list", "--period", "next7"]).out
        #expect(next7.components(separatedBy: "Standup").count - 1 == 3)
        for rule in ["FREQ=MINUTELY", "FREQ=SECONDLY", "FREQ=DAILY;INTERVAL=0", "fortnightly"] {
            let run = sandbox.run(["add", "Bomb", "--at", "2026-10-21 09:30", "--repeat", rule])
            #expect(run.code == 64, "\(rule)")
            #expect(run.err.contains("--repeat"))
        }
    }

    @Test func hostileImportedRuleNeverStallsAListing() throws {
        let sandbox = Sandbox.october()
        let path = sandbox.home + "/bombs.ics"
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("../../DatebookICalTests/Fixtures/bombs.ics").path,
                                         toPath: path)
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.err.contains("refused"))
        let started = Date()
        #expect(sandbox.run(["list"]).code == 0)
        #expect(Date().timeIntervalSince(started) < 30)  // a stalled expansion runs for minutes
    }

    /// A file large enough for several parse workers, whose pages are given back as they are
    /// parsed: every event and task arrives intact, with the file's own zone defined first (the
    /// rest of the file is given back as it goes) or last (nothing before it may be).
    @Test(arguments: [true, false])
    func aLargeFileImportsWholeWhileItsPagesAreGivenBack(zoneFirst: Bool) throws {
        let sandbox = Sandbox.october()
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Late Office\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
            + "TZOFFSETFROM:+0500\r\nTZOFFSETTO:+0500\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + (zoneFirst ? zone : "")
        for n in 0..<6_000 {
            text += "BEGIN:VEVENT\r\nUID:big\(n)\r\nSUMMARY:Event \(n) " + String(repeating: "x", count: n % 300) + "\r\n"
                + "DTSTART;TZID=Late Office:20261\(n % 2)\(10 + n % 18)T090000\r\nEND:VEVENT\r\n"
            if n % 3 == 0 { text += "BEGIN:VTODO\r\nUID:t\(n)\r\nSUMMARY:Task \(n)\r\nRELATED-TO:big\(n)\r\nEND:VTODO\r\n" }
        }
        text += (zoneFirst ? "" : zone) + "END:VCALENDAR\r\n"
        let path = sandbox.home + "/big.ics"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.out == "imported 6000 events from \(path) (6000 warnings)\n")
        #expect(!run.err.contains("not a known zone name; the time is read in") && run.err.contains("'Late Office'"))
        let events = try sandbox.exportedEvents()
        #expect(events.count == 6_000)
        let titles = Set(events.compactMap { $0["title"] as? String })
        #expect((0..<6_000).allSatisfy { titles.contains("Event \($0) " + String(repeating: "x", count: $0 % 300)) })
        #expect(events.reduce(0) { $0 + (($1["tasks"] as? [Any])?.count ?? 0) } == 2_000)
        // 09:00 at the file's UTC+5 is 04:00 UTC.
        let starts = Set(events.compactMap { ($0["start"] as? String)?.suffix(10) })
        #expect(starts == ["T04:00:00Z"], "\(starts)")
    }

}
