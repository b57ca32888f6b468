@testable import DatebookCLI
import Foundation
import Testing

/// `--location` and `--url` on `add`/`edit`, `show`, and what imports do with both.
struct LocationURLTests {
    /// `datebook import` of `text` written to a file named `name` in a new sandbox.
    static func importing(_ text: String, named name: String) throws -> (sandbox: Sandbox, run: CLIRun, file: String) {
        let sandbox = Sandbox()
        let file = sandbox.home + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return (sandbox, sandbox.run(["import", file]), file)
    }

    @Test func addAndShowKeepTheLocationOnOneLineAndTheLink() {
        let sandbox = Sandbox()
        let added = sandbox.run(["add", "Dentist", "--at", "2026-12-02 10:00", "--location", " Room 4\nsecond floor\t\u{1B}[31m",
                                 "--url", "tel:+49-30-1234567"])
        #expect(added.code == 0, "\(added.err)")
        let shown = sandbox.run(["show", "Dentist"]).out
        #expect(shown.contains("\n  location Room 4 second floor  [31m\n  url      tel:+49-30-1234567\n"), "\(shown)")
        let edited = sandbox.run(["edit", "Dentist", "--url", "", "--location", "Room 5"])
        #expect(edited.code == 0, "\(edited.err)")
        let after = sandbox.run(["show", "Dentist"]).out
        #expect(after.contains("\n  location Room 5\n") && !after.contains("  url "), "\(after)")
    }

    @Test(arguments: [
        ("javascript:alert(1)", "datebook: --url: the scheme 'javascript:' is not allowed; use http, https, mailto, tel\n"),
        ("file:///etc/passwd", "datebook: --url: the scheme 'file:' is not allowed; use http, https, mailto, tel\n"),
        ("meet.example.org/abc", "datebook: --url: expected a link with a scheme (https://…, mailto:…, tel:…), got \"meet.example.org/abc\"\n"),
    ])
    func addRefusesALinkThatIsNotOneOfTheFourSchemes(_ url: String, _ message: String) {
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "Call", "--at", "2026-12-02 10:00", "--url", url])
        #expect(run.code == 64)
        #expect(run.err.hasPrefix(message), "\(run.err)")
        #expect(sandbox.run(["list"]).out.hasPrefix("No events"))
    }

    @Test func addRefusesALocationOverTheLimit() {
        let run = Sandbox().run(["add", "Trip", "--at", "2026-12-02", "--location", String(repeating: "x", count: 10_000)])
        #expect(run.code == 64)
        #expect(run.err.hasPrefix("datebook: --location: is 10000 bytes long; the limit is 1000 bytes (shorten it)"), "\(run.err)")
    }

    /// A planner JSON document of an older datebook (no `location`, no `url`) imports, and an
    /// export writes the keys only for events that have them.
    @Test func plannerJSONWithoutTheNewKeysImportsAndExportWritesThemWhenSet() throws {
        let (sandbox, imported, _) = try Self.importing("""
            {"datebook": 1, "events": [
              {"id": "aaaa000000000001", "title": "Old", "start": "2026-12-02", "allDay": true, "timeZone": "UTC",
               "symbol": "star.fill", "color": "red", "notes": "", "alerts": [], "recurrence": null, "tasks": []},
              {"id": "aaaa000000000002", "title": "New", "start": "2026-12-03", "location": "Hall\\nB", "url": "https://example.org/x"}
            ]}
            """, named: "old.json")
        #expect(imported.code == 0, "\(imported.err)")
        let exported = sandbox.run(["export"]).out
        #expect(exported.components(separatedBy: "\"location\"").count == 2, "only the event that has one: \(exported)")
        #expect(exported.contains("\"location\": \"Hall B\",\n      \"url\": \"https://example.org/x\",\n"), "\(exported)")
    }

    @Test func plannerJSONWithAForbiddenLinkIsRefusedWhole() throws {
        let run = try Self.importing(#"{"events": [{"title": "X", "start": "2026-12-02", "url": "javascript:alert(1)"}]}"#,
                                     named: "bad.json").run
        #expect(run.code == 65)
        #expect(run.err.contains("events[0].url: the scheme 'javascript:' is not allowed"), "\(run.err)")
    }

    /// LOCATION with an ALTREP parameter is the text; a URL that is not a link is dropped and a
    /// 10,000-byte LOCATION cut, each with a warning naming the UID, and the events still import;
    /// export writes both properties back.
    @Test func iCalendarLocationAndURLBothWays() throws {
        let (sandbox, run, file) = try Self.importing("""
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:room@example.org\r
            DTSTAMP:20261101T000000Z\r
            DTSTART:20261202T100000Z\r
            SUMMARY:Review\r
            DESCRIPTION:Bring slides\r
            LOCATION;ALTREP="cid:part1.0001@example.org":Conference Room - F123\\, Bldg. 002\r
            URL:not a link\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:call@example.org\r
            DTSTAMP:20261101T000000Z\r
            DTSTART:20261203T100000Z\r
            SUMMARY:Call\r
            URL:https://meet.example.org/abc-defg\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:long@example.org\r
            DTSTAMP:20261101T000000Z\r
            DTSTART:20261204T100000Z\r
            SUMMARY:Far away\r
            LOCATION:\(String(repeating: "x", count: 10_000))\r
            END:VEVENT\r
            END:VCALENDAR\r

            """, named: "in.ics")
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out == "imported 3 events from \(file) (2 warnings)\n")
        #expect(run.err.contains("UID room@example.org: URL expected a link with a scheme"), "\(run.err)")
        #expect(run.err.contains("UID long@example.org: LOCATION was 10000 bytes long; cut to 1000 bytes"), "\(run.err)")
        #expect(sandbox.run(["show", "Far away"]).out.contains("  location " + String(repeating: "x", count: 1_000) + "\n"))
        let review = sandbox.run(["show", "Review"]).out
        #expect(review.contains("  location Conference Room - F123, Bldg. 002\n"), "\(review)")
        #expect(review.contains("  notes    Bring slides\n") && !review.contains("  url "), "\(review)")
        let ics = sandbox.run(["export", "--format", "ics"]).out
        #expect(ics.contains("LOCATION:Conference Room - F123\\, Bldg. 002\r\n"), "\(ics)")
        #expect(ics.contains("URL:https://meet.example.org/abc-defg\r\n"), "\(ics)")
    }
}
