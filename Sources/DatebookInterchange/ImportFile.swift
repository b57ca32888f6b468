import DatebookCore
import Foundation

/// The bytes of a file to import (`datebook import`, a feed), in memory this value owns.
///
/// An iCalendar import parses them in place and gives their pages back to the system as the parse
/// finishes with them (`PlannerICS.decode(_:options:)`): on a 100k-event calendar, 82 MB that
/// would otherwise stay until the parse ends. The memory is allocated here, not a Swift array's,
/// so giving pages back writes only to memory this value owns; it is freed when the value is.
public struct ImportFile: ~Copyable {
    /// The file's name for messages (`<stdin>` for `-`).
    public let name: String
    /// The allocation, of which the first `count` bytes are the file's.
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int
    /// True when the bytes are a read-only mapping of the file: pages given back (`release`) are
    /// read from the file again if touched, so a first pass over a large file need not keep them.
    public let isMapped: Bool
    /// The mapping's `MappedFileGuard` slot.
    private let guarded: Int?

    private init(name: String, storage: UnsafeMutableRawBufferPointer, count: Int, isMapped: Bool = false) {
        self.name = name
        self.storage = storage
        self.count = count
        self.isMapped = isMapped
        guarded = isMapped ? storage.baseAddress.flatMap { MappedFileGuard.watch($0, count: storage.count) } : nil
    }

    deinit {
        if let guarded { MappedFileGuard.release(guarded) }
        if isMapped { munmap(storage.baseAddress, storage.count) } else { storage.deallocate() }
    }

    /// Asks whether a mapped file changed under its reader: a read past its new end found zeros
    /// instead of ending the process with SIGBUS (`MappedFileGuard`).
    public struct Watch: Sendable {
        let slot: Int?

        /// Throws `InputError` naming the file when it was truncated while it was read.
        public func check(_ name: String) throws(InputError) {
            guard let slot, MappedFileGuard.faulted(slot) else { return }
            throw InputError(file: name, line: nil, path: "",
                             message: "the file was truncated while it was read; nothing was imported, the store is as it was")
        }
    }

    /// This file's `Watch`, valid while the file is.
    public var watch: Watch { Watch(slot: guarded) }

    private var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[..<count]) }

    /// A copy of bytes already in memory (a downloaded feed).
    public init(name: String, copying data: Data) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.init(name: name, storage: storage, count: data.count)
    }

    /// Maps the file at `path` (standard input for `-`; see `init(name:descriptor:)`).
    ///
    /// - Throws: `InputError` naming the file: missing, a directory, or unreadable.
    public init(path: String) throws(InputError) {
        if path == "-" {
            try self.init(name: "<stdin>", descriptor: STDIN_FILENO)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(file: path, line: nil, path: "", message: "no such file")
        }
        guard !isDirectory.boolValue else { throw InputError(file: path, line: nil, path: "", message: "is a directory, expected a file") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, line: nil, path: "", message: "cannot read (permissions?)") }
        defer { close(fd) }
        try self.init(name: path, descriptor: fd)
    }

    /// Maps the file open as `fd`: a regular file is mapped, not read (its pages are the system's
    /// cache until touched, and an import of 1 GB reads it in batches, giving each back when done;
    /// docs/ical-notes.md). Anything else (a pipe) is copied through a 1 MB buffer into an unnamed
    /// temporary file, which is mapped: memory follows the batch for standard input too, and the
    /// copy takes the input's size on disk until the import ends.
    init(name: String, descriptor fd: Int32) throws(InputError) {
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0, let mapped = Self.map(fd, count: Int(info.st_size)) {
            self.init(name: name, storage: mapped, count: mapped.count, isMapped: true)
            return
        }
        if (info.st_mode & S_IFMT) != S_IFREG, let spooled = Self.spool(fd) {
            self.init(name: name, storage: spooled, count: spooled.count, isMapped: true)
            return
        }
        guard let read = Self.readAll(fd, sizeHint: max(0, Int(info.st_size))) else {
            throw InputError(file: name, line: nil, path: "", message: name == "<stdin>" ? "cannot read standard input" : "cannot read (permissions?)")
        }
        self.init(name: name, storage: read.storage, count: read.count)
    }

    /// A copy whose lone CRs (old Mac line ends) are LFs, as `ICalBytes.lineFeedsForLoneCarriageReturns`
    /// makes them, in a mapped temporary file, so that such a file is read in batches too; nil when no
    /// temporary file can be made.
    public func withLineFeeds() -> ImportFile? {
        let source = bytes.bindMemory(to: UInt8.self)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.spoolChunk)
        defer { buffer.deallocate() }
        guard let copy = Self.spooled({ file in
            var done = 0
            while done < source.count {
                let end = min(source.count, done + Self.spoolChunk)
                for index in done..<end {
                    let byte = source[index]
                    buffer[index - done] = byte == 0x0D && (index + 1 == source.count || source[index + 1] != 0x0A) ? 0x0A : byte
                }
                guard fwrite(buffer.baseAddress, 1, end - done, file) == end - done else { return false }
                done = end
            }
            return true
        }) else { return nil }
        return ImportFile(name: name, storage: copy, count: copy.count, isMapped: true)
    }

    static let spoolChunk = 1 << 20

    /// `fd` read to its end into a mapped temporary file.
    private static func spool(_ fd: Int32) -> UnsafeMutableRawBufferPointer? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: spoolChunk, alignment: 16)
        defer { buffer.deallocate() }
        return spooled { file in
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { return false }
                if n == 0 { return true }
                guard fwrite(buffer.baseAddress, 1, n, file) == n else { return false }
            }
        }
    }

    /// A temporary file with no name (`tmpfile`), filled by `fill` and mapped; nil when it cannot be
    /// made, filled or mapped, or is empty. The mapping outlives the file's descriptor.
    private static func spooled(_ fill: (UnsafeMutablePointer<FILE>) -> Bool) -> UnsafeMutableRawBufferPointer? {
        guard let file = tmpfile() else { return nil }
        defer { fclose(file) }
        guard fill(file), fflush(file) == 0 else { return nil }
        let size = ftello(file)
        guard size > 0 else { return nil }
        return map(fileno(file), count: Int(size))
    }

    private static func map(_ fd: Int32, count: Int) -> UnsafeMutableRawBufferPointer? {
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        return UnsafeMutableRawBufferPointer(start: mapped, count: count)
    }

    /// Lends the bytes for reading.
    public func withBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(bytes)
    }

    /// The 1-based line of the first line whose bytes are not UTF-8, or nil: readers decode such
    /// bytes as U+FFFD, and an import says so (a Latin-1 file). ASCII files answer in one pass.
    public var firstLineNotUTF8: Int? {
        let text = bytes.bindMemory(to: UInt8.self)
        guard !text.allSatisfy({ $0 < 0x80 }), String(validating: text, as: UTF8.self) == nil else { return nil }
        var line = 1
        for part in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if String(validating: part, as: UTF8.self) == nil { return line }
            line += 1
        }
        return nil
    }

    /// Planner JSON starts with `{` or `[` (after a BOM and blanks); a `.json` name also counts.
    /// Everything else goes to the iCalendar reader, which refuses non-calendars with a diagnosis.
    public var looksLikeJSON: Bool {
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        while index < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return !name.lowercased().hasSuffix(".ics") }
        let first = bytes[index]
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return true }
        return name.lowercased().hasSuffix(".json") && first != UInt8(ascii: "B") && first != UInt8(ascii: "b")
    }

    /// Gives the whole pages inside `range` back to the system (`MADV_DONTNEED`): they read as
    /// zeros afterwards. Only for bytes that will never be read again. Pages partly outside
    /// `range` are kept, so neighbouring bytes and the allocator's own header stay.
    public static func release(_ range: Range<Int>, of base: UnsafeMutableRawPointer) {
        let page = UInt(max(4_096, sysconf(Int32(_SC_PAGESIZE))))
        let start = (UInt(bitPattern: base + range.lowerBound) + page - 1) / page * page
        let end = UInt(bitPattern: base + range.upperBound) / page * page
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, Int(end - start), MADV_DONTNEED)
    }

    /// Where `release` may give pages back, as an address a `@Sendable` closure can carry.
    public var address: UInt { UInt(bitPattern: storage.baseAddress) }

    /// Reads `fd` to its end into an allocation of its own: `sizeHint` bytes (the file's size) and
    /// one more, so the read that finds the end needs no larger buffer; a file that grew or reports
    /// no size (a pipe) doubles it as it goes.
    private static func readAll(_ fd: Int32, sizeHint: Int) -> (storage: UnsafeMutableRawBufferPointer, count: Int)? {
        var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: sizeHint > 0 ? sizeHint + 1 : 65_536, alignment: 16)
        var used = 0
        while true {
            if used == storage.count {
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: storage.count * 2, alignment: 16)
                larger.copyMemory(from: UnsafeRawBufferPointer(storage))
                storage.deallocate()
                storage = larger
            }
            let n = read(fd, storage.baseAddress?.advanced(by: used), storage.count - used)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                storage.deallocate()
                return nil
            }
            if n == 0 { return (storage, used) }
            used += n
        }
    }
}
