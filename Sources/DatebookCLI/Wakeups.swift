import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why the daemon woke: a signal, a change next to the store, or its own timer.
struct WakeReasons: OptionSet {
    let rawValue: Int
    static let stop = WakeReasons(rawValue: 1)
    static let reload = WakeReasons(rawValue: 2)
    static let storeChanged = WakeReasons(rawValue: 4)
    static let passFinished = WakeReasons(rawValue: 8)
}

/// Signals (SIGTERM/SIGINT stop, SIGHUP reloads) and inotify on the store's directory, turned into
/// wake-ups of the daemon's main thread. Each signal is ignored first, then read through a
/// DispatchSource, so nothing runs in signal context.
final class Wakeups: @unchecked Sendable {
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var reasons: WakeReasons = []
    private var sources: [any DispatchSourceProtocol] = []
    private let queue = DispatchQueue(label: "datebook.wakeups")
    private var inotify: Int32 = -1

    /// - Parameter store: the store file; only changes to it, its `-wal` or `-journal` wake the daemon
    ///   (other files in the same directory, such as a log, do not). Nil: a store without a file
    ///   (PostgreSQL), whose changes the daemon's timer notices.
    init(watchingStore store: String?) {
        for (number, reason) in [(SIGTERM, WakeReasons.stop), (SIGINT, .stop), (SIGHUP, .reload)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.post(reason) }
            source.resume()
            sources.append(source)
        }
        guard let store else { return }
        let directory = (store as NSString).deletingLastPathComponent
        let base = (store as NSString).lastPathComponent
        let names: Set<String> = [base, base + "-wal", base + "-journal"]
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory.isEmpty ? "." : directory, mask) >= 0 else {
            close(fd)
            return
        }
        inotify = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 8192)
            var relevant = false
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                relevant = relevant || Self.names(in: buffer.prefix(count)).contains { names.contains($0) }
            }
            if relevant { self?.post(.storeChanged) }
        }
        source.resume()
        sources.append(source)
    }

    /// File names in a buffer of `struct inotify_event` records (wd, mask, cookie, len, name[len]).
    static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var offset = bytes.startIndex
        while offset + 16 <= bytes.endIndex {
            let length = Int(bytes[offset + 12]) | Int(bytes[offset + 13]) << 8 | Int(bytes[offset + 14]) << 16 | Int(bytes[offset + 15]) << 24
            let start = offset + 16, end = min(bytes.endIndex, start + length)
            let name = bytes[start..<end].prefix { $0 != 0 }
            names.append(String(decoding: name, as: UTF8.self))
            offset = start + length
        }
        return names
    }

    /// True when store changes wake the daemon (inotify available).
    var watchesStore: Bool { inotify >= 0 }

    deinit {
        for source in sources { source.cancel() }
        if inotify >= 0 { close(inotify) }
    }

    func post(_ reason: WakeReasons) {
        lock.lock()
        reasons.insert(reason)
        lock.unlock()
        semaphore.signal()
    }

    /// Sleeps until a wake-up or `seconds` pass (monotonic); returns and clears what happened.
    func wait(seconds: TimeInterval) -> WakeReasons {
        _ = semaphore.wait(timeout: .now() + .milliseconds(Int(max(0, seconds) * 1000)))
        lock.lock()
        defer { lock.unlock() }
        let happened = reasons
        reasons = []
        return happened
    }
}
