@testable import DatebookCLI
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `tick` keeps what a channel accepted of a delivery in the ledger, so the retry sends only the
/// rest: the later parts of a digest split over several Discord messages, the email to the
/// recipient whose server said "later". On both store backends.
struct PartialDeliveryCommandTests {
    @Test(arguments: ["sqlite", "postgresql"])
    func aRetrySendsOnlyThePartsAndRecipientsNotYetAccepted(_ backend: String) throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let smtp = try TestServer(script: "smtp_sink.py")
        defer { smtp.stop() }
        let store = backend == "postgresql" ? try TestPostgres.shared().makeDatabase() : nil
        var sandbox = Sandbox()
        // Twenty events this week, each with a long title and six long tasks: a digest of about
        // 25,000 characters, six or more Discord messages of at most 4,096.
        let events = (1...20).map { n in
            let tasks = (1...6).map { t in
                #"{"id": "t\#(t)", "text": "Task \#(t) of rehearsal \#(n): \#(String(repeating: "bring the lines ", count: 10))", "status": "todo"}"#
            }
            return #"{"id": "\#(String(format: "%016x", n))", "title": "Rehearsal \#(n) \#(String(repeating: "with the whole cast ", count: 9))", "#
                + #""start": "2026-12-0\#(1 + n % 5)T1\#(n % 10):00:00Z", "allDay": false, "end": null, "timeZone": "Europe/Berlin", "#
                + #""symbol": "star.fill", "color": "indigo", "notes": "", "alerts": [], "tasks": [\#(tasks.joined(separator: ", "))]}"#
        }
        let planner = sandbox.home + "/planner.json"
        try (#"{"datebook": 1, "events": ["# + events.joined(separator: ",\n") + "]}").write(toFile: planner, atomically: true, encoding: .utf8)
        let imported = sandbox.run(["import", planner], storePath: store)
        #expect(imported.code == 0, "\(imported.err)")
        let config = try sandbox.writeConfig("""
            { channels: {
                chat: { type: "discord", url: "\(sink.baseURL)/fail-nth/4" },
                mail: { type: "email", smtp: "smtp://127.0.0.1:\(smtp.port)", requireTLS: false,
                        from: "datebook <me@example.org>", to: ["ok@example.org", "once@example.org"] },
              },
              digests: [ { name: "morning", at: "07:00", channels: ["chat", "mail"], format: "markdown" } ] }
            """)
        func tick(at now: String) -> CLIRun {
            sandbox.now = now
            return sandbox.run(["--config", config, "tick"], storePath: store)
        }
        func texts() throws -> [String] { try bodies(sink).map(\.body) }

        _ = tick(at: "2026-11-30 07:00")
        let first = try texts()
        try #require(first.count == 4, "parts 1-3 accepted, part 4 refused: \(first.count) requests")
        #expect(try smtp.records().map { $0["rcpt_tos"] as? [String] ?? [] } == [["ok@example.org"]])
        let status = sandbox.run(["--config", config, "status"], storePath: store)
        #expect(status.out.contains("parts 1–3 sent, the retry sends only the rest"), "\(status.out)")
        #expect(status.out.contains("accepted by ok@example.org, the retry sends only the rest"), "\(status.out)")

        #expect(tick(at: "2026-11-30 07:10").code == 0)
        let all = try texts()
        try #require(all.count >= 7, "parts 4, 5 and 6 at least: \(all.count) requests")
        // Part 4 reached the server twice (refused, then taken); every other part exactly once.
        #expect(Array(all.prefix(4)) == first)
        #expect(all[4] == first[3])
        #expect(Set(all).count == all.count - 1)
        #expect(try smtp.records().map { $0["rcpt_tos"] as? [String] ?? [] } == [["ok@example.org"], ["once@example.org"]])
        #expect(tick(at: "2026-11-30 07:20").code == 0)
        #expect(try texts().count == all.count, "nothing more goes out once everything is accepted")
        #expect(try smtp.records().count == 2)
    }
}
