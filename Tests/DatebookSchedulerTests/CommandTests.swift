import DatebookCore
import DatebookStore
import Foundation
import Testing

/// `tick --dry-run`, `preview` and `status` through the real binary.
@Suite(.serialized) struct CommandTests {
    func output(_ sandbox: ProcessSandbox, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (String, String, Int32) {
        try runDatebook(arguments, environment: sandbox.environment.merging(extra) { $1 })
    }

    @Test func dryRunAndPreviewSendNothingAndStatusExitsOneAfterAFailure() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "1h")
        // A second channel whose secret is missing: its deliveries fail, naming the variable.
        let config = """
            { timeZone: "Europe/Berlin",
              channels: { hook: { type: "webhook", url: "http://127.0.0.1:\(sink.port)/hook/s3cr3t-path" },
                          team: { type: "slack", url: { env: "DATEBOOK_TEST_SLACK_URL" } } },
              alerts: { before: ["1h"], channels: ["hook", "team"] } }
            """
        try config.write(toFile: sandbox.config, atomically: true, encoding: .utf8)
        try sandbox.save([event("Dentist", at: utc("2026-12-01T10:00:00Z"))])

        let (preview, _, previewCode) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "preview"])
        #expect(previewCode == 0)
        #expect(preview.contains("Tue 2026-12-01 10:00  alert 'Dentist' (1h before) to hook"))
        #expect(preview.contains("    ⭐ in 1 hour: Dentist\n"))
        #expect(preview.contains("(will fail: channel unavailable: slack 'team': environment variable DATEBOOK_TEST_SLACK_URL is not set)"))

        let (dry, _, dryCode) = try output(sandbox, ["--now", "2026-12-01T09:00:30Z", "tick", "--dry-run"])
        #expect(dryCode == 0)
        #expect(dry.contains("would send\nPOST http://127.0.0.1:\(sink.port)/****"))
        #expect(!dry.contains("s3cr3t"))
        #expect(try sink.requests().isEmpty)
        #expect(try Store(path: sandbox.store).allDeliveries().isEmpty)

        let (_, log, tickCode) = try output(sandbox, ["--now", "2026-12-01T09:00:30Z", "tick"])
        #expect(tickCode == 0)
        #expect(try sink.requests().count == 1)
        #expect(log.contains("datebook: sent alert 'Dentist' (1h before) to hook\n"), "\(log)")
        #expect(!log.contains("alert:"), "the log names the event, not the ledger key: \(log)")
        #expect(!log.contains("s3cr3t"))

        let (status, _, statusCode) = try output(sandbox, ["--now", "2026-12-01T09:05:00Z", "status"])
        #expect(statusCode == 1)
        #expect(status.contains("failed  alert 'Dentist' (1h before) to team: channel unavailable: slack 'team'"))
        #expect(!status.contains("s3cr3t"))
    }

    /// With `cancelWhenDone`, an alert whose tasks are all done is shown as cancelled, not as a
    /// send: before it is planned (preview, status) and once it waits in the ledger (status).
    @Test func previewAndStatusShowAlertsOfCompletedEventsAsCancelled() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "1h")
        let config = """
            { timeZone: "Europe/Berlin", channels: { hook: { type: "webhook", url: "http://127.0.0.1:\(sink.port)/hook" } },
              alerts: { before: ["1h", "10m"], channels: ["hook"], cancelWhenDone: true, quietHours: "00:00-10:05" } }
            """
        try config.write(toFile: sandbox.config, atomically: true, encoding: .utf8)
        var done = event("Packed", at: utc("2026-12-01T10:00:00Z"))
        done.tasks = [EventTask(id: "t1", text: "Pack", status: .done)]
        var open = event("Unpacked", at: utc("2026-12-01T10:00:00Z"))
        open.tasks = [EventTask(id: "t2", text: "Pack")]
        try sandbox.save([done, open])

        let (preview, _, _) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "preview"])
        #expect(preview.contains("alert 'Packed' (1h before) to hook\n  (will be cancelled: all tasks done)\n\n"))
        #expect(!preview.contains("in 1 hour: Packed"))
        #expect(preview.contains("alert 'Unpacked' (1h before) to hook\n    ⭐ in 1 hour: Unpacked\n"))
        let (before, _, _) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "status"])
        #expect(before.contains("alert 'Packed' (1h before) to hook (will be cancelled: all tasks done)\n"))
        #expect(before.contains("alert 'Unpacked' (1h before) to hook\n"))

        // 10:00 Berlin is in the quiet hours: the open event's 1h alert waits in the ledger until 10:05 (09:05Z).
        let (_, _, tickCode) = try output(sandbox, ["--now", "2026-12-01T09:00:30Z", "tick"])
        #expect(tickCode == 0)
        #expect(try sink.requests().isEmpty)
        open.tasks[0].status = .done
        try sandbox.save([open])
        let (after, _, _) = try output(sandbox, ["--now", "2026-12-01T09:01:00Z", "status"])
        #expect(after.contains("alert 'Unpacked' (1h before) to hook (will be cancelled: all tasks done)\n"))
        let (later, _, _) = try output(sandbox, ["--now", "2026-12-01T09:01:00Z", "preview"])
        #expect(later.contains("alert 'Unpacked' (1h before) to hook\n  (will be cancelled: all tasks done)\n"))

        let (dry, _, _) = try output(sandbox, ["--now", "2026-12-01T09:06:00Z", "tick", "--dry-run"])
        #expect(dry.contains("alert 'Unpacked' (1h before) to hook, due 2026-12-01T10:05:00+01:00: would cancel: all tasks done\n"),
                "\(dry)")
        let (_, log, _) = try output(sandbox, ["--now", "2026-12-01T09:06:00Z", "tick"])
        #expect(log.contains("cancelled alert 'Unpacked' (1h before) to hook"), "\(log)")
        #expect(try sink.requests().isEmpty)
    }

    /// With nothing to send, `preview` and `tick --dry-run` say so, and say why when no channel is set.
    @Test func nothingToSendIsSaidWithTheReason() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "1h")
        let (preview, _, _) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "preview"])
        #expect(preview == "Nothing to send in the next 1 day.\n")
        let (dry, _, dryCode) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "tick", "--dry-run"])
        #expect(dryCode == 0)
        #expect(dry == "Nothing due at 2026-12-01T09:00:00+01:00.\n")

        try "{ timeZone: \"Europe/Berlin\" }".write(toFile: sandbox.config, atomically: true, encoding: .utf8)
        let (bare, _, _) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "tick", "--dry-run"])
        #expect(bare.hasPrefix("Nothing due at 2026-12-01T09:00:00+01:00.\nNo channels configured."))
        #expect(bare.contains(sandbox.config))
        let (empty, _, _) = try output(sandbox, ["--now", "2026-12-01T08:00:00Z", "preview", "--days", "3"])
        #expect(empty.hasPrefix("Nothing to send in the next 3 days.\nNo channels configured."))
    }
}
