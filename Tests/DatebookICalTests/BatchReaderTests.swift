@testable import DatebookICal
import Foundation
import Testing

/// `ICalParser.BatchReader` reads a file a batch at a time; its batches, one after the other, must
/// be exactly the document the whole file gives.
struct BatchReaderTests {
    static let zone = TimeZone(identifier: "America/New_York") ?? .current

    /// Every batch of `text`, each as its parts.
    static func batches(_ text: String, batchEvents: Int, workers: Int? = nil) throws -> [[ICalDocument]] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { raw in
            var reader = try ICalParser.BatchReader(bytes: raw, fileName: "big.ics", defaultTimeZone: zone,
                                                    batchEvents: batchEvents, workers: workers)
            var batches: [[ICalDocument]] = []
            while let batch = reader.next() { batches.append(batch) }
            return batches
        }
    }

    /// ParallelParseTests' file (zones, broken and unterminated components, overrides, folded
    /// VTODOs), and the same with its VTIMEZONE moved after every event that uses it.
    static let texts: [String] = {
        let text = ParallelParseTests.text
        let zone = "BEGIN:VTIMEZONE" + text.components(separatedBy: "BEGIN:VTIMEZONE")[1]
            .components(separatedBy: "END:VTIMEZONE\r\n")[0] + "END:VTIMEZONE\r\n"
        let late = text.replacingOccurrences(of: zone, with: "").replacingOccurrences(of: "BEGIN:VEVENT\r\nUID:open\r\n",
                                                                                    with: zone + "BEGIN:VEVENT\r\nUID:open\r\n")
        return [text, late]
    }()

    @Test(arguments: [1, 7, 100], [0, 1])
    func batchesReadWhatTheWholeFileReads(batchEvents: Int, text: Int) throws {
        let whole = try ICalParser.parse(data: Data(Self.texts[text].utf8), fileName: "big.ics", defaultTimeZone: Self.zone,
                                         workers: 1)
        let batches = try Self.batches(Self.texts[text], batchEvents: batchEvents, workers: 2)
        #expect(batches.count > 1)
        let parts = batches.flatMap { $0 }
        #expect(parts.flatMap(\.events) == whole.events)
        #expect(parts.flatMap(\.todos) == whole.todos)
        #expect(parts.flatMap(\.warnings) == whole.warnings)
        #expect(whole.warnings.contains { $0.message.contains("'My Office Time'") && $0.message.contains("follows the file's VTIMEZONE") },
                "the zone is read wherever it sits")
    }

    /// A batch is cut before a VEVENT, so the VTODOs after an event come with it; a run of
    /// VTODOs alone is cut at eight times the batch.
    @Test func batchesEndBeforeAnEventOrAfterEightTimesTheirSize() throws {
        var body = ""
        for n in 0..<6 {
            body += "BEGIN:VEVENT\r\nUID:e\(n)\r\nDTSTART:20260301T090000Z\r\nEND:VEVENT\r\n"
            for k in 0..<3 { body += "BEGIN:VTODO\r\nUID:t\(n).\(k)\r\nRELATED-TO:e\(n)\r\nEND:VTODO\r\n" }
        }
        for n in 0..<40 { body += "BEGIN:VTODO\r\nUID:loose\(n)\r\nEND:VTODO\r\n" }
        let batches = try Self.batches("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + body + "END:VCALENDAR\r\n", batchEvents: 2)
        let shapes = batches.map { ($0.flatMap(\.events).count, $0.flatMap(\.todos).count) }
        #expect(shapes.map(\.0) == [2, 2, 2, 0, 0])
        #expect(shapes.map(\.1) == [6, 6, 6 + 8, 16, 16])
    }
}
