import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// An event added or changed after a pass, whose alert fell due before that pass: the next pass
/// plans it as a first pass would (docs/scheduler.md, "Late changes"), on both backends, through
/// the real webhook transfer to the HTTP sink.
struct LateChangeCommandTests {
    /// A sandbox in UTC with webhook channels `hook` and `team` posting to the HTTP sink under
    /// `/BACKEND/CHANNEL` (alerts to `alertChannels`); its store is a SQLite file or a new
    /// PostgreSQL database. The caller stops the sink.
    struct Setup {
        var sandbox = Sandbox()
        let sink: TestServer
        let store: String?
        let config: String

        init(_ backend: String, sink given: TestServer? = nil, alertChannels: [String] = ["hook"]) throws {
            let sink = try given ?? TestServer(script: "http_sink.py")
            self.sink = sink
            sandbox.tz = "UTC"
            store = backend == "sqlite" ? nil : try TestPostgres.shared().makeDatabase()
            let channels = ["hook", "team"].map { "\($0): { type: \"webhook\", url: \"\(sink.baseURL)/\(backend)/\($0)\" }" }
            config = sandbox.home + "/config.json5"
            try """
                { channels: { \(channels.joined(separator: ", ")) },
                  alerts: { channels: [\(alertChannels.map { "\"\($0)\"" }.joined(separator: ", "))] } }
                """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// Runs `arguments` at `now` (UTC wall time on 2026-12-04); fails the test on a non-zero exit.
        @discardableResult
        func run(_ now: String, _ arguments: [String], config: String? = nil) -> CLIRun {
            var sandbox = sandbox
            sandbox.now = "2026-12-04 " + now
            let run = sandbox.run(["--config", config ?? self.config] + arguments, storePath: store)
            #expect(run.code == 0, "\(arguments): \(run.out)\(run.err)")
            return run
        }

        func sent() throws -> [(path: String, body: String)] { try bodies(sink) }

        func ledger() throws -> [LedgerEntry] {
            try StoreOpener.open(store ?? sandbox.store).allDeliveries()
        }
    }

    static let backends = ["sqlite", "postgresql"]

    /// A pass at 10:00, then `title` added at `start` (that day) with a 30-minute alert, then
    /// a pass at 10:01; the setup, the ledger after it and what `tick --dry-run` said before it.
    static func addAfterAPass(_ backend: String, _ title: String, at start: String) throws -> (Setup, [LedgerEntry], String) {
        let setup = try Setup(backend)
        setup.run("10:00", ["tick"])
        setup.run("10:00", ["add", title, "--at", "2026-12-04 " + start, "--alert", "30m"])
        let dryRun = setup.run("10:01", ["tick", "--dry-run"]).out
        setup.run("10:01", ["tick"])
        return (setup, try setup.ledger(), dryRun)
    }

    /// The reproduction of the bug: nothing was planned, sent or shown.
    @Test(arguments: backends)
    func anEventAddedAfterAPassWhoseAlertWasAlreadyDueIsSentLate(_ backend: String) throws {
        let (setup, ledger, dryRun) = try Self.addAfterAPass(backend, "Call the bank", at: "10:20")
        defer { setup.sink.stop() }
        #expect(dryRun.contains("Call the bank"), "\(dryRun)")  // read, not taken: the pass still plans it
        #expect(ledger.map(\.state) == [.sentLate], "\(ledger)")
        #expect(ledger.first?.dueAt == ISO8601DateFormatter().date(from: "2026-12-04T09:50:00Z"))
        let sent = try setup.sent()
        #expect(sent.map(\.path) == ["/\(backend)/hook"])
        #expect(sent.first?.body.contains("Call the bank") == true)
        #expect(setup.run("10:02", ["status"]).out.contains("sent-late"))
    }

    @Test(arguments: backends)
    func anAddedEventsAlertOlderThanTheLatenessIsSkippedWithTheReason(_ backend: String) throws {
        let (setup, ledger, _) = try Self.addAfterAPass(backend, "Early flight", at: "03:00")
        defer { setup.sink.stop() }
        #expect(ledger.map(\.state) == [.skipped], "\(ledger)")
        #expect(ledger.first?.reason == "late: due 2026-12-04T02:30:00Z, first seen 7h31m later, over the lateness of 6h0m")
        #expect(try setup.sent().isEmpty)
        let status = setup.run("10:02", ["status"]).out
        #expect(status.contains("skipped") && status.contains("over the lateness of 6h0m"), "\(status)")
    }

    /// Moved to a new time whose alert has passed: sent late; edits that leave the alert times be
    /// (or whose alerts are in the ledger already) send nothing again.
    @Test(arguments: backends)
    func editsSendAMovedEventsPassedAlertOnceAndNothingElseAgain(_ backend: String) throws {
        let setup = try Setup(backend)
        defer { setup.sink.stop() }
        setup.run("08:00", ["add", "Review", "--at", "2026-12-04 16:00", "--alert", "30m"])
        setup.run("10:00", ["tick"])
        setup.run("10:00", ["edit", "Review", "--at", "2026-12-04 10:15"])
        setup.run("10:01", ["tick"])
        #expect(try setup.ledger().map(\.state) == [.sentLate])
        setup.run("10:02", ["edit", "Review", "--title", "Review the draft"])
        setup.run("10:02", ["edit", "Review the draft", "--at", "2026-12-04 10:15", "--alert", "30m", "--alert", "10m"])
        setup.run("10:03", ["tick"])
        setup.run("10:04", ["tick"])
        #expect(try setup.sent().count == 1)
        #expect(try setup.ledger().map(\.state) == [.sentLate])  // the 10m alert is due at 10:05
    }

    /// The look back is for changed events only: a channel added to the config gets nothing old.
    @Test(arguments: backends)
    func aChannelAddedToTheConfigGetsNoOldAlerts(_ backend: String) throws {
        let setup = try Setup(backend)
        defer { setup.sink.stop() }
        let widerSetup = try Setup(backend, sink: setup.sink, alertChannels: ["hook", "team"])  // its folder lives as long
        let wider = widerSetup.config
        setup.run("09:00", ["add", "Standup", "--at", "2026-12-04 10:00", "--alert", "30m"])
        setup.run("09:40", ["tick"])
        setup.run("09:45", ["tick"], config: wider)
        setup.run("10:30", ["tick"], config: wider)
        #expect(try setup.sent().map(\.path) == ["/\(backend)/hook"])
        #expect(try setup.ledger().map(\.channel) == ["hook"])
    }
}
