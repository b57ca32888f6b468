import DatebookICal
import DatebookTestSupport
import Foundation
import Testing

/// Runs Support/peer.py (Python icalendar + recurring-ical-events) on the same fixtures and window,
/// and compares occurrence starts. Uses the test Python (`TestPython`: `.build/venv`, made by
/// `scripts/setup.sh --test`); skipped only when it lacks the modules.
@Suite struct PeerCheckTests {
    static let python = TestPython.executable

    static let available = TestPython.imports(["icalendar", "recurring_ical_events"])

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    static let cases: [(String, String)] = [
        ("dst.ics", "Europe/Berlin"), ("allday.ics", "Pacific/Kiritimati"), ("allday.ics", "Pacific/Pago_Pago"),
        ("exdate-utc.ics", "Europe/Berlin"), ("overrides.ics", "America/New_York"), ("folded-bom-lf.ics", "UTC"),
        ("windows.ics", "Asia/Tokyo"), ("todos.ics", "Europe/Berlin"), ("dtstart-off-rule.ics", "UTC"),
        ("xwr-timezone.ics", "UTC"), ("outlook-allday-override.ics", "Europe/Berlin"),
        ("thisandfuture.ics", "UTC"), ("thisandfuture-chain.ics", "UTC"),
        ("allday-timed-recurrence-id.ics", "UTC"), ("allday-timed-recurrence-id.ics", "America/New_York"), ("floating.ics", "Europe/Berlin"), ("floating.ics", "Asia/Tokyo"),
        // Python icalendar reads a nested VCALENDAR's events too; datebook reads them with a warning.
        ("nested-vcalendar.ics", "UTC"),
        ("offset-zones.ics", "UTC"), ("offset-zones.ics", "America/New_York"),
        // A zone with no IANA name whose offset changes once (after icalendar's issue 722 file).
        ("zone-transition-ambiguity.ics", "UTC"), ("zone-transition-ambiguity.ics", "America/New_York"),
    ]

    @Test(.enabled(if: available, "Python peer skipped: the test Python lacks icalendar/recurring-ical-events; run: scripts/setup.sh --test"),
          arguments: cases)
    func occurrenceStartsMatchPythonRecurringIcalEvents(fixture: String, zone: String) throws {
        let python = try #require(Self.python)
        let from = "2026-01-01T00:00:00Z"
        let to = "2027-03-01T00:00:00Z"
        let script = TestSupport.directory.appendingPathComponent("Support/peer.py").path
        let peer = try Self.run(python, [script, TestSupport.fixtureURL(fixture).path, from, to, zone])
        #expect(peer.status == 0, "peer.py failed: \(peer.error)")
        let theirs = peer.output.split(separator: "\n").map(String.init)

        let tz = TestSupport.zone(zone)
        let doc = try TestSupport.parse(fixture, zone: zone)
        let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2027, 3, 1, zone: "UTC"))
        let expansion = ICalRecurrence.expand(events: doc.events, fileName: fixture, window: window, defaultTimeZone: tz, cap: 1000)
        let ours = expansion.occurrences.map { occurrence -> String in
            if occurrence.event.start.isAllDay {
                let day = ICalLocalDateTime.of(occurrence.start, in: occurrence.event.timeZone(default: tz))
                return "\(occurrence.event.uid)\tD:\(ICalTestFormat.date(day))"
            }
            return "\(occurrence.event.uid)\tT:\(Int(occurrence.start.timeIntervalSince1970))"
        }.sorted()
        #expect(!ours.isEmpty)
        #expect(ours == theirs, "only ours: \(Set(ours).subtracting(theirs).sorted()); only peer's: \(Set(theirs).subtracting(ours).sorted())")
    }
}

enum ICalTestFormat {
    static func date(_ d: ICalLocalDateTime) -> String {
        String(format: "%04d-%02d-%02d", d.year, d.month, d.day)
    }
}
