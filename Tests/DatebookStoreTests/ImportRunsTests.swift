import DatebookCore
@testable import DatebookStore
import Foundation
import Testing

/// `ImportRuns`, the scratch file of a large import: each run is a batch in id order, and the merge
/// hands every event back once, with its rows in every table as they went in, in id order when the
/// runs are. (`ImportBatchTests` compares whole imports through it with the plain path.)
@Suite struct ImportRunsTests {
    /// One event's rows: an events row led by its id, `tasks` task rows, and a source row.
    struct Record: Equatable {
        var id: String
        var note: String
        var tasks: Int
    }

    static func chunk(_ records: [Record]) -> BulkRows.Chunk {
        var chunk = BulkRows.Chunk()
        for record in records {
            chunk.table = .events
            chunk.text(record.id)
            chunk.integer(-42)
            chunk.null()
            chunk.text(record.note)
            chunk.table = .tasks
            for position in 0..<record.tasks {
                chunk.text(record.id)
                chunk.integer(Int64(position))
                chunk.text("")
            }
            chunk.table = .sources
            chunk.text(record.id)
            chunk.text("uid-" + record.id + "@example.org")
            chunk.endEvent()
        }
        return chunk
    }

    /// The records of merged chunks, checking that each holds what `chunk` wrote for it.
    static func records(_ chunks: [BulkRows.Chunk]) -> [Record] {
        var found: [Record] = []
        for chunk in chunks {
            let text = { (value: BulkRows.Value) -> String in
                guard case let .text(start, count) = value else { return "not text" }
                return String(decoding: chunk.bytes[Int(start)..<Int(start + count)], as: UTF8.self)
            }
            let events = chunk.values[BulkRows.Table.events.rawValue]
            let tasks = chunk.values[BulkRows.Table.tasks.rawValue]
            let sources = chunk.values[BulkRows.Table.sources.rawValue]
            var taskAt = 0
            for event in 0..<chunk.events {
                let id = text(events[event * 4])
                guard case .integer(-42) = events[event * 4 + 1], case .null = events[event * 4 + 2] else {
                    Issue.record("event \(id): the integer or the null changed")
                    continue
                }
                var count = 0
                while taskAt < tasks.count / 3, text(tasks[taskAt * 3]) == id {
                    guard case .integer(let position) = tasks[taskAt * 3 + 1] else { Issue.record("no position"); break }
                    #expect(position == count && text(tasks[taskAt * 3 + 2]) == "")
                    taskAt += 1
                    count += 1
                }
                #expect(text(sources[event * 2]) == id && text(sources[event * 2 + 1]) == "uid-" + id + "@example.org")
                found.append(Record(id: id, note: text(events[event * 4 + 3]), tasks: count))
            }
            #expect(chunk.events <= BulkRows.chunkSize)
        }
        return found
    }

    static func merged(_ runs: ImportRuns) throws -> [Record] {
        var chunks: [BulkRows.Chunk] = []
        try runs.merge { chunks.append($0) }
        return records(chunks)
    }

    @Test func runsInIdOrderMergeIntoOneOrderWithEveryRowOnce() throws {
        let runs = try ImportRuns(storePath: "test.sqlite3")
        var all: [Record] = []
        // 40 runs of 1 to 40 events each (so chunks fill and split across runs), ids interleaved.
        for run in 0..<40 {
            let records = (0...run).map { Record(id: String(format: "%016llx", UInt64($0 * 40 + run) &* 0x9E37_79B9), note: "n\(run)",
                                                 tasks: ($0 + run) % 4) }.sorted { $0.id < $1.id }
            // Each run in chunks of up to 7 events.
            for start in stride(from: 0, to: records.count, by: 7) {
                try runs.append(Self.chunk(Array(records[start..<min(records.count, start + 7)])))
            }
            try runs.endRun()
            all += records
        }
        let result = try Self.merged(runs)
        #expect(result == all.sorted { $0.id < $1.id })
        #expect(runs.isEmpty)
        // The file is empty again and takes new runs.
        try runs.append(Self.chunk([Record(id: "b", note: "", tasks: 1), Record(id: "c", note: "", tasks: 0)]))
        try runs.endRun()
        try runs.append(Self.chunk([Record(id: "a", note: "x", tasks: 2)]))
        #expect(try Self.merged(runs).map(\.id) == ["a", "b", "c"])
    }

    /// SQLite's BINARY order (bytes, then the shorter first), records larger than a read buffer,
    /// and a run out of order: nothing is lost, each event comes once.
    @Test func bytesOrderLargeRecordsAndARunOutOfOrder() throws {
        let runs = try ImportRuns(storePath: "test.sqlite3")
        let big = String(repeating: "é", count: 100_000)
        try runs.append(Self.chunk([Record(id: "ab", note: big, tasks: 3), Record(id: "abc", note: "", tasks: 0),
                                    Record(id: "b", note: big + big, tasks: 1)]))
        try runs.endRun()
        try runs.append(Self.chunk([Record(id: "Z", note: "", tasks: 0), Record(id: "a", note: "", tasks: 0),
                                    Record(id: "é", note: "", tasks: 2)]))
        try runs.endRun()
        let out = try Self.merged(runs)
        #expect(out.map(\.id) == ["Z", "a", "ab", "abc", "b", "é"])
        #expect(out.first { $0.id == "b" }?.note == big + big)
        // Out of order within its run: every event still comes once.
        try runs.append(Self.chunk([Record(id: "z", note: "", tasks: 1), Record(id: "m", note: "", tasks: 0)]))
        try runs.endRun()
        try runs.append(Self.chunk([Record(id: "n", note: "", tasks: 0)]))
        #expect(try Self.merged(runs).map(\.id).sorted() == ["m", "n", "z"])
    }

    /// The merge's helper thread (`BulkRows(producing:)`, as `Store.flushImportStage` runs it): the
    /// writer gets every chunk in order, then what the helper threw; a writer that fails cancels,
    /// which stops a helper waiting to hand more and returns only once it has ended (the scratch
    /// file may be closed right after).
    @Test func aHelperThreadsChunksComeInOrderThenItsErrorAndACancelWaitsForItsEnd() throws {
        struct Broken: Error {}
        let made = BulkRows(producing: { hand in
            for n in 0..<10 {
                guard hand(Self.chunk([Record(id: "e\(n)", note: "", tasks: n % 3)])) else { return }
            }
            throw Broken()
        })
        var ids: [String] = []
        #expect(throws: Broken.self) {
            while let chunk = try made.next() { ids += Self.records([chunk]).map(\.id) }
        }
        #expect(ids == (0..<10).map { "e\($0)" })

        let ended = Monitor(false)
        let endless = BulkRows(producing: { hand in
            defer { ended.update { $0 = true } }
            while hand(Self.chunk([Record(id: "x", note: "", tasks: 1)])) {}
        })
        #expect(try endless.next() != nil)
        endless.cancel()
        #expect(ended.update { $0 })
    }
}
