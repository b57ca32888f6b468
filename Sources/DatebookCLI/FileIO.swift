import Foundation

/// Reading input files (or stdin for `-`) with errors that name the file.
enum FileInput {
    static func read(_ path: String) throws -> (bytes: [UInt8], name: String) {
        if path == "-" {
            return (Array(FileHandle.standardInput.readDataToEndOfFile()), "<stdin>")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError.data("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw CLIError.data("\(path): is a directory, expected a file") }
        guard let bytes = readWhole(path) else { throw CLIError.data("\(path): cannot read (permissions?)") }
        return (bytes, path)
    }

    /// Gives the whole pages inside `range` of a buffer at `base` back to the system
    /// (`MADV_DONTNEED`): they read as zeros afterwards. Only for bytes that will never be read
    /// again, in a buffer that is about to be freed (an import's file while it is parsed). Pages
    /// partly outside `range` are kept, so neighbouring bytes and the allocator's own header stay.
    static func release(_ range: Range<Int>, of base: UnsafeRawPointer) {
        let page = UInt(max(4_096, sysconf(Int32(_SC_PAGESIZE))))
        let start = (UInt(bitPattern: base + range.lowerBound) + page - 1) / page * page
        let end = UInt(bitPattern: base + range.upperBound) / page * page
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, Int(end - start), MADV_DONTNEED)
    }

    /// The file's bytes read straight into the array (a `Data` first, then an array, copied 80 MB
    /// twice for a large calendar and held both at once).
    private static func readWhole(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var failed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: max(0, Int(info.st_size))) { buffer, initialized in
            while initialized < buffer.count {
                let n = Foundation.read(fd, buffer.baseAddress?.advanced(by: initialized), buffer.count - initialized)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { failed = n < 0; break }
                initialized += n
            }
        }
        guard !failed else { return nil }
        // A file that grew while being read (or reports no size, like a pipe): read on to its end.
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }
}

/// Writing output files atomically: a temporary file in the same directory, fsync, then rename.
enum FileOutput {
    static func writeAtomically(_ text: String, to path: String) throws {
        let file = try AtomicFile(path)
        try file.write(Array(text.utf8))
        try file.commit()
    }
}

/// A file written in pieces that appears at its path complete or not at all: the bytes go to a
/// temporary file beside it, which `commit()` syncs and renames over the path; dropped without
/// `commit()` (an error on the way), the temporary file is removed and the path left as it was.
final class AtomicFile {
    let path: String
    private let temporary: String
    private var fd: Int32

    init(_ path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.data("\(path): directory \(dir) does not exist; create it first")
        }
        temporary = dir + "/." + ((path as NSString).lastPathComponent) + ".tmp-\(getpid())"
        fd = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError.data("\(path): cannot write: \(String(cString: strerror(errno)))") }
    }

    deinit {
        guard fd >= 0 else { return }
        close(fd)
        unlink(temporary)
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw CLIError.data("\(path): cannot write: \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
    }

    func commit() throws {
        let synced = fsync(fd) == 0
        close(fd)
        fd = -1
        guard synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError.data("\(path): cannot write: \(reason)")
        }
    }
}
