@testable import DatebookCLI
import DatebookTestSupport
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

    /// A feed behind a private CA: `tick` trusts `DATEBOOK_CA_FILE` as `feed refresh` does.
    @Test func tickTrustsTheCAFileForAFeedAsFeedRefreshDoes() throws {
        let sandbox = Sandbox()
        let pem = try makeCertificate(in: URL(fileURLWithPath: sandbox.home))
        let sink = try TestServer(script: "http_sink.py", arguments: [pem.cert, pem.key])
        defer { sink.stop() }
        let ics = sandbox.home + "/work.ics"
        try calendar([("a@x", "Team sync", "20261202T090000")]).write(toFile: ics, atomically: true, encoding: .utf8)
        let url = "https://127.0.0.1:\(sink.port)/feed?file=\(ics)"
        let config = try sandbox.writeConfig("{ feeds: [ { name: \"work\", url: \"\(url)\", every: \"30m\" } ] }")
        let trusted = ["DATEBOOK_CA_FILE": pem.cert]
        #expect(sandbox.run(["--config", config, "tick"], environment: trusted).code == 0)
        #expect(sandbox.run(["--config", config, "list"]).out.contains("Team sync"))
        #expect(!sandbox.run(["--config", config, "feed", "list"]).out.contains("FAILED"))
        // Without it the certificate is refused, and the failure is recorded.
        #expect(sandbox.run(["--config", config, "feed", "refresh", "work"]).code == 75)
    }
}
