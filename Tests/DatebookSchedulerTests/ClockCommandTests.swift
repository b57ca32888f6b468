import DatebookCore
import DatebookStore
import Foundation
import Testing

/// `tick --now` and a clock jump through the real binary (issue 27, issue 29).
@Suite(.serialized) struct ClockCommandTests {
    func output(_ arguments: [String], environment: [String: String]) throws -> (out: String, err: String, code: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: text, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus)
    }

    @Test func tickAtAPretendedTimeRefusesTheDefaultStoreAndWritesNothing() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "1h")
        var environment = sandbox.environment
        environment["DATEBOOK_STORE"] = nil
        let defaultStore = sandbox.directory + "/.local/share/datebook/datebook.sqlite3"
        let refused = try output(["--now", "2027-01-01T08:00:00Z", "tick"], environment: environment)
        #expect(refused.code == 64)
        #expect(refused.err.contains("tick --now would record deliveries at a pretended time in your store (\(defaultStore))"))
        #expect(refused.err.contains("--store PATH"))
        #expect(!FileManager.default.fileExists(atPath: defaultStore))
        #expect(try output(["--now", "2027-01-01T08:00:00Z", "tick", "--dry-run"], environment: environment).code == 0)
        #expect(try output(["--now", "2027-01-01T08:00:00Z", "--store", sandbox.store, "tick"], environment: environment).code == 0)
        #expect(try Store(path: sandbox.store).lastPass() == utc("2027-01-01T08:00:00Z"))
    }

    @Test func statusShowsAClockThatWentBackAndTheAlertItWouldHaveLostIsSent() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook"], lead: "1h")
        try sandbox.save([event("Dentist", at: utc("2026-12-10T10:00:00Z"))])
        #expect(try output(["--now", "2026-12-01T08:00:00Z", "tick"], environment: sandbox.environment).code == 0)
        let wrong = try output(["--now", "2026-12-31T08:00:00Z", "tick"], environment: sandbox.environment)
        #expect(wrong.err.contains("warning: 30d0h since the last pass"))
        #expect(wrong.err.contains("skipped alert to hook"))
        let back = try output(["--now", "2026-12-01T08:01:00Z", "tick"], environment: sandbox.environment)
        #expect(back.err.contains("warning: the clock went back 29d23h"))
        #expect(back.err.contains("1 delivery it skipped as too late planned again"))
        let status = try output(["--now", "2026-12-01T08:02:00Z", "status"], environment: sandbox.environment)
        #expect(status.out.contains("Clock jump:\n  the clock went back 29d23h: a pass at Tue 2026-12-01 09:01 came after one at Thu 2026-12-31 09:00"))
        #expect(status.out.contains("alert 'Dentist' (1h before) to hook"))
        #expect(try output(["--now", "2026-12-10T09:00:00Z", "tick"], environment: sandbox.environment).code == 0)
        #expect(try sink.requests().count == 1)
        #expect(try Store(path: sandbox.store).allDeliveries().map(\.state) == [.sent])
    }
}
