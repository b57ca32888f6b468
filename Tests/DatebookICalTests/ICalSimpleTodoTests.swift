@testable import DatebookICal
import Foundation
import Testing

/// The plain-VTODO fast path must read exactly what libical reads.
struct ICalSimpleTodoTests {
    func todos(_ body: String) throws -> [ICalTodo] {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n"
        return try ICalParser.parse(data: Data(text.utf8), fileName: "t.ics",
                                    defaultTimeZone: TimeZone(identifier: "UTC") ?? .current).todos
    }

    @Test(arguments: [
        "SUMMARY:Buy cake\\, candles\\; and \\\\ a card\\nsoon",
        "summary:Buy cake",
        "SUMMARY:Ünïcødé ✓",
        "STATUS:in-process",
        "RELATED-TO:party@example.org",
        "PRIORITY:1",
        "PRIORITY:0",
        "PRIORITY:12",
    ])
    func plainTodoMatchesLibical(line: String) throws {
        let plain = "BEGIN:VTODO\r\nUID:t1\r\nDTSTAMP:20260101T000000Z\r\n\(line)\r\nEND:VTODO\r\n"
        // A folded DTSTAMP line sends the same VTODO through libical.
        let folded = "BEGIN:VTODO\r\nUID:t1\r\nDTSTAMP:20260101T0\r\n 00000Z\r\n\(line)\r\nEND:VTODO\r\n"
        let fast = try todos(plain)
        let slow = try todos(folded)
        #expect(fast.count == 1)
        #expect(fast == slow)
        let bytes = Array(plain.utf8)
        let direct = bytes.withUnsafeBufferPointer {
            ICalSimpleTodo.parse($0, chunk: ICalChunk(name: "VTODO", line: 1, range: 0..<bytes.count))
        }
        #expect(direct != nil, "the plain form must take the fast path")
    }

    /// PRIORITY 1…9 is kept on both paths; 0 and values outside RFC 5545's range mean none.
    @Test func priorityIsReadOnBothPaths() throws {
        for (line, expected) in [("PRIORITY:1", 1), ("PRIORITY:9", 9), ("PRIORITY:0", 0), ("PRIORITY:12", 0)] {
            let plain = try todos("BEGIN:VTODO\r\nUID:t1\r\n\(line)\r\nEND:VTODO\r\n")
            let folded = try todos("BEGIN:VTODO\r\nUID:t1\r\nDUE;VALUE=DATE:20260520\r\n\(line)\r\nEND:VTODO\r\n")
            #expect(plain.first?.priority == expected && folded.first?.priority == expected, "\(line)")
        }
    }

    @Test(arguments: [
        "BEGIN:VTODO\r\nSUMMARY:no uid\r\nEND:VTODO\r\n",
        "BEGIN:VTODO\r\nUID:t1\r\nDUE;VALUE=DATE:20260520\r\nEND:VTODO\r\n",
        "BEGIN:VTODO\r\nUID:t1\r\nSUMMARY;LANGUAGE=de:Kuchen\r\nEND:VTODO\r\n",
        "BEGIN:VTODO\r\nUID:t1\r\nBEGIN:VALARM\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VTODO\r\n",
    ])
    func anythingElseTakesTheLibicalPath(text: String) {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer {
            ICalSimpleTodo.parse($0, chunk: ICalChunk(name: "VTODO", line: 1, range: 0..<bytes.count))
        }
        #expect(result == nil)
    }
}
