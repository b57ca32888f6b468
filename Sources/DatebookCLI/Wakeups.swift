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

    init(watching directory: String) {
        for (number, reason) in [(SIGTERM, WakeReasons.stop), (SIGINT, .stop), (SIGHUP, .reload)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.post(reason) }
            source.resume()
            sources.append(source)
        }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return
        }
        inotify = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(fd, &buffer, buffer.count) > 0 {}
            self?.post(.storeChanged)
        }
        source.resume()
        sources.append(source)
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
