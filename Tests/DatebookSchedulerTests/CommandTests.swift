import DatebookCore
import DatebookStore
import Foundation
import Testing

/// `tick --dry-run`, `preview` and `status` through the real binary.
@Suite(.serialized) struct CommandTests {
    func output(_ sandbox: ProcessSandbox, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (String, String, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = arguments
        process.environment = sandbox.environment.merging(extra) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: text, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus)
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
        #expect(preview.contains("in 1 hour: ⭐ Dentist") || preview.contains("in 1 hour:"))
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
        #expect(log.contains("datebook: sent alert to hook: alert:"))
        #expect(!log.contains("s3cr3t"))

        let (status, _, statusCode) = try output(sandbox, ["--now", "2026-12-01T09:05:00Z", "status"])
        #expect(statusCode == 1)
        #expect(status.contains("failed  alert 'Dentist' (1h before) to team: channel unavailable: slack 'team'"))
        #expect(!status.contains("s3cr3t"))
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
