@testable import DatebookCLI
import Foundation
import Testing

/// A backup can always be restored: whatever `import` accepts, `export` writes (JSON and
/// iCalendar) and `import` reads back into an empty store, field for field, without a warning.
/// Runs over every calendar fixture of the test suite (`Tests/*/Fixtures/*.ics|json`, found when
/// the tests run, so a fixture added later is covered too) and the sample planner.
struct RoundTripTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures: [String] = {
        let files = FileManager.default.enumerator(atPath: testsFolder.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.contains("/Fixtures/") && ($0.hasSuffix(".ics") || $0.hasSuffix(".json")) }.sorted()
    }()

    @Test func theFixturesAreFound() {
        #expect(Self.fixtures.contains("DatebookCLITests/Fixtures/planner.json"))
        #expect(Self.fixtures.contains("DatebookICalTests/Fixtures/overrides.ics"))
        #expect(Self.fixtures.count >= 14)
    }

    @Test(arguments: fixtures)
    func exportThenImportRestoresEveryField(fixture: String) throws {
        let original = Sandbox()
        let imported = original.run(["import", Self.testsFolder.appendingPathComponent(fixture).path])
        guard imported.code == 0 else { return }
        try Self.checkRoundTrips(of: original, name: fixture, warned: Self.warnings(imported.err))
    }

    @Test func theSamplePlannerRoundTrips() throws {
        let original = Sandbox()
        original.run(["demo"])
        try Self.checkRoundTrips(of: original, name: "demo")
    }

    /// Exports `original` in each format, imports that into an empty store, and compares both
    /// stores' exports in both formats and their occurrences (`list --json`) in UTC and New York.
    /// Each warning from `UID …` on, so the same warning about the original file and about its
    /// backup compare equal (a truncated rule is truncated again in the backup, and says so).
    static func warnings(_ err: String) -> Set<String> {
        Set(err.split(separator: "\n").compactMap { line in line.range(of: "UID ").map { String(line[$0.lowerBound...]) } })
    }

    static func checkRoundTrips(of original: Sandbox, name: String, warned: Set<String> = []) throws {
        let planner = original.run(["export"]).out
        for format in ["json", "ics"] {
            let file = original.home + "/backup." + format
            #expect(original.run(["export", "--format", format, "-o", file]).code == 0)
            let copy = Sandbox()
            let restored = copy.run(["import", file])
            #expect(restored.code == 0, "\(name) via \(format): \(restored.err)")
            #expect(Self.warnings(restored.err).subtracting(warned).isEmpty && (restored.err.isEmpty || !warned.isEmpty),
                    "\(name) via \(format): the backup gives warnings the original did not: \(restored.err)")
            #expect(copy.run(["export"]).out == planner, "\(name) via \(format): the planner changed")
            // The same occurrences, not only the same fields, wherever they are read (through iCalendar,
            // which keeps which occurrence an override replaces; planner JSON does not).
            for zone in ["UTC", "America/New_York"] where format == "ics" {
                var before = original, after = copy
                before.tz = zone
                after.tz = zone
                #expect(after.run(["list", "--json"]).out == before.run(["list", "--json"]).out,
                        "\(name) via \(format): the occurrences in \(zone) changed")
            }
            if format == "ics" {
                #expect(copy.run(["export", "--format", "ics"]).out == (try String(contentsOfFile: file, encoding: .utf8)),
                        "\(name): the iCalendar export of the restored planner differs")
            }
        }
    }
}

/// COLOR (RFC 7986) and X-DATEBOOK-SYMBOL from any calendar set the event's colour and symbol;
/// without them (or with names datebook does not know) a re-import keeps what is stored.
struct StylePropertyImportTests {
    static func calendar(_ properties: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other//EN\r\nBEGIN:VEVENT\r\nUID:style@example.org\r\n"
            + "DTSTART:20261224T100000Z\r\nSUMMARY:Styled\r\n" + properties + "END:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    @Test func colourAndSymbolAreReadAndKeptWhenLeftOut() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/other.ics"
        func style() throws -> [String?] {
            let event = try sandbox.exportedEvents().first
            return [event?["color"] as? String, event?["symbol"] as? String]
        }
        try Self.calendar("COLOR:DodgerBlue\r\nX-DATEBOOK-SYMBOL:airplane\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", path]).code == 0)
        #expect(try style() == ["primary", "airplane"])
        try Self.calendar("COLOR:papayawhip\r\nX-DATEBOOK-SYMBOL:no.such.symbol\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", path]).code == 0)
        #expect(try style() == ["primary", "airplane"], "unknown names keep the stored style")
        try Self.calendar("COLOR:mint\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", path]).code == 0)
        #expect(try style() == ["mint", "airplane"])
    }
}
