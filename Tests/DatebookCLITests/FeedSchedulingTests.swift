@testable import DatebookCLI
import Foundation
import Testing

/// Feeds listed in the config are registered and refreshed by `tick` when their interval passed.
struct FeedSchedulingTests {
    func calendar(_ events: [(uid: String, summary: String, start: String)]) -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        for event in events {
            text += "BEGIN:VEVENT\r\nUID:\(event.uid)\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:\(event.summary)\r\n"
                + "DTSTART;TZID=Europe/Berlin:\(event.start)\r\nDURATION:PT1H\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    @Test func tickRefreshesConfiguredFeedsAndFollowsTheirChanges() throws {
        var sandbox = Sandbox()
        let ics = sandbox.home + "/work.ics"
        try calendar([("a@x", "Team sync", "20261202T090000"), ("b@x", "Retro", "20261203T150000")])
            .write(toFile: ics, atomically: true, encoding: .utf8)
        let config = try sandbox.writeConfig("{ feeds: [ { name: \"work\", url: \"\(ics)\", every: \"30m\" } ] }")
        #expect(sandbox.run(["--config", config, "tick"]).code == 0)
        var list = sandbox.run(["--config", config, "list", "--period", "next7"]).out
        #expect(list.contains("Team sync") && list.contains("Retro"))

        // The meeting is cancelled upstream; the feed is re-read once its interval has passed.
        try calendar([("a@x", "Team sync", "20261202T090000")]).write(toFile: ics, atomically: true, encoding: .utf8)
        sandbox.now = "2026-11-30 09:10"
        sandbox.run(["--config", config, "tick"])
        #expect(sandbox.run(["--config", config, "list"]).out.contains("Retro"))
        sandbox.now = "2026-11-30 09:31"
        sandbox.run(["--config", config, "tick"])
        list = sandbox.run(["--config", config, "list"]).out
        #expect(list.contains("Team sync"))
        #expect(!list.contains("Retro"))
        #expect(sandbox.run(["--config", config, "feed", "list"]).out.contains("work"))
    }
}
