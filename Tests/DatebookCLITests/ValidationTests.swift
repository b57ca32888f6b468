@testable import DatebookCLI
import DatebookCore
import DatebookStore
import Foundation
import Testing

/// The planner's event rules (`EventValidation`, `Limits`) through every way in: `add`, `edit`,
/// `task add` and planner JSON imports refuse; iCalendar imports and feeds (other people's
/// calendars) repair with a warning or leave that event out.
struct ValidationTests {
    static let long = String(repeating: "x", count: Limits.titleBytes + 1)
    static let longNotes = String(repeating: "n", count: Limits.notesBytes + 1)

    @Test(arguments: [
        (["add", long, "--at", "tomorrow 9am"], "datebook: TITLE: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (["add", "x", "--at", "tomorrow 9am", "--notes", longNotes],
         "datebook: --notes: is 100001 bytes long; the limit is 100000 bytes (shorten it)"),
        (["add", "x", "--at", "tomorrow 9am", "--task", long], "datebook: --task: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (["edit", "Pagliacci", "--title", long], "datebook: --title: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (["edit", "Pagliacci", "--task", long], "datebook: --task: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (["task", "add", "Pagliacci", long], "datebook: TEXT: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (["add", "x", "--at", "3000-12-31 23:00"], "datebook: --at: the time is out of range (years 1–3000)"),
    ])
    func commandsRefuseWhatBreaksTheRules(args: [String], message: String) {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let before = sandbox.run(["export"]).out
        let run = sandbox.run(args)
        #expect(run.code == 64, "\(args)")
        #expect(run.err.hasPrefix(message + "\n"), "\(run.err.prefix(200))")
        #expect(sandbox.run(["export"]).out == before, "nothing changes")
    }

    @Test(arguments: [
        (#"{"events": [{"title": "\#(long)", "start": "2026-12-24"}]}"#,
         "datebook: in.json:1: events[0].title: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (#"{"events": [{"title": "x", "start": "2026-12-24", "recurrence": "FREQ=SECONDLY"}]}"#,
         "datebook: in.json:1: events[0].recurrence: FREQ=SECONDLY is refused (it can produce millions of occurrences)"),
        ("{\"events\": [{\"title\": \"x\", \"start\": \"2026-12-24T10:00:00Z\",\n \"end\": \"2026-12-24T09:00:00Z\"}]}",
         "datebook: in.json:2: events[0].end: the end 2026-12-24T09:00:00Z is before the start 2026-12-24T10:00:00Z"),
        (#"{"events": [{"id": "", "title": "x", "start": "2026-12-24"}]}"#, "datebook: in.json:1: events[0].id: expected a non-empty id"),
        (#"{"events": [{"title": "x", "start": "2026-12-24", "tasks": [{"id": "a", "text": "1"}, {"id": "a", "text": "2"}]}]}"#,
         #"datebook: in.json:1: events[0].tasks[1].id: duplicate task id "a" (task ids are unique within an event)"#),
    ])
    func plannerJSONImportRefusesWhatAddRefuses(text: String, message: String) throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/in.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["import", path])
        #expect(run.code == 65)
        #expect(run.err == message.replacingOccurrences(of: "in.json", with: path) + "\n")
        #expect(try sandbox.exportedEvents().isEmpty)
    }

    static let calendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:long@example.org\r
        DTSTART:20261224T100000Z\r
        DTEND:20261224T090000Z\r
        SUMMARY:\(long)\r
        RRULE:FREQ=SECONDLY\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:far@example.org\r
        DTSTART:20261224T100000Z\r
        DURATION:P3000000D\r
        SUMMARY:Too long\r
        END:VEVENT\r
        BEGIN:VTODO\r
        UID:todo@example.org\r
        SUMMARY:First\r
        RELATED-TO:long@example.org\r
        END:VTODO\r
        BEGIN:VTODO\r
        UID:todo@example.org\r
        SUMMARY:Second\r
        RELATED-TO:long@example.org\r
        END:VTODO\r
        END:VCALENDAR\r

        """

    @Test func icsImportRepairsWithWarningsAndSkipsWhatCannotStay() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/other.ics"
        try Self.calendar.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["import", path])
        #expect(run.code == 0)
        #expect(run.out == "imported 1 event from \(path) (5 warnings)\n")
        let warnings = run.err.split(separator: "\n").map(String.init)
        #expect(warnings == [
            "datebook: warning: \(path):11: UID far@example.org: DURATION P3000000D ends after 3000-12-31, the last date datebook keeps; the event was skipped; fix the DURATION line",
            "datebook: warning: \(path):4: UID long@example.org: SUMMARY was 1001 bytes long; cut to 1000 bytes (the limit is 1000)",
            "datebook: warning: \(path):4: UID long@example.org: DTEND the end 2026-12-24T09:00:00Z is before the start 2026-12-24T10:00:00Z; the event has no end",
            "datebook: warning: \(path):4: UID long@example.org: FREQ=SECONDLY is refused (it can produce millions of occurrences); only DTSTART is used",
            "datebook: warning: \(path):22: UID todo@example.org: a second VTODO with task id \"\(String(EventID.stable("todo@example.org").prefix(8)))\" for the same event; only the first is kept",
        ])
        let event = try #require(try sandbox.exportedEvents().first)
        #expect((event["title"] as? String)?.utf8.count == Limits.titleBytes)
        #expect(event["end"] is NSNull && event["recurrence"] is NSNull)
        #expect((event["tasks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["First"])
    }

    @Test func icsFeedsAreRepairedLikeImports() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/shared.ics"
        try Self.calendar.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["feed", "add", "shared", path])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err.contains("\(path):4: UID long@example.org: SUMMARY was 1001 bytes long; cut to 1000 bytes (the limit is 1000)"))
        #expect(run.err.contains("\(path):11: UID far@example.org: DURATION P3000000D ends after 3000-12-31, the last date datebook keeps"))
        let titles = try sandbox.exportedEvents().map { ($0["title"] as? String)?.utf8.count }
        #expect(titles == [Limits.titleBytes])
    }

    @Test func exportRepairsWhatAnOlderStoreHoldsSoTheBackupRestores() throws {
        let sandbox = Sandbox()
        do {
            // Written past the rules, as a store from before them may be.
            let store = try Store(path: sandbox.store)
            try store.save([
                Event(id: "abcd000000000001", title: "Every second", start: .instant(Date(timeIntervalSince1970: 1_796_000_000)),
                      timeZone: "UTC", symbol: .bell, color: .red, recurrence: "FREQ=SECONDLY"),
                Event(id: "abcd000000000002", title: "Far", start: .allDay(CalendarDate(year: 5000, month: 1, day: 1)),
                      timeZone: "UTC", symbol: .bell, color: .red),
            ])
        }
        for format in ["json", "ics"] {
            let file = sandbox.home + "/backup." + format
            let run = sandbox.run(["export", "--format", format, "-o", file])
            #expect(run.err == """
                datebook: warning: event abcd0000 'Every second': recurrence: FREQ=SECONDLY is refused (it can produce millions \
                of occurrences); only DTSTART is used; exported so
                datebook: warning: event abcd0000 'Far': start: the date 5000-01-01 is out of range (years 1–3000); left out \
                (import would refuse it)
                datebook: exported 1 event to \(file)

                """)
            let copy = Sandbox()
            let restored = copy.run(["import", file])
            #expect(restored.code == 0 && restored.err.isEmpty, "\(format): \(restored.err)")
            #expect(try copy.exportedEvents().map { $0["recurrence"] is NSNull } == [true])
        }
    }

    @Test func jsonFeedsAreRepairedWithWarnings() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/shared.json"
        try #"{"events": [{"id": "a", "title": "\#(Self.long)", "start": "2026-12-24"}, {"id": "b", "title": "x", "start": "0000-01-01"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["feed", "add", "shared", path])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err.contains("\(path):1: events[0].title: was 1001 bytes long; cut to 1000 bytes (the limit is 1000)"))
        #expect(run.err.contains("\(path):1: events[1].start: the date 0000-01-01 is out of range (years 1–3000); event skipped"))
        #expect(try sandbox.exportedEvents().map { ($0["title"] as? String)?.utf8.count } == [Limits.titleBytes])
    }
}
