@testable import DatebookCLI
import Foundation
import Testing

/// Every instance of a recurring event gets its alerts (regression: later instances were cancelled
/// as "event moved" because the ledger compared them with the event's first start).
struct RecurringAlertTests {
    @Test func eachInstanceOfAWeeklyEventIsAlertedAcrossDST() throws {
        var sandbox = Sandbox()
        sandbox.now = "2027-03-20 10:00"
        let log = sandbox.home + "/alerts.log"
        let config = try sandbox.writeConfig("""
        { timeZone: "Europe/Berlin",
          channels: { log: { type: "command", argv: ["/bin/sh", "-c", "echo \\"$DATEBOOK_EVENT_START\\" >> \(log)"] } },
          alerts: { before: ["1h"], channels: ["log"] } }
        """)
        #expect(sandbox.run(["--config", config, "add", "Standup", "--at", "mon 09:00", "--repeat", "weekly", "--count", "3"]).code == 0)
        // Berlin moves to summer time on 2027-03-28: the instances stay at 09:00 local.
        for now in ["2027-03-22 08:00:30", "2027-03-29 08:00:30", "2027-04-05 08:00:30"] {
            sandbox.now = now
            let tick = sandbox.run(["--config", config, "tick"])
            #expect(tick.code == 0)
            #expect(tick.err.contains("sent alert 'Standup' (1h before) to log"), "\(now): \(tick.err)")
        }
        let starts = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(starts == ["2027-03-22T08:00:00Z", "2027-03-29T07:00:00Z", "2027-04-05T07:00:00Z"])
    }
}
