import Foundation
import Synchronization

/// Log lines from several threads to a file descriptor (stderr), one whole line at a time,
/// flushed at once (journald reads lines).
final class SerialLog: Sendable {
    private let sink: Mutex<FileDescriptorSink>

    init(fd: Int32) { sink = Mutex(FileDescriptorSink(fd: fd)) }

    func write(_ line: String) {
        sink.withLock { sink in
            sink.write("datebook: " + line + "\n")
            sink.flush()
        }
    }
}
