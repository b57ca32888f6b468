@testable import DatebookCLI
import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Small faults found with issue 27: a broken config and ids that are not hex.
struct MisbehavingSetupTests {
    @Test func aBrokenConfigLetsListAndStatusRunWithAWarningButStillStopsWritingCommands() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-12-01 10:00"]).code == 0)
        let config = sandbox.home + "/broken.json5"
        try "{ timeZone: \"Europe/Berlin\", alerts: { before: [\"1h\"] ".write(toFile: config, atomically: true, encoding: .utf8)
        for command in [["list"], ["status"]] {
            let run = sandbox.run(["--config", config] + command)
            #expect(run.code == 0, "\(command)")
            #expect(run.err.hasPrefix("datebook: warning: \(config)"), "\(command)")
            #expect(run.err.contains("going on without the config"), "\(command)")
        }
        #expect(sandbox.run(["--config", config, "list"]).out.contains("Dentist"))
        let tick = sandbox.run(["--config", config, "tick"])
        #expect(tick.code == 65)
        #expect(!tick.err.contains("warning"))
    }

    @Test func anEventWhoseIdIsNotHexIsAddressedByItsWholeIdOrAPrefix() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let file = sandbox.home + "/planner.json"
        let events = ["fill1-0015", "fill1-0016"].map { id in
            Event(id: id, title: "Fill \(id)", start: .instant(ISOInstant.parse("2026-12-01T10:00:00Z") ?? Date()),
                  timeZone: "Europe/Berlin", symbol: .star, color: .primary, tasks: [EventTask(id: "t1", text: "Check")])
        }
        try PlannerDocument.encode(events).write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        let shown = sandbox.run(["show", "fill1-0015"])
        #expect(shown.code == 0)
        #expect(shown.out.contains("Fill fill1-0015"))
        #expect(sandbox.run(["show", "fill1-0016"]).out.contains("Fill fill1-0016"))
        let ambiguous = sandbox.run(["show", "fill1-00"])
        #expect(ambiguous.code == 64)
        #expect(ambiguous.err.contains("'fill1-00' matches 2 events"))
        #expect(sandbox.run(["done", "fill1-0016"]).code == 0)
        #expect(sandbox.run(["show", "fill1-0016"]).out.contains("Fill fill1-0016"))
    }

    /// A delivery whose whole message went out but whose server never answered (issue 27) is
    /// recorded `sent` with an "uncertain" reason; `status` lists it apart, so it is not lost from sight.
    @Test func statusListsADeliveryTheServerNeverAnsweredUnderUncertain() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00"]).code == 0)
        let now = ISOInstant.parse("2026-11-30T07:00:00Z") ?? Date()
        let store = try Store(path: sandbox.store)
        try store.plan(LedgerEntry(key: "digest:morning:2026-11-30:mail", kind: .digest, digest: "morning", digestDate: "2026-11-30",
                                   channel: "mail", dueAt: now, state: .sent,
                                   reason: "uncertain: smtp://mail.example.org/: sent, but the server did not answer; "
                                       + "not sent again (the server may have it): check that it arrived"), now: now)
        let status = sandbox.run(["status"])
        #expect(status.code == 0)
        #expect(status.out.contains("Uncertain (the whole message went out, the server never answered; not sent again):\n"))
        #expect(status.out.contains(" to mail: smtp://mail.example.org/: sent, but the server did not answer; not sent again"))
    }
}
