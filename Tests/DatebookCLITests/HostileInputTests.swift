@testable import DatebookCLI
@testable import DatebookStore
import Foundation
import Testing

/// Input that used to trap (a huge DURATION, a negative schema version, extreme numbers) is a
/// warning or an error with its exit code, and everything else keeps working.
struct HostileInputTests {
    /// The ICal tests' fixture: one event per way a date or duration can fall outside years 1-3000.
    static let outOfRange = cliFixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("DatebookICalTests/Fixtures/out-of-range.ics").path

    @Test func importSkipsComponentsBeyondTheRangeWithWarningsAndKeepsTheRest() {
        let sandbox = Sandbox()
        let run = sandbox.run(["import", Self.outOfRange])
        #expect(run.code == 0)
        #expect(run.out == "imported 5 events from \(Self.outOfRange) (9 warnings)\n")
        #expect(run.err.contains("datebook: warning: \(Self.outOfRange):4: UID weeks: DURATION P1000000000W ends after 3000-12-31"))
        let all = sandbox.run(["list", "--period", "all"]).out
        #expect(all.contains("Before 1970                         Mon 1900-01-01 01:00"), "\(all)")
        #expect(!all.contains("Year 4000"), "\(all)")
        #expect(run.err.contains("UID year-4000: DTSTART is not a date datebook can keep (year 4000 is outside 1-3000)"))
    }

    @Test func tickDeliversAFeedsGoodEventsWhenOthersAreBeyondTheRange() throws {
        var sandbox = Sandbox()
        sandbox.now = "2026-12-04 09:30"  // Berlin: 08:30Z, half an hour after "Good" (09:00Z) was due 1h before
        let notes = sandbox.home + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        let config = try sandbox.writeConfig("""
            { channels: { notes: { type: "file", path: "\(notes)/{{date}}.md", format: "markdown" } },
              alerts: { before: ["1h"], channels: ["notes"] },
              feeds: [ { name: "hostile", url: "\(Self.outOfRange)", every: "30m" } ] }
            """)
        let tick = sandbox.run(["--config", config, "tick"])
        #expect(tick.code == 0, "\(tick.err)")
        let written = try FileManager.default.contentsOfDirectory(atPath: notes)
            .map { try String(contentsOfFile: notes + "/" + $0, encoding: .utf8) }.joined()
        #expect(written.contains("Good"), "\(written)")
        #expect(sandbox.run(["--config", config, "list", "--period", "all"]).out.contains("Good"))
    }

    @Test(arguments: [-1, Int(Int32.min)])
    func aStoreWithANegativeSchemaVersionIsRefusedWith65AndLeftAsItWas(version: Int) throws {
        let sandbox = Sandbox()
        do {
            let raw = try SQLiteConnection(path: sandbox.store, flags: 0x6)
            try raw.execute("CREATE TABLE other(x); PRAGMA user_version = \(version)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        for arguments in [["list"], ["add", "X", "--at", "2026-12-03"]] {
            let run = sandbox.run(arguments)
            #expect(run.code == 65)
            #expect(run.err == "datebook: store \(sandbox.store) has schema version \(version), which no datebook writes; "
                    + "restore a backup or pass another --store — the store was left untouched\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before)
    }

    @Test(arguments: [
        (["add", "X", "--at", "2026-12-03", "--alert", "999999w"], "cannot read alert lead time '999999w'"),
        (["add", "X", "--at", "+1000000d"], "\"+1000000d\" is not a time in the years 1-3000"),
        (["add", "X", "--at", "0000-01-01"], "\"0000-01-01\" is not a time in the years 1-3000"),
        (["add", "X", "--at", "3000-12-31", "--end", "+1095726d"], "\"+1095726d\" is not a time in the years 1-3000"),
    ])
    func argumentsBeyondTheRangeAreUsageErrors(arguments: [String], message: String) {
        let run = Sandbox().run(arguments)
        #expect(run.code == 64)
        #expect(run.err.contains(message), "\(run.err)")
    }
}
