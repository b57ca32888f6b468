import Foundation

/// Writing to a file descriptor: the one write loop (short writes go on, `EINTR` is retried).
public enum FileDescriptorWrite {
    /// Writes all of `bytes` to `fd`; false when a write fails (`errno` says why).
    @discardableResult
    public static func all(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}

/// A file written in pieces that appears at its path complete or not at all: the bytes go to a
/// temporary file beside it, which `commit()` syncs and renames over the path; dropped without
/// `commit()` (an error on the way), the temporary file is removed and the path left as it was.
///
/// The one atomic file writer: digests and exports written with `-o`, and the `file` channel.
public final class AtomicFile {
    /// Why the file could not be written; the message names the path and what to do.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public let path: String
    private let temporary: String
    private var fd: Int32

    /// Creates the temporary file beside `path`.
    public init(_ path: String) throws(Failure) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(description: "\(path): directory \(dir) does not exist; create it first (mkdir -p \(dir))")
        }
        // Unique per process and call, so two writers of one path never share a temporary file.
        temporary = dir + "/." + (path as NSString).lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure(path) }
    }

    deinit {
        guard fd >= 0 else { return }
        close(fd)
        unlink(temporary)
    }

    /// Writes `text` to `path` at once: temporary file, fsync, rename.
    public static func write(_ text: String, to path: String) throws(Failure) {
        let file = try AtomicFile(path)
        try file.write(Array(text.utf8))
        try file.commit()
    }

    public func write(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.withUnsafeBytes({ FileDescriptorWrite.all($0, to: fd) }) else { throw Self.failure(path) }
    }

    /// Syncs the temporary file and renames it over `path`.
    public func commit() throws(Failure) {
        let synced = fsync(fd) == 0
        close(fd)
        fd = -1
        guard synced, rename(temporary, path) == 0 else {
            let failure = Self.failure(path)
            unlink(temporary)
            throw failure
        }
    }

    /// `PATH: cannot write: <errno's reason>`.
    private static func failure(_ path: String) -> Failure {
        Failure(description: "\(path): cannot write: \(String(cString: strerror(errno)))")
    }
}
