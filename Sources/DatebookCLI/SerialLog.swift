import DatebookDelivery
import Foundation

/// Log lines from several threads to a file descriptor (stderr), each line whole in one `write(2)`
/// (journald reads lines).
///
/// A line of up to `PIPE_BUF` bytes is written at once, beside the other threads' lines: a pipe or
/// journald's stream takes such a write whole, and so does a file. A longer line could be split
/// on a pipe while the reader lags, so it waits until no other line is being written and holds the
/// others back until it is out (a read-write lock: the short lines share it, a long one takes it
/// alone). The server's workers used to take turns at one lock for every access-log line, and
/// with two workers that turn-taking cost about 7 % of a 304's CPU (bench/results-serve.md).
/// `SerialLogTests` writes lines of many threads, short and long, through a slowly read pipe.
final class SerialLog: Sendable {
    private let fd: Int32
    private nonisolated(unsafe) let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init(fd: Int32) {
        self.fd = fd
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func write(_ line: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(line.utf8.count + 11)
        bytes += "datebook: ".utf8
        bytes += line.utf8
        bytes.append(10)
        if bytes.count <= Int(PIPE_BUF) { pthread_rwlock_rdlock(lock) } else { pthread_rwlock_wrlock(lock) }
        defer { pthread_rwlock_unlock(lock) }
        _ = bytes.withUnsafeBytes { FileDescriptorWrite.all($0, to: fd) }
    }
}
