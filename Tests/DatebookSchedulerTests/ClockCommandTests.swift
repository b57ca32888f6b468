import DatebookCore
import DatebookStore
import Foundation
import Testing

/// `tick --now` and a clock jump through the real binary (issue 27, issue 29).
@Suite(.serialized) struct ClockCommandTests {
    func output(_ arguments: [String], environment: [String: String]) throws -> (out: String, err: String, code: Int32) {
        try runDatebook(arguments, environment: environment)
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
        // Dentist's alert is skipped by the wrong pass; Early's (due 12-31 07:30Z) is sent by it, a month early.
        try sandbox.save([event("Dentist", at: utc("2026-12-10T10:00:00Z")), event("Early", at: utc("2026-12-31T08:30:00Z"))])
        #expect(try output(["--now", "2026-12-01T08:00:00Z", "tick"], environment: sandbox.environment).code == 0)
        let wrong = try output(["--now", "2026-12-31T08:00:00Z", "tick"], environment: sandbox.environment)
        #expect(wrong.err.contains("warning: 30d0h since the last pass"))
        #expect(wrong.err.contains("skipped alert 'Dentist' (1h before) to hook"))
        let back = try output(["--now", "2026-12-01T08:01:00Z", "tick"], environment: sandbox.environment)
        #expect(back.err.contains("warning: the clock went back 29d23h"))
        #expect(back.err.contains("1 delivery it skipped as too late planned again; 1 delivery it sent early sent again at its due time"))
        let status = try output(["--now", "2026-12-01T08:02:00Z", "status"], environment: sandbox.environment)
        #expect(status.out.contains("Clock jump:\n  the clock went back 29d23h: a pass at Tue 2026-12-01 09:01 came after one at Thu 2026-12-31 09:00"))
        #expect(status.out.contains("alert 'Dentist' (1h before) to hook"))
        #expect(try output(["--now", "2026-12-10T09:00:00Z", "tick"], environment: sandbox.environment).code == 0)
        #expect(try sink.requests().count == 2)  // Early a month early, then Dentist on time
        let waiting = try output(["--now", "2026-12-30T08:00:00Z", "status"], environment: sandbox.environment)
        #expect(waiting.out.contains("Thu 2026-12-31 08:30  alert 'Early' (1h before) to hook (again: sent early by a pass at a wrong clock)"),
                "\(waiting.out)")
        #expect(try output(["--now", "2026-12-31T07:30:00Z", "tick"], environment: sandbox.environment).code == 0)
        let early = "alert:\(EventID.stable("Early")):2026-12-31T08:30:00Z:1h:hook"
        #expect(try sink.requests().filter { $0.key == early }.count == 2)
        let after = try output(["--now", "2026-12-31T07:31:00Z", "status"], environment: sandbox.environment)
        #expect(after.out.contains("Sent again at their due time (a pass at a wrong, later clock had sent them early):\n"
                                   + "  Thu 2026-12-31 08:30  alert 'Early' (1h before) to hook"), "\(after.out)")
        #expect(try Store(path: sandbox.store).allDeliveries().map(\.state) == [.sent, .sent])
    }
}

/// A channel failing through the real binary (issue 27): `status` tells the truth while a delivery
/// is retrying, and the pass that gives it up says so by its exit status.
@Suite(.serialized) struct RetryingStatusTests {
    @Test func statusListsARetryingDeliveryWithItsNextAttemptAndLastErrorAndExits75() throws {
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/status/503"], lead: "1h")
        try sandbox.save([event("Review", at: utc("2026-12-01T12:00:00Z"))])
        let run = ClockCommandTests()
        let first = try run.output(["--now", "2026-12-01T11:00:00Z", "tick"], environment: sandbox.environment)
        #expect(first.code == 75)
        let status = try run.output(["--now", "2026-12-01T11:00:05Z", "status"], environment: sandbox.environment)
        #expect(status.code == 75)
        #expect(status.out.contains("Retrying (an attempt failed; tried again until alerts.lateness after the first attempt):\n"
                                    + "  due Tue 2026-12-01 12:00  alert 'Review' (1h before) to hook: next attempt Tue 2026-12-01 12:00"))
        #expect(status.out.contains("(1 failed, last: HTTP 503); gives up after Tue 2026-12-01 18:00"))
        #expect(!status.out.contains("every delivery was sent on time"))
        // Still failing at the deadline, 6 h after the first attempt: given up, and that pass says so.
        #expect(try run.output(["--now", "2026-12-01T16:59:00Z", "tick"], environment: sandbox.environment).code == 75)
        let last = try run.output(["--now", "2026-12-01T17:00:00Z", "tick"], environment: sandbox.environment)
        #expect(last.code == 69, "\(last.err)")
        let after = try run.output(["--now", "2026-12-01T17:01:00Z", "status"], environment: sandbox.environment)
        #expect(after.code == 1)
        #expect(!after.out.contains("Retrying"))
        #expect(after.out.contains("failed  alert 'Review' (1h before) to hook: HTTP 503 (server error); next retry would pass the delivery deadline"))
    }
}
