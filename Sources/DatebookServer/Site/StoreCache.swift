import DatebookCore
import DatebookStore
import Foundation
import Synchronization

/// The last answer made from the store, made again only when its key changes: a SQLite store's
/// files' modification times and sizes, a PostgreSQL store's data version (`StoreDataVersion`),
/// plus whatever else the answer depends on (the second of `now`; never the request's headers:
/// a client choosing a new `Host` per request would make every request a miss).
///
/// `GET /calendar.ics` with a matching `If-None-Match` then costs one `read` of an inotify descriptor
/// (`StoreChangeSignal`) instead of an export, and `GET /` one render per second instead of one per request: 5,000 requests/s on two
/// cores leave about 0.4 ms of CPU each, and the agenda's query and render take about 2 ms
/// (bench/results-serve.md). The plain path is the same closure, run every time the key changes.
final class StoreCache<Value: Sendable>: Sendable {
    struct Key: Sendable, Equatable {
        var store: [Int]
        var extra: [String]
    }

    private let entry = Mutex<(key: Key, value: Value)?>(nil)
    /// How many values were made (tests count the misses).
    let made = Mutex(0)
    private let dataVersion = StoreDataVersion()
    private let refreshing = Mutex((running: false, again: false))
    /// Held while a value is made: a request that finds the cache stale while another thread (the
    /// background refresh after a change, or a request of the same second) makes it waits for that
    /// one instead of making it again beside it on the same two cores.
    private let making = Mutex(())

    /// Runs `refresh` (which reads through this cache) on a thread of its own; asked again while it
    /// runs, it runs once more after (not beside it). A commit wakes the server several times (the
    /// log written, then closed), and the first refresh can start before the commit is visible: it
    /// then keeps the old planner under a key that is gone by the time it ends. Dropped, the later
    /// wake-ups left the first phone to poll making the export itself (0.15–0.3 s for 10,000 events).
    func refreshInBackground(_ refresh: @escaping @Sendable () -> Void) {
        let start = refreshing.withLock { state in
            defer { (state.running, state.again) = (true, state.running) }
            return !state.running
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            repeat { refresh() } while refreshing.withLock { state in
                defer { (state.running, state.again) = (state.again, false) }
                return state.again
            }
        }
    }

    /// A background refresh runs or is asked for (tests wait for it to end).
    var isRefreshing: Bool { refreshing.withLock { $0.running } }

    /// Whether the SQLite store may have changed (`StoreChangeSignal`; the plain check when unsure).
    let changes: StoreChangeSignal

    init(changes: StoreChangeSignal = StoreChangeSignal()) {
        self.changes = changes
    }

    /// The store file's and its write-ahead log's modification times and sizes (the store's
    /// modification time first), then the wal-index header's hash (SQLite) or the store's data
    /// version (PostgreSQL, -1 without one). For SQLite the last one while `changes` says
    /// nothing changed it.
    func signature(of storePath: String) -> [Int] {
        // A PostgreSQL store has no file: its data version is the key. A SQLite store's files are
        // enough (reading the data version on every request, with the request's own connection opened
        // beside the kept one, changed it per request: 24k → 1.7k req/s).
        guard !SQLDialect.of(location: storePath).hasFile else { return changes.signature(of: storePath, plain: Self.plainSignature) }
        return Self.fileTimes(storePath) + [dataVersion.current(storePath) ?? -1]
    }

    /// The SQLite store's signature read from its files: two `stat` calls, then the wal-index
    /// header's hash (an `open`, a `pread` and a `close`). Through a symbolic link, the files beside
    /// its target, where SQLite keeps `-wal` and `-shm` (beside the link, a commit was never seen).
    ///
    /// A log that is missing or empty holds no commit, so then only the store file counts: after
    /// the last writer closed (removing `-wal` and `-shm`), the next request's own read-only
    /// opening makes both again, an empty log and a new header, and with them in the key that
    /// request's answer was kept under a key already gone: the next request made it again (the
    /// feed of 10,000 events exported twice after every change, 0.15–0.3 s each).
    static func plainSignature(_ storePath: String) -> [Int] {
        let path = realpath(storePath, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? storePath
        let times = fileTimes(path)
        guard times[5] > 0 else { return Array(times.prefix(3)) + [0, 0, 0, 0] }
        return times + [walIndexHeader(path + "-shm")]
    }

    private static func fileTimes(_ storePath: String) -> [Int] {
        [storePath, storePath + "-wal"].flatMap { path -> [Int] in
            var info = stat()
            guard stat(path, &info) == 0 else { return [0, 0, 0] }
            return [info.st_mtim.tv_sec, info.st_mtim.tv_nsec, Int(info.st_size)]
        }
    }

    /// A hash of what SQLite's wal-index header (the store's `-shm` file; 0 without one) says of the
    /// log's content: its last valid frame, the pages, the last frame's checksum and the log's salts.
    /// The frame count changes the moment a commit becomes visible to readers; the WAL file reaches
    /// its final size a moment earlier, and a value made in between (by the refresh the write itself
    /// woke) would read the old snapshot and be kept under the new files' key. With this in the key,
    /// the next request makes it again. One `open` and one `pread` more.
    ///
    /// Not the header's change counter and checksum: the first connection to open the store resets
    /// the `-shm` and rebuilds the header from the log, and the request's own opening did so at
    /// every request while no other connection was open (a leftover log) — the same content under
    /// another key each time. Halfway through such a rebuild (`StoreChangeSignal.Header.read` finds
    /// the copies unequal, uninitialised or with a wrong checksum) the header is read again, for up
    /// to 4 ms, then taken as it is.
    static func walIndexHeader(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        // The two copies and `nBackfill` after them, as `StoreChangeSignal.Header.read` checks them.
        var header = [UInt8](repeating: 0, count: 100)
        for attempt in 0..<20 {
            // Shorter: no header (a `-shm` SQLite has just shortened, or left so).
            guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 100, 0) }) == 100 else { return 0 }
            if header.withUnsafeBytes({ $0.baseAddress.flatMap(StoreChangeSignal.Header.read) }) != nil { break }
            if attempt < 19 { usleep(200) }
        }
        return Int(truncatingIfNeeded: EventID.fnv1a(header[16..<40]))
    }

    /// The cached value when `storePath` and `extra` are as they were, else `make(signature)`,
    /// made by one thread at a time (the others wait, then find it cached).
    func value(storePath: String, extra: [String] = [], make: ([Int]) throws -> Value) throws -> Value {
        let key = Key(store: signature(of: storePath), extra: extra)
        if let cached = cached(key) { return cached }
        return try making.withLock { _ in
            if let cached = cached(key) { return cached }
            let value = try make(key.store)
            made.withLock { $0 += 1 }
            entry.withLock { $0 = (key, value) }
            return value
        }
    }

    /// The last value made, whatever its key.
    var current: Value? { entry.withLock { $0?.value } }

    private func cached(_ key: Key) -> Value? {
        entry.withLock { $0 }.flatMap { $0.key == key ? $0.value : nil }
    }
}
