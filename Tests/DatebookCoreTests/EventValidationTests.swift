import DatebookCore
import Foundation
import Testing

/// The one set of event rules, through the planner JSON reader (strict) and `repair` (other
/// people's calendars). The CLI tests run the same rules through `add`, `import` and feeds.
struct EventValidationTests {
    let defaults = PlannerDocument.Defaults(timeZone: "UTC", newID: { "generated0000000" },
                                            symbol: { .star }, color: { .red })
    /// A stand-in for the expander's judgement (the real one is tested through the CLI).
    let rules = EventValidation(ruleProblem: {
        $0.contains("SECONDLY") ? "FREQ=SECONDLY is refused (it can produce millions of occurrences); only DTSTART is used" : nil
    })

    static let hugeTitle = String(repeating: "x", count: Limits.titleBytes + 1)

    @Test(arguments: [
        ("{\"events\": [\n{\"title\": \"x\", \"start\": \"2026-01-02T10:00:00Z\",\n \"end\": \"2026-01-01T10:00:00Z\"}]}",
         "in.json:3: events[0].end: the end 2026-01-01T10:00:00Z is before the start 2026-01-02T10:00:00Z"),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "end": "2026-01-01"}]}"#,
         "in.json:1: events[0].end: the end 2026-01-01 is before the start 2026-01-02"),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "end": "2026-01-03T10:00:00Z"}]}"#,
         "in.json:1: events[0].end: expected a date (YYYY-MM-DD) like the start, got an instant"),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "recurrence": "FREQ=SECONDLY"}]}"#,
         "in.json:1: events[0].recurrence: FREQ=SECONDLY is refused (it can produce millions of occurrences)"),
        (#"{"events": [{"id": "", "title": "x", "start": "2026-01-02"}]}"#, "in.json:1: events[0].id: expected a non-empty id"),
        (#"{"events": [{"id": "a b", "title": "x", "start": "2026-01-02"}]}"#,
         #"in.json:1: events[0].id: expected an id without spaces or control characters, got "a b""#),
        ("{\"events\": [{\"title\": \"x\", \"start\": \"2026-01-02\", \"tasks\": [\n{\"id\": \"t1\", \"text\": \"a\"},\n{\"id\": \"t1\", \"text\": \"b\"}]}]}",
         #"in.json:3: events[0].tasks[1].id: duplicate task id "t1" (task ids are unique within an event)"#),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "tasks": [{"id": "", "text": "a"}]}]}"#,
         "in.json:1: events[0].tasks[0].id: expected a non-empty id"),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "tasks": [{"text": " "}]}]}"#,
         "in.json:1: events[0].tasks[0].text: expected a non-empty task text"),
        (#"{"events": [{"title": "\#(hugeTitle)", "start": "2026-01-02"}]}"#,
         "in.json:1: events[0].title: is 1001 bytes long; the limit is 1000 bytes (shorten it)"),
        (#"{"events": [{"title": "x", "start": "2026-01-02", "notes": "\#(String(repeating: "é", count: 50_001))"}]}"#,
         "in.json:1: events[0].notes: is 100002 bytes long; the limit is 100000 bytes (shorten it)"),
        (#"{"events": [{"title": "x", "start": "0000-12-31"}]}"#,
         "in.json:1: events[0].start: the date 0000-12-31 is out of range (years 1–3000)"),
        (#"{"events": [{"title": "x", "start": "3000-12-31T12:00:00Z"}]}"#,
         "in.json:1: events[0].start: the time is out of range (years 1–3000)"),
    ])
    func plannerJSONRefusesWhatAddRefuses(text: String, message: String) throws {
        let root = try JSONParser.parse(text)
        #expect(throws: InputError.self) { try PlannerDocument.decode(root, file: "in.json", defaults: defaults, validation: rules) }
        do {
            _ = try PlannerDocument.decode(root, file: "in.json", defaults: defaults, validation: rules)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func limitsAreAcceptedExactly() throws {
        let title = String(repeating: "é", count: Limits.titleBytes / 2)
        let text = #"{"events": [{"title": "\#(title)", "start": "0001-01-01", "end": "3000-12-31"}]}"#
        let events = try PlannerDocument.decode(try JSONParser.parse(text), file: "in.json", defaults: defaults, validation: rules)
        #expect(events.first?.title == title)
    }

    @Test func repairCutsTextsOnCharacterBoundariesAndDropsWhatCannotStay() {
        var event = Event(id: "abcd000000000001", title: String(repeating: "🎁", count: 300), // 1,200 bytes
                          start: .instant(Date(timeIntervalSince1970: 1_800_000_000)),
                          end: .instant(Date(timeIntervalSince1970: 1_700_000_000)), timeZone: "UTC", symbol: .gift,
                          color: .red, notes: String(repeating: "n", count: Limits.notesBytes + 5),
                          tasks: [EventTask(id: "t1", text: "a"), EventTask(id: "t1", text: "b"), EventTask(id: "t2", text: "  ")],
                          recurrence: "FREQ=SECONDLY")
        let repair = rules.repair(&event)
        #expect(repair.refusals.isEmpty)
        #expect(event.title == String(repeating: "🎁", count: 250))
        #expect(event.notes.utf8.count == Limits.notesBytes)
        #expect(event.end == nil && event.recurrence == nil)
        #expect(event.tasks.map(\.id) == ["t1", "t2"] && event.tasks.map(\.text) == ["a", "(no text)"])
        #expect(repair.changes.map(\.field) == ["title", "notes", "end", "recurrence", "tasks[1].id", "tasks[2].text"])
        #expect(repair.changes[0].message == "was 1200 bytes long; cut to 1000 bytes (the limit is 1000)")
        #expect(rules.problems(event).isEmpty)
    }

    @Test func repairRefusesDatesOutOfRange() {
        var event = Event(id: "abcd000000000001", title: "x", start: .allDay(CalendarDate(year: 10_000, month: 1, day: 1)),
                          timeZone: "UTC", symbol: .gift, color: .red)
        let repair = rules.repair(&event)
        #expect(repair.refusals == [EventProblem(field: "start", message: "the date 10000-01-01 is out of range (years 1–3000)")])
    }

    @Test func plannerJSONFeedsAreRepairedWithWarnings() throws {
        let text = "{\"events\": [{\"id\": \"a\", \"title\": \"\(Self.hugeTitle)\", \"start\": \"2026-01-02\"},\n"
            + "{\"id\": \"b\", \"title\": \"x\", \"start\": \"99999-01-01\"},\n"
            + "{\"id\": \"c\", \"title\": \"y\", \"start\": \"0000-01-01\"}]}"
        let root = try JSONParser.parse(text)
        #expect(throws: InputError.self) {
            try PlannerDocument.decodeRepairing(root, file: "feed.json", defaults: defaults, validation: rules)
        }
        let fixed = try PlannerDocument.decodeRepairing(try JSONParser.parse("{\"events\": [{\"id\": \"a\", \"title\": \"\(Self.hugeTitle)\", \"start\": \"2026-01-02\"},\n"
            + "{\"id\": \"c\", \"title\": \"y\", \"start\": \"0000-01-01\"}]}"), file: "feed.json", defaults: defaults, validation: rules)
        #expect(fixed.events.map(\.id) == ["a"])
        #expect(fixed.events.first?.title.utf8.count == Limits.titleBytes)
        #expect(fixed.warnings == ["feed.json:1: events[0].title: was 1001 bytes long; cut to 1000 bytes (the limit is 1000)",
                                   "feed.json:2: events[1].start: the date 0000-01-01 is out of range (years 1–3000); event skipped"])
    }
}
