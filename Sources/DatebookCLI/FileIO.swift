import Foundation

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
