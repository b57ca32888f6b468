import DatebookStore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why the daemon woke: a signal, a change next to the store, or its own timer.
public struct WakeReasons: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let stop = WakeReasons(rawValue: 1)
    public static let reload = WakeReasons(rawValue: 2)
    public static let storeChanged = WakeReasons(rawValue: 4)
    public static let passFinished = WakeReasons(rawValue: 8)
    /// The store file itself was written (not its log): a checkpoint, or a file copied over it.
    public static let storeFileWritten = WakeReasons(rawValue: 16)
}

/// Signals (SIGTERM/SIGINT stop, SIGHUP reloads) and store changes (inotify on a SQLite store's
/// directory, `LISTEN`/`NOTIFY` on a PostgreSQL store), turned into wake-ups of the daemon's main thread. Each signal is ignored first, then read through a
/// DispatchSource, so nothing runs in signal context.
public final class Wakeups: Sendable {
    /// What happened since the last `wait`, and the semaphore that ends it early.
    final class Inbox: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let reasons = Mutex<WakeReasons>([])

        func post(_ reason: WakeReasons) {
            reasons.withLock { _ = $0.insert(reason) }
            semaphore.signal()
        }

        /// Sleeps until a post or `seconds` pass (monotonic); returns and clears what was posted,
        /// empty only when the time ran out. A burst of posts leaves one count on the semaphore
        /// each, all but the first with their reason already taken; those counts are slept through,
        /// not reported as an empty wake-up (which the daemon would take for its timer and start a pass).
        func wait(seconds: TimeInterval) -> WakeReasons {
            let deadline = DispatchTime.now() + .nanoseconds(Int(min(max(0, seconds), 86_400) * 1e9))
            while true {
                let timedOut = semaphore.wait(timeout: deadline) == .timedOut
                let posted = reasons.withLock { reasons in
                    defer { reasons = [] }
                    return reasons
                }
                if timedOut || !posted.isEmpty { return posted }
            }
        }
    }

    private let inbox: Inbox
    /// Kept to be cancelled when the daemon ends.
    private let sources: [DispatchSource]
    private let queue = DispatchQueue(label: "datebook.wakeups")
    private let inotify: Int32
    private let listener: ChangeListener?

    /// - Parameters:
    ///   - store: the store file; only changes to it, its `-wal` or `-journal` wake the daemon
    ///     (other files in the same directory, such as a log, do not). Nil: a store without a file.
    ///   - listener: a PostgreSQL store's change listener (`PlannerStore.changeListener()`), started
    ///     here; its lost and re-established connections go to `log`.
    public init(watchingStore store: String?, listener: ChangeListener? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        let base = store.map { ($0 as NSString).lastPathComponent } ?? ""
        let names: Set<String> = [base, base + "-wal", base + "-journal"]
        var fd: Int32 = -1
        if let store {
            let directory = (store as NSString).deletingLastPathComponent
            fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            // Deleted or moved away too: the daemon then stops using the file (RunCommand).
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
            if fd >= 0, inotify_add_watch(fd, directory.isEmpty ? "." : directory, mask) < 0 {
                close(fd)
                fd = -1
            }
        }
        inotify = fd
        let inbox = Inbox()
        self.inbox = inbox
        self.listener = listener
        listener?.start(changed: { inbox.post(.storeChanged) }, log: log)
        var sources: [DispatchSource] = []
        for (number, reason) in [(SIGTERM, WakeReasons.stop), (SIGINT, .stop), (SIGHUP, .reload)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { inbox.post(reason) }
            source.resume()
            if let source = source as? DispatchSource { sources.append(source) }
        }
        guard fd >= 0 else {
            self.sources = sources
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 8192)
            var relevant = false
            var file = false
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                let touched = Self.names(in: buffer.prefix(count))
                relevant = relevant || touched.contains { names.contains($0) }
                file = file || touched.contains(base)
            }
            if file { inbox.post(.storeFileWritten) }
            if relevant { inbox.post(.storeChanged) }
        }
        source.resume()
        if let source = source as? DispatchSource { sources.append(source) }
        self.sources = sources
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

    /// True when store changes wake the daemon (inotify available, or a change listener).
    public var watchesStore: Bool { inotify >= 0 || listener != nil }

    deinit {
        listener?.stop()
        for source in sources { source.cancel() }
        // The signals act as usual again (a test that drove a daemon in its own process stays stoppable).
        for number in [SIGTERM, SIGINT, SIGHUP] { signal(number, SIG_DFL) }
        if inotify >= 0 { close(inotify) }
    }

    public func post(_ reason: WakeReasons) {
        inbox.post(reason)
    }

    /// Sleeps until a wake-up or `seconds` pass (monotonic); returns and clears what happened
    /// (`Inbox.wait`), empty only when the time ran out.
    public func wait(seconds: TimeInterval) -> WakeReasons { inbox.wait(seconds: seconds) }
}
