@testable import DatebookICal
import Foundation
import Testing

/// Inputs the fuzzers found (fuzz/, docs/fuzzing.md), kept in `Fixtures/fuzz/` and named after
/// their target (`ical-…`, `ical-libical-…`, `rrule-…`): each is read both ways and every event
/// expanded over a year, as the `rrule` target does; each must end in events, warnings or an
/// `ICalError`, never a trap.
struct FuzzRegressionTests {
    static let directory = TestSupport.directory.appendingPathComponent("Fixtures/fuzz")
    static let findings = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test func findingsAreKept() {
        #expect(Self.findings.contains("ical-vtimezone-without-tzid.ics"))
    }

    @Test(arguments: findings)
    func findingIsReadBothWaysAndExpanded(name: String) throws {
        #expect(["ical-", "rrule-"].contains { name.hasPrefix($0) }, "\(name): name findings after their fuzz target")
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        let zone = TestSupport.zone("Europe/Berlin")
        for fastPaths in [true, false] {
            let document: ICalDocument
            do {
                document = try ICalParser.parse(data: data, fileName: name, defaultTimeZone: zone, workers: 1, fastPaths: fastPaths)
            } catch is ICalError {
                continue
            }
            for event in document.events {
                let start = event.start.resolve(in: zone)
                _ = try ICalRecurrence.occurrences(
                    rrule: event.rrule, rdates: event.rdates, exdates: event.exdates, start: event.start,
                    duration: 0, timeZone: zone, window: DateInterval(start: start, duration: 366 * 86_400), cap: 500)
            }
        }
    }

    @Test func aVTIMEZONEWithoutTZIDIsSkippedWithAWarningAndItsEventReadInTheDefaultZone() throws {
        let document = try TestSupport.parse("fuzz/ical-vtimezone-minimal-without-tzid.ics")
        #expect(document.warnings.map(\.message).first == "VTIMEZONE could not be read by libical; times using its TZID may be off")
        #expect(document.events.map(\.uid) == ["a"])
    }
}
