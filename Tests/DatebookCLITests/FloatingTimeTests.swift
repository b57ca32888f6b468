@testable import DatebookCLI
import Foundation
import Testing

/// Floating times (RFC 5545 §3.3.5: a DATE-TIME without TZID or `Z`) stay wall-clock times in
/// whatever zone they are viewed: listed, shown, alerted and exported as such.
struct FloatingTimeTests {
    let floating = cliFixtures.appendingPathComponent("../../DatebookICalTests/Fixtures/floating.ics").path

    /// A sandbox holding floating.ics, imported in `importZone`, viewed in `tz`.
    func sandbox(importedIn importZone: String = "America/New_York", viewedIn tz: String, at now: String) -> Sandbox {
        var sandbox = Sandbox()
        sandbox.now = now
        sandbox.tz = importZone
        #expect(sandbox.run(["import", floating]).code == 0)
        sandbox.tz = tz
        return sandbox
    }

    @Test(arguments: [("Europe/Berlin", "+01:00"), ("Asia/Tokyo", "+09:00"), ("America/Los_Angeles", "-08:00")])
    func floatingEventIsListedAtItsWallClockTimeInEveryZone(zone: String, offset: String) throws {
        let sandbox = sandbox(viewedIn: zone, at: "2026-11-20 12:00")
        let list = sandbox.run(["list", "--period", "next30"])
        #expect(list.code == 0)
        #expect(list.out.contains("Floating breakfast                  Wed 2026-12-02 09:30"), "\(list.out)")
        // The weekly one stays at 08:00 across the end of summer time (2026-10-25 in Europe, 11-01 in America).
        let past = sandbox.run(["list", "--period", "past"]).out
        #expect(past.contains("Mon 2026-10-26 08:00") && past.contains("Mon 2026-11-02 08:00") && past.contains("Mon 2026-11-16 08:00"))
        #expect(!past.contains("2026-11-09"), "the EXDATE, a floating time too, removes its instance: \(past)")
        let json = sandbox.run(["list", "--period", "next30", "--json"]).out
        #expect(json.contains("\"start\": \"2026-12-02T09:30:00\(offset)\", \"allDay\": false, \"floating\": true"), "\(json)")
        let show = sandbox.run(["show", "Floating breakfast"]).out
        #expect(show.contains("when     Wed 2026-12-02 09:30 – Wed 2026-12-02 10:15"))
        #expect(show.contains("zone     \(zone) (a floating time: the same wall-clock time in every zone)"))
    }

    @Test func atOneInstantAFloatingEventHasPassedInOneZoneAndIsToComeInAnother() {
        // 05:00Z is 14:00 in Tokyo (09:30 has passed) and 06:00 in Berlin (09:30 is to come).
        let tokyo = sandbox(viewedIn: "Asia/Tokyo", at: "2026-12-02T05:00:00Z")
        let berlin = sandbox(viewedIn: "Europe/Berlin", at: "2026-12-02T05:00:00Z")
        #expect(tokyo.run(["list", "--period", "past"]).out.contains("Floating breakfast"))
        #expect(!tokyo.run(["list", "--period", "next7"]).out.contains("Floating breakfast"))
        #expect(berlin.run(["list", "--period", "next7"]).out.contains("Floating breakfast"))
        #expect(!berlin.run(["list", "--period", "past"]).out.contains("Floating breakfast"))
    }

    @Test(arguments: [("Europe/Berlin", "2026-12-02T08:30:00Z"), ("Asia/Tokyo", "2026-12-02T00:30:00Z")])
    func floatingAlertFiresAtItsWallClockTimeLessTheLeadInTheConfiguredZone(zone: String, instant: String) throws {
        var sandbox = sandbox(viewedIn: zone, at: "2026-12-01 09:00")
        let log = sandbox.home + "/alerts.log"
        let config = try sandbox.writeConfig("""
        { timeZone: "\(zone)",
          channels: { log: { type: "command", argv: ["/bin/sh", "-c", "echo \\"$DATEBOOK_EVENT_START\\" >> \(log)"] } },
          alerts: { before: ["1h"], channels: ["log"] } }
        """)
        // The breakfast's own VALARM (15m) replaces the configured lead.
        #expect(sandbox.run(["--config", config, "status"]).out.contains("Wed 2026-12-02 09:15  alert 'Floating breakfast' (15m before)"))
        sandbox.now = "2026-12-02 09:14:00"
        #expect(sandbox.run(["--config", config, "tick"]).code == 0)
        #expect(!FileManager.default.fileExists(atPath: log), "nothing is due before 09:15 local")
        sandbox.now = "2026-12-02 09:15:30"
        let tick = sandbox.run(["--config", config, "tick"])
        #expect(tick.code == 0)
        let sent = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // The event's start in the alert is the instant its 09:30 names in the configured zone.
        #expect(sent == [Substring(instant)], "\(tick.err)")
    }

    @Test func floatingEventsSurviveExportAndImportInAnotherZone() throws {
        let sandbox = sandbox(viewedIn: "Asia/Tokyo", at: "2026-11-20 12:00")
        for format in ["ics", "json"] {
            let export = sandbox.run(["export", "--format", format])
            #expect(export.code == 0)
            if format == "ics" {
                #expect(export.out.contains("DTSTART:20261202T093000\r\nDTEND:20261202T101500\r\n"), "no TZID, no Z")
                #expect(!export.out.contains("BEGIN:VTIMEZONE"))
            } else {
                #expect(export.out.contains("\"start\": \"2026-12-02T09:30\",\n      \"allDay\": false,\n      \"floating\": true,"))
            }
            var other = Sandbox()
            other.now = sandbox.now
            other.tz = "Pacific/Honolulu"
            let file = other.home + "/planner." + format
            try export.out.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(other.run(["import", file]).code == 0)
            #expect(other.run(["list", "--period", "next30"]).out.contains("Wed 2026-12-02 09:30"))
            #expect(other.run(["export", "--format", "json"]).out == sandbox.run(["export", "--format", "json"]).out)
        }
    }

    @Test func plannerJSONWithAStartWithoutOffsetImportsAsFloating() throws {
        var sandbox = Sandbox()
        sandbox.tz = "Asia/Tokyo"
        let file = sandbox.home + "/planner.json"
        try """
        { "datebook": 1, "events": [
          { "title": "Wall clock", "start": "2026-12-02T09:30", "end": "2026-12-02T10:00", "timeZone": "Europe/Berlin" },
          { "title": "Mismatch", "start": "2026-12-03T09:30:00Z", "floating": true } ] }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = sandbox.run(["import", file])
        #expect(refused.code == 65)
        #expect(refused.err.contains("events[1].floating: does not match start (a time without offset, 2026-12-02T09:30, means floating)"),
                "\(refused.err)")
        try """
        { "datebook": 1, "events": [
          { "title": "Wall clock", "start": "2026-12-02T09:30", "end": "2026-12-02T10:00", "timeZone": "Europe/Berlin" } ] }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        #expect(sandbox.run(["list"]).out.contains("Wall clock                          Wed 2026-12-02 09:30"))
    }

    @Test func editEndOfAFloatingEventTakesTheWallClockTimeGiven() {
        let sandbox = sandbox(viewedIn: "Asia/Tokyo", at: "2026-11-20 12:00")
        let edit = sandbox.run(["edit", "Floating breakfast", "--end", "2026-12-02 11:00"])
        #expect(edit.code == 0, "\(edit.err)")
        #expect(sandbox.run(["show", "Floating breakfast"]).out.contains("09:30 – Wed 2026-12-02 11:00"))
        #expect(sandbox.run(["export", "--format", "json"]).out.contains("\"end\": \"2026-12-02T11:00\""))
    }
}
