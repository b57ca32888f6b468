import DatebookCore
import Foundation
import Testing

struct JSONParserTests {
    @Test func readsJSON5() throws {
        let node = try JSONParser.parse("""
        // comment
        { unquoted: 'single', "n": 0x1F, list: [1, 2,], /* block
        comment */ nested: { a: null, b: true, }, }
        """)
        #expect(node["unquoted"]?.value == .string("single"))
        #expect(node["n"]?.value == .number("0x1F"))
        guard case .array(let items) = node["list"]?.value else { Issue.record("list is not an array"); return }
        #expect(items.map(\.value) == [.number("1"), .number("2")])
        #expect(items.map(\.column) == [41, 44])
        #expect(node["nested"]?["b"]?.value == .bool(true))
        #expect(node["nested"]?.line == 3)
    }

    @Test func decodesEscapesAndUnicode() throws {
        let node = try JSONParser.parse(#"{"s": "a\"b\\c\n\u00fc\ud83c\udf81日本"}"#)
        #expect(node["s"]?.value == .string("a\"b\\c\nü🎁日本"))
    }

    @Test(arguments: [
        ("{\"a\": 1,\n \"b\": }", 2, "unexpected character '}'"),
        ("{\"a\": 1\n\"b\": 2}", 2, "expected ',' or '}' after the value of 'a'"),
        ("{\"a\": \"x}", 1, "unclosed string"),
        ("[1, 2", 1, "unclosed array: expected ']'"),
        ("{\"a\": 1, \"a\": 2}", 1, "duplicate key 'a'"),
        ("{\n\n  a: yes }", 3, "unexpected word 'yes' (strings need quotes)"),
        ("{} x", 1, "unexpected text after the end of the document"),
        ("{\"n\": 1.2.3}", 1, "malformed number '1.2.3'"),
    ])
    func syntaxErrorsCarryTheLine(text: String, line: Int, message: String) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("expected an error for \(text)")
        } catch let error as JSONSyntaxError {
            #expect(error.line == line, "\(text)")
            #expect(error.message == message, "\(text)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func textsWithoutEscapesAreQuotedAsTheyAre() {
        #expect(JSONText.quote("plain é 🎁 ß") == "\"plain é 🎁 ß\"")
        #expect(JSONText.quote("") == "\"\"")
        // U+2028 starts with the byte 0xE2, like "€" (E2 82 AC), which stays as it is.
        #expect(JSONText.quote("a\u{2028}b €") == #""a\u2028b €""#)
    }

    @Test func quotesControlCharactersAndKeepsSlashes() {
        #expect(JSONText.quote("a/b \"q\"\n\u{1}") == #""a/b \"q\"\n\u0001""#)
    }
}

struct PlannerDocumentTests {
    let defaults = PlannerDocument.Defaults(timeZone: "UTC", newID: { "generated0000000" },
                                            symbol: { .star }, color: { .red })
    /// Recurrence rules are judged above Core; these tests leave them alone.
    let noRules = EventValidation(ruleProblem: { _ in nil })

    func sample() -> [Event] {
        [
            Event(id: "aaaa000000000001", title: "Quote \" and ü 🎁", start: .instant(Date(timeIntervalSince1970: 1_796_000_000)),
                  end: .instant(Date(timeIntervalSince1970: 1_796_003_600)), timeZone: "Europe/Berlin", symbol: .gift,
                  color: .purple, notes: "line 1\nline 2", tasks: [EventTask(id: "t1", text: "a", status: .doing),
                                                                 EventTask(id: "t2", text: "b", status: .done)],
                  alerts: [LeadTime("1d")!, LeadTime("10m")!], recurrence: "FREQ=WEEKLY"),
            Event(id: "aaaa000000000002", title: "All day", start: .allDay(CalendarDate(year: 2026, month: 12, day: 24)),
                  timeZone: "Asia/Tokyo", symbol: .airplane, color: .mint),
        ]
    }

    @Test func exportThenImportRoundTripsExactly() throws {
        let text = PlannerDocument.encode(sample())
        let back = try PlannerDocument.decode(try JSONParser.parse(text), file: "x.json", defaults: defaults, validation: noRules)
        #expect(back == sample())
        #expect(PlannerDocument.encode(back) == text)
        // The export is also plain JSON that Foundation reads.
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
    }

    @Test(arguments: [
        (#"{"events": [{"title": "x", "start": "2026-01-01", "tasks": [{"text": "a", "status": "finished"}]}]}"#,
         #"in.json:1: events[0].tasks[0].status: expected todo, doing or done, got "finished""#),
        ("{\"events\": [\n{\"title\": \"x\", \"start\": \"soon\"}]}",
         #"in.json:2: events[0].start: expected a date (YYYY-MM-DD), an instant with offset (2026-12-03T08:00:00Z) or a floating time (2026-12-03T09:30), got "soon""#),
        (#"{"events": [{"title": "x", "start": "2026-01-01", "colour": "red"}]}"#,
         #"in.json:1: events[0].colour: unknown key (did you mean 'color'?)"#),
        (#"{"events": [{"title": "x", "start": "2026-01-01", "color": "purpel"}]}"#,
         #"in.json:1: events[0].color: expected one of primary, gray, red, orange, yellow, green, …, got "purpel" (did you mean 'purple'?)"#),
        (#"{"events": [{"start": "2026-01-01"}]}"#, "in.json:1: events[0].title: missing: expected a string"),
        (#"{"events": [{"title": 5, "start": "2026-01-01"}]}"#, "in.json:1: events[0].title: expected a string, got 5"),
        (#"{"events": {}}"#, "in.json:1: events: expected an array, got an object"),
        (#"{"datebook": 9, "events": []}"#, "in.json:1: datebook: document version 9 is newer than this datebook understands (1)"),
        (#"{"events": [{"title": "x", "start": "2026-01-01", "alerts": ["soon"]}]}"#,
         #"in.json:1: events[0].alerts[0]: expected a lead time like 1d, 1h or 10m, got "soon""#),
        (#"{"events": [{"title": "x", "start": "2026-01-01", "timeZone": "Mars/Base"}]}"#,
         #"in.json:1: events[0].timeZone: unknown time zone "Mars/Base" (expected an IANA name like Europe/Berlin)"#),
        (#"{"events": [{"id": "a", "title": "x", "start": "2026-01-01"}, {"id": "a", "title": "y", "start": "2026-01-01"}]}"#,
         #"in.json:1: events[1].id: duplicate id "a""#),
    ])
    func badDocumentsNameFileLineAndField(text: String, message: String) throws {
        let root = try JSONParser.parse(text)
        #expect(throws: InputError.self) { try PlannerDocument.decode(root, file: "in.json", defaults: defaults, validation: noRules) }
        do {
            _ = try PlannerDocument.decode(root, file: "in.json", defaults: defaults, validation: noRules)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func missingOptionalFieldsGetDefaults() throws {
        let root = try JSONParser.parse(#"{"events": [{"title": "x", "start": "2026-01-01T10:00:00+01:00", "tasks": [{"text": "a"}]}]}"#)
        let events = try PlannerDocument.decode(root, file: "in.json", defaults: defaults, validation: noRules)
        #expect(events[0].id == "generated0000000")
        #expect(events[0].start == .instant(Date(timeIntervalSince1970: 1_767_258_000)))
        #expect(events[0].tasks[0].status == .todo)
        #expect(events[0].symbol == .star && events[0].color == .red && events[0].timeZone == "UTC")
    }
}
