@testable import DatebookICal
import Foundation
import Testing

/// Large files are read by several workers; the document must be exactly the one a single reader makes.
struct ParallelParseTests {
    /// Every kind of component and warning, repeated: file-defined and unknown zones, broken and
    /// unterminated components, overrides, plain and libical-path VTODOs, folded lines.
    static let text: String = {
        var body = """
            BEGIN:VTIMEZONE\r
            TZID:My Office Time\r
            BEGIN:STANDARD\r
            DTSTART:19701025T030000\r
            TZOFFSETFROM:+0200\r
            TZOFFSETTO:+0100\r
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
            END:STANDARD\r
            BEGIN:DAYLIGHT\r
            DTSTART:19700329T020000\r
            TZOFFSETFROM:+0100\r
            TZOFFSETTO:+0200\r
            RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
            END:DAYLIGHT\r
            END:VTIMEZONE\r

            """
        for n in 0..<1_200 {
            let day = String(format: "%02d", n % 28 + 1)
            switch n % 6 {
            case 0: body += "BEGIN:VEVENT\r\nUID:e\(n)\r\nSUMMARY:Office \(n)\r\nDTSTART;TZID=My Office Time:202603\(day)T090000\r\nEND:VEVENT\r\n"
            case 1: body += "BEGIN:VEVENT\r\nUID:e\(n)\r\nSUMMARY:Nowhere \(n)\r\nDTSTART;TZID=Mars/Olympus:202604\(day)T090000\r\nEND:VEVENT\r\n"
            case 2: body += "BEGIN:VEVENT\r\nUID:e\(n)\r\nSUMMARY:Broken \(n)\r\nDTSTART:not-a-date\r\nEND:VEVENT\r\n"
            case 3:
                body += "BEGIN:VEVENT\r\nUID:w\(n)\r\nSUMMARY:Weekly \(n)\r\nDTSTART;TZID=Europe/Berlin:20260105T100000\r\n"
                    + "RRULE:FREQ=WEEKLY;COUNT=5\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\n"
                body += "BEGIN:VEVENT\r\nUID:w\(n)\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260112T100000\r\n"
                    + "DTSTART;TZID=Europe/Berlin:20260112T120000\r\nSUMMARY:Moved \(n)\r\nEND:VEVENT\r\n"
            case 4: body += "BEGIN:VTODO\r\nUID:t\(n)\r\nSUMMARY:Plain \(n)\r\nSTATUS:COMPLETED\r\nRELATED-TO:w\(n - 1)\r\nEND:VTODO\r\n"
            default: body += "BEGIN:VTODO\r\nUID:t\(n)\r\nSUMMARY;LANGUAGE=en:Folded\r\n  \(n)\r\nDUE;VALUE=DATE:202605\(day)\r\nEND:VTODO\r\n"
            }
        }
        body += "BEGIN:VEVENT\r\nUID:open\r\nDTSTART:20260101T100000Z\r\n"
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body
    }()

    static func parse(workers: Int?) throws -> ICalDocument {
        try ICalParser.parse(data: Data(text.utf8), fileName: "big.ics",
                             defaultTimeZone: TimeZone(identifier: "America/New_York") ?? .current, workers: workers)
    }

    @Test(arguments: [2, 3, 4])
    func workersMakeTheSameDocumentAsOneReader(workers: Int) throws {
        let single = try Self.parse(workers: 1)
        // The fixture must exercise what it claims to.
        #expect(single.events.count == 800, "broken events are skipped")
        #expect(single.todos.count == 400)
        #expect(single.warnings.contains { $0.message.contains("Mars/Olympus") })
        #expect(single.warnings.contains { $0.message.contains("no END:VEVENT") })
        #expect(single.warnings.contains { $0.message.contains("DTSTART") })
        let parallel = try Self.parse(workers: workers)
        #expect(parallel == single)
    }

    @Test func partsAreConsecutiveSlicesInFileOrder() throws {
        let parts = try ICalParser.parseParts(data: Data(Self.text.utf8), fileName: "big.ics",
                                              defaultTimeZone: TimeZone(identifier: "America/New_York") ?? .current,
                                              workers: 2)
        #expect(parts.count == 2)
        let single = try Self.parse(workers: 1)
        #expect(parts.flatMap(\.events) == single.events)
        #expect(parts.flatMap(\.todos) == single.todos)
        #expect(parts.flatMap(\.warnings) == single.warnings)
        #expect(parts[0].warnings.first?.message.contains("no END:VEVENT") == true, "file-level warnings come first")
    }

    /// Byte ranges reported consumed are never read again: scribbling over each one as it is
    /// reported leaves the document unchanged, with a zone defined in the middle of the file too
    /// (every worker reads every VTIMEZONE first).
    @Test(arguments: [2, 3, 4])
    func consumedBytesAreNotReadAgain(workers: Int) throws {
        let zone = "BEGIN:VTIMEZONE" + Self.text.components(separatedBy: "BEGIN:VTIMEZONE")[1]
            .components(separatedBy: "END:VTIMEZONE\r\n")[0] + "END:VTIMEZONE\r\n"
        let halves = Self.text.components(separatedBy: "BEGIN:VEVENT\r\nUID:e600\r\n")
        try #require(halves.count == 2)
        let head = halves[0] + zone.replacingOccurrences(of: "My Office Time", with: "Late Zone")
        let text = head + "BEGIN:VEVENT\r\nUID:e600\r\n"
            + halves[1].replacingOccurrences(of: "TZID=My Office Time", with: "TZID=Late Zone")
        let bytes = Array(text.utf8)
        let lastZoneEnd = head.utf8.count
        let timeZone = TimeZone(identifier: "America/New_York") ?? .current
        let expected = try ICalParser.parseParts(data: Data(bytes), fileName: "big.ics", defaultTimeZone: timeZone, workers: workers)
        let late = expected.flatMap(\.warnings).filter { $0.message.contains("'Late Zone'") }
        #expect(!late.isEmpty && late.allSatisfy { $0.message.contains("follows the file's VTIMEZONE") }, "the late zone is read")

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        defer { buffer.deallocate() }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        let address = UInt(bitPattern: buffer.baseAddress)
        let reported = Reported()
        let scribble: @Sendable (Range<Int>) -> Void = { range in
            reported.add(range)
            let start = UnsafeMutableRawPointer(bitPattern: address + UInt(range.lowerBound))
            start?.initializeMemory(as: UInt8.self, repeating: 0x41, count: range.count)
        }
        let view = Data(bytesNoCopy: try #require(buffer.baseAddress), count: bytes.count, deallocator: .none)
        let parts = try ICalParser.parseParts(data: view, fileName: "big.ics", defaultTimeZone: timeZone, workers: workers,
                                              fastPaths: true, consumed: scribble, releaseBatch: 7)
        #expect(parts == expected)
        let ranges = reported.ranges.sorted { $0.lowerBound < $1.lowerBound }
        #expect(ranges.count > 50, "released as the parse goes")
        #expect((ranges.first?.lowerBound ?? 0) >= lastZoneEnd, "nothing before the end of the last zone")
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound }, "no range twice")
        let released = ranges.reduce(0) { $0 + $1.count }
        #expect(released > (bytes.count - lastZoneEnd) * 8 / 10)
    }

    final class Reported: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Range<Int>] = []
        func add(_ range: Range<Int>) { lock.withLock { stored.append(range) } }
        var ranges: [Range<Int>] { lock.withLock { stored } }
    }

    @Test func largeFilesUseSeveralWorkersSmallOnesOne() {
        #expect(ICalParser.slices(100).count == 1)
        let large = ICalParser.slices(10_000)
        #expect(large.count == max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)))
        #expect(large.first?.lowerBound == 0 && large.last?.upperBound == 10_000)
        #expect(zip(large, large.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }
}
