import DatebookCore
import Foundation

/// Where an import read in batches keeps the rows its batches write in bulk into an empty store,
/// until they go into the store's tables in key order: at the end, or earlier when the import
/// reads or writes again an event it saved (`Store.flushImportStage`).
///
/// Each batch is in id order, but the batches together are not: written straight into the store,
/// the rows of 1M events (3M tasks) landed all over their B-trees, and with SQLite's page cache
/// nearly every row evicted a dirty page to the file and read another back (`pwrite` and `pread`
/// were 32 % of the import's CPU; docs/ical-notes.md). So each batch's rows are appended, in the
/// batch's id order, to an unnamed scratch file as one sorted run, and at the end the runs are
/// merged — one comparison of ids per event and level of a heap, no sort — into chunks that
/// `BulkInserter` writes, each page of the store once, at the B-tree's edge. (Staged in TEMP
/// tables and inserted through SQLite's sorter instead, the sort was two thirds of the copy: for
/// 1M events, 8.5 s against 2.9 s from rows already in order; bench/results.md.)
///
/// The plain path (`BulkInserter` straight into the store) is what a save of one batch takes, and
/// `ImportBatchTests` compares the two. A run that is not in order (ids that are not lower-case
/// hex sort as Swift strings within a batch) only costs speed: every row still goes in once.
///
/// The merge (`ImportRuns.merge(_:in:_:)`) reads only `Sendable` values, so `Store.flushImportStage`
/// runs it on a helper thread while the writer inserts the chunks it made before: reading the runs,
/// the heap and making the chunks were a fifth of the merge's time on the writer's thread.
final class ImportRuns {
    /// The scratch file, and what its errors name.
    struct Scratch: Sendable {
        let fd: Int32
        /// The store's path.
        let storePath: String
        let folder: String

        /// `cause`: why, when it is not the last system call's `errno`.
        func failure(_ verb: String, because cause: String? = nil) -> StoreError {
            .scratch(path: storePath, folder: folder, reason: "could not be \(verb): " + (cause ?? String(cString: strerror(errno))))
        }
    }

    private let scratch: Scratch
    private var fd: Int32 { scratch.fd }
    /// Each run's bytes in the file.
    private var runs: [Range<Int>] = []
    /// Where the open run started; nil between runs.
    private var runStart: Int?
    private var written = 0
    /// Records not written to the file yet.
    private var pending: [UInt8] = []
    private static let writeSize = 256 << 10
    private static let tables = BulkRows.Table.allCases.count

    /// An unnamed file in the first writable of `$SQLITE_TMPDIR`, `$TMPDIR`, /var/tmp, /usr/tmp and
    /// /tmp (the folders SQLite's own temporary files go to, in its order): gone when closed.
    init(storePath: String) throws {
        let environment = ProcessInfo.processInfo.environment
        let folders = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"]
            .compactMap { $0 }.filter { !$0.isEmpty }
        // Named in the error: the first folder, the one `TMPDIR` sets, with why it failed.
        var first: StoreError?
        for folder in folders {
            let fd = Self.openUnnamed(in: folder)
            if fd >= 0 {
                scratch = Scratch(fd: fd, storePath: storePath, folder: folder)
                return
            }
            first = first ?? .scratch(path: storePath, folder: folder, reason: "could not be made: " + String(cString: strerror(errno)))
        }
        throw first ?? StoreError.scratch(path: storePath, folder: "/tmp", reason: "could not be made: no folder for temporary files")
    }

    deinit { close(fd) }

    /// A file made and unlinked at once (its name lives for two system calls).
    private static func openUnnamed(in folder: String) -> Int32 {
        var template = Array((folder + "/datebook-import-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return fd }
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    var isEmpty: Bool { runs.isEmpty && runStart == nil }

    /// Appends `chunk`'s events (in its order) to the open run, which it opens if none is.
    ///
    /// A record per event: its length, the number of values it has in each table, then the values
    /// (a tag byte; an integer's 8 bytes; a text's length and bytes). The events row comes first
    /// and its first value is the id, which the merge compares.
    func append(_ chunk: BulkRows.Chunk) throws {
        if runStart == nil { runStart = written + pending.count }
        // The records' size first, then every byte written through one pointer: appended value by
        // value, each append checked the array's uniqueness and capacity (8 % of a 100k import's
        // instructions, on the writer's thread).
        var size = chunk.events * 4 * (1 + Self.tables)
        for table in chunk.values {
            for value in table {
                switch value {
                case .null: size += 1
                case .integer: size += 9
                case .text(_, let count): size += 5 + Int(count)
                }
            }
        }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: size))
        pending.withUnsafeMutableBytes { out in
            chunk.bytes.withUnsafeBytes { bytes in
                var at = start
                func put<T: FixedWidthInteger>(_ value: T) {
                    out.storeBytes(of: value.littleEndian, toByteOffset: at, as: T.self)
                    at += MemoryLayout<T>.size
                }
                var from = [Int](repeating: 0, count: Self.tables)
                for event in 0..<chunk.events {
                    let lengthAt = at
                    at += 4
                    for table in 0..<Self.tables {
                        put(UInt32(Int(chunk.ends[event * Self.tables + table]) - from[table]))
                    }
                    for table in 0..<Self.tables {
                        let end = Int(chunk.ends[event * Self.tables + table])
                        for value in chunk.values[table][from[table]..<end] {
                            switch value {
                            case .null: put(UInt8(0))
                            case .integer(let number):
                                put(UInt8(1))
                                put(UInt64(bitPattern: number))
                            case let .text(first, count):
                                put(UInt8(2))
                                put(UInt32(count))
                                if count > 0 {
                                    (out.baseAddress! + at).copyMemory(from: bytes.baseAddress! + Int(first), byteCount: Int(count))
                                }
                                at += Int(count)
                            }
                        }
                        from[table] = end
                    }
                    out.storeBytes(of: UInt32(at - lengthAt - 4).littleEndian, toByteOffset: lengthAt, as: UInt32.self)
                }
                assert(at == start + size, "the records' size was counted wrong")
            }
        }
        if pending.count >= Self.writeSize { try writePending() }
    }

    /// Closes the open run (a batch's rows are all in it).
    func endRun() throws {
        try writePending()
        if let start = runStart, start < written { runs.append(start..<written) }
        runStart = nil
    }

    /// Merges every run into chunks of `BulkRows.chunkSize` events in id order, hands each to
    /// `insert`, and forgets the runs.
    func merge(_ insert: (BulkRows.Chunk) throws -> Void) throws {
        try Self.merge(closeRuns().runs, in: scratch, insert)
        forget()
    }

    /// Ends the open run; the runs written so far and their file, for `merge(_:in:_:)` on any thread.
    func closeRuns() throws -> (runs: [Range<Int>], scratch: Scratch) {
        try endRun()
        return (runs, scratch)
    }

    /// Forgets the runs once they are merged.
    func forget() {
        runs = []
        written = 0
        _ = ftruncate(fd, 0)
    }

    /// Merges `runs` of `scratch` into chunks of `BulkRows.chunkSize` events in id order, handing
    /// each to `insert`. The file must stay open meanwhile.
    static func merge(_ runs: [Range<Int>], in scratch: Scratch, _ insert: (BulkRows.Chunk) throws -> Void) throws {
        var cursors = try runs.map { try Cursor(range: $0, scratch: scratch) }
        var heap = cursors.indices.filter { cursors[$0].hasRecord }
        // A binary heap of cursor indices, the least id on top.
        func less(_ a: Int, _ b: Int) -> Bool { cursors[a].idLess(than: cursors[b]) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < heap.count, less(heap[left], heap[least]) { least = left }
                if right < heap.count, less(heap[right], heap[least]) { least = right }
                if least == parent { return }
                heap.swapAt(parent, least)
                parent = least
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        var chunk = BulkRows.Chunk()
        while let top = heap.first {
            cursors[top].copyRecord(into: &chunk)
            if chunk.events == BulkRows.chunkSize {
                try insert(chunk)
                chunk = BulkRows.Chunk(reserving: chunk)
            }
            if try !cursors[top].advance() {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
        if chunk.events > 0 { try insert(chunk) }
    }

    private func writePending() throws {
        var done = 0
        while done < pending.count {
            let count = pending.withUnsafeBytes { bytes in
                bytes.baseAddress.map { pwrite(fd, $0 + done, bytes.count - done, off_t(written + done)) } ?? -1
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw scratch.failure("written") }
            done += count
        }
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    /// One run read through a buffer, a record at a time.
    private struct Cursor {
        let scratch: Scratch
        /// The next byte of the run not in the buffer yet, and the run's end.
        var offset: Int
        let end: Int
        var buffer: [UInt8]
        /// The current record's first byte in `buffer` (its length field) and its size with it.
        var start = 0
        var size = 0
        /// Bytes read into the buffer.
        var filled = 0
        static let bufferSize = 32 << 10
        /// Where the events row's id is in a record: after the length and five counts, a tag and a length.
        static let idOffset = 4 + 4 * ImportRuns.tables + 1 + 4

        init(range: Range<Int>, scratch: Scratch) throws {
            self.scratch = scratch
            offset = range.lowerBound
            end = range.upperBound
            buffer = [UInt8](repeating: 0, count: Self.bufferSize)
            _ = try advance()
        }

        var hasRecord: Bool { size > 0 }

        /// Moves to the next record; false at the run's end.
        mutating func advance() throws -> Bool {
            start += size
            size = 0
            guard try available(4) else { return false }
            let length = buffer.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt32.self))) }
            guard try available(4 + length) else { throw scratch.failure("read back", because: "a record runs past its run's end") }
            size = 4 + length
            return true
        }

        /// Whether `count` bytes from `start` are in the buffer, reading more of the run if needed.
        private mutating func available(_ count: Int) throws -> Bool {
            if filled - start >= count { return true }
            // Keep the unread bytes, at the front of a buffer large enough for the record.
            buffer.removeSubrange(0..<start)
            filled -= start
            start = 0
            if buffer.count < max(count, Self.bufferSize) { buffer += [UInt8](repeating: 0, count: max(count, Self.bufferSize) - buffer.count) }
            while filled < count, offset < end {
                let want = min(buffer.count - filled, end - offset)
                let got = buffer.withUnsafeMutableBytes { bytes in
                    bytes.baseAddress.map { pread(scratch.fd, $0 + filled, want, off_t(offset)) } ?? -1
                }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { throw scratch.failure("read back") }
                filled += got
                offset += got
            }
            return filled - start >= count
        }

        /// Compares the ids as SQLite's BINARY collation does (bytes, then length).
        func idLess(than other: Cursor) -> Bool {
            buffer.withUnsafeBytes { mine in
                other.buffer.withUnsafeBytes { theirs in
                    let a = Self.id(mine, start), b = Self.id(theirs, other.start)
                    let common = min(a.count, b.count)
                    let order = common == 0 ? 0 : a.baseAddress.flatMap { x in b.baseAddress.map { memcmp(x, $0, common) } } ?? 0
                    return order != 0 ? order < 0 : a.count < b.count
                }
            }
        }

        private static func id(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> UnsafeRawBufferPointer {
            let count = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + idOffset - 4, as: UInt32.self)))
            return UnsafeRawBufferPointer(rebasing: bytes[start + idOffset ..< start + idOffset + count])
        }

        /// Appends the current record's rows to `chunk` as one event.
        func copyRecord(into chunk: inout BulkRows.Chunk) {
            buffer.withUnsafeBytes { bytes in
                var at = start + 4 + 4 * ImportRuns.tables
                for table in BulkRows.Table.allCases {
                    chunk.table = table
                    let count = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 4 + 4 * table.rawValue, as: UInt32.self)))
                    for _ in 0..<count {
                        let tag = bytes[at]
                        at += 1
                        switch tag {
                        case 1:
                            chunk.integer(Int64(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))))
                            at += 8
                        case 2:
                            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                            chunk.text(bytes: UnsafeRawBufferPointer(rebasing: bytes[at + 4 ..< at + 4 + length]))
                            at += 4 + length
                        default: chunk.null()
                        }
                    }
                }
            }
            chunk.endEvent()
        }
    }
}

extension Store {
    /// Makes the scratch file of an import's staged rows (a rollback forgets it with `importRuns`).
    func createImportStage() throws {
        importRuns = try ImportRuns(storePath: path)
    }

    /// Inserts the rows staged so far into the store's tables in key order.
    func flushImportStage() throws {
        guard let importRuns, !importRuns.isEmpty else { return }
        let (runs, scratch) = try importRuns.closeRuns()
        // Merged on a helper thread while this one inserts; `cancel` waits for it, so the file stays open.
        let chunks = BulkRows(producing: { hand in
            try ImportRuns.merge(runs, in: scratch) { chunk in
                guard hand(chunk) else { throw CancellationError() }
            }
        })
        var inserter = BulkInserter(store: self)
        do {
            while let chunk = try chunks.next() { try inserter.insert(chunk) }
        } catch {
            chunks.cancel()
            throw error
        }
        importRuns.forget()
    }

    /// Flushes and closes the scratch file at the end of the import.
    func dropImportStage() throws {
        try flushImportStage()
        importRuns = nil
    }

    /// An event an earlier batch of the running import saved: its rows may still be staged.
    public func importedEvent(id: String) throws -> Event? {
        try flushImportStage()
        return try event(id: id)
    }
}
