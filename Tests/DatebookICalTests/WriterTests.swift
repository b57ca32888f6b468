import DatebookICal
import Foundation
import Testing

@Suite struct WriterTests {
    static let berlin = TestSupport.zone("Europe/Berlin")

    static let events: [ICalEvent] = [
        ICalEvent(uid: "w1@datebook", summary: "Plan; review, and \\ notes", description: "Line 1\nLine 2 — ünïcödé ✓ 🎉",
                  location: "Room 1, Floor 2", url: "https://example.org/e?id=1&x=2",
                  start: .zoned(TestSupport.instant(2026, 3, 2, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin"),
                  end: .zoned(TestSupport.instant(2026, 3, 2, 10, zone: "Europe/Berlin"), tzid: "Europe/Berlin"),
                  rrule: "FREQ=WEEKLY;BYDAY=MO;UNTIL=20261231T000000Z",
                  rdates: [.zoned(TestSupport.instant(2026, 3, 5, 14, zone: "Europe/Berlin"), tzid: "Europe/Berlin")],
                  exdates: [.utc(TestSupport.instant(2026, 3, 9, 8, zone: "UTC"))],
                  alarms: [86_400, 3_600, 600, -300], sourceLine: 0, status: "CONFIRMED"),
        ICalEvent(uid: "w2@datebook", summary: String(repeating: "Größe 🎉 ", count: 40) + "end",
                  start: .date(year: 2026, month: 12, day: 24), end: .date(year: 2026, month: 12, day: 25),
                  rrule: "FREQ=YEARLY"),
        ICalEvent(uid: "w1@datebook", summary: "Moved",
                  start: .zoned(TestSupport.instant(2026, 3, 17, 15, zone: "America/New_York"), tzid: "America/New_York"),
                  recurrenceID: .zoned(TestSupport.instant(2026, 3, 16, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin"),
                  status: "CANCELLED"),
        ICalEvent(uid: "w3@datebook", start: .floating(ICalLocalDateTime(year: 2026, month: 5, day: 1, hour: 8, minute: 30)),
                  end: .utc(TestSupport.instant(2026, 5, 1, 12, zone: "UTC"))),
    ]

    static let todos: [ICalTodo] = [
        ICalTodo(uid: "t1", summary: "Buy cake, candles; cups", status: .todo, relatedTo: "w1@datebook"),
        ICalTodo(uid: "t2", summary: "Invite", status: .doing, relatedTo: "w1@datebook", due: .date(year: 2026, month: 3, day: 1)),
        ICalTodo(uid: "t3", summary: "Book", status: .done, rawStatus: "CANCELLED"),
    ]

    @Test func roundTripThroughLibicalGivesTheSameValues() throws {
        let text = ICalWriter.write(events: Self.events, todos: Self.todos, prodID: "-//datebook//test//EN")
        let doc = try ICalParser.parse(data: Data(text.utf8), fileName: "out.ics", defaultTimeZone: Self.berlin)
        #expect(doc.warnings.isEmpty, "\(doc.warnings)")
        let read = doc.events.map { var e = $0; e.sourceLine = 0; return e }
        #expect(read.count == Self.events.count)
        for (got, want) in zip(read, Self.events) where got != want {
            let fields = zip(Mirror(reflecting: got).children, Mirror(reflecting: want).children)
                .filter { "\($0.value)" != "\($1.value)" }
                .map { "\($0.label ?? ""): got \($0.value), want \($1.value)" }
            Issue.record("\(want.uid): \(fields.joined(separator: "; "))")
        }
        #expect(doc.todos.map { var t = $0; t.sourceLine = 0; return t } == Self.todos.map { var t = $0; t.rawStatus = t.rawStatus ?? t.status.icalStatus; return t })
    }

    @Test func outputIsFoldedCRLFWithinSeventyFiveOctets() throws {
        let text = ICalWriter.write(events: Self.events, todos: Self.todos, prodID: "-//datebook//test//EN")
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        let bytes = Array(text.utf8)
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            #expect(index > 0 && bytes[index - 1] == 0x0D, "bare LF at byte \(index)")
        }
        for line in text.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 75, "line too long: \(line.prefix(30))…")
        }
        #expect(text.contains("SUMMARY:Plan\\; review\\, and \\\\ notes\r\n"))
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20260302T090000\r\n"))
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(text.contains("TRIGGER:-P1D\r\n") && text.contains("TRIGGER:-PT10M\r\n") && text.contains("TRIGGER:PT5M\r\n"))
        #expect(text.contains("RELATED-TO:w1@datebook\r\n"))
    }

    @Test(arguments: [
        ("short", "short"),
        (String(repeating: "a", count: 80), String(repeating: "a", count: 75) + "\r\n " + String(repeating: "a", count: 5)),
        (String(repeating: "a", count: 74) + "é", String(repeating: "a", count: 74) + "\r\n é"),
        (String(repeating: "a", count: 73) + "🎉", String(repeating: "a", count: 73) + "\r\n 🎉"),
    ])
    func foldingNeverSplitsUTF8(line: String, expected: String) {
        #expect(ICalWriter.fold(line) == expected)
    }

    @Test func writtenFileExpandsLikeTheOriginal() throws {
        let original = try TestSupport.parse("overrides.ics")
        let text = ICalWriter.write(events: original.events, todos: [], prodID: "-//datebook//test//EN")
        let again = try ICalParser.parse(data: Data(text.utf8), fileName: "out.ics", defaultTimeZone: Self.berlin)
        let window = TestSupport.window(TestSupport.instant(2026, 1, 1, zone: "UTC"), TestSupport.instant(2027, 1, 1, zone: "UTC"))
        let a = ICalRecurrence.expand(events: original.events, fileName: "a", window: window, defaultTimeZone: Self.berlin, cap: 100)
        let b = ICalRecurrence.expand(events: again.events, fileName: "b", window: window, defaultTimeZone: Self.berlin, cap: 100)
        #expect(a.occurrences.map(\.start) == b.occurrences.map(\.start))
        #expect(a.occurrences.count == 6)
    }
}
