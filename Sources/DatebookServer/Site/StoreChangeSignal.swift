import Foundation
import Synchronization

/// The SQLite store's change check without a path lookup per request: the speed trick of the feed's
/// and the agenda's cache key (`StoreCache`), behind this one door.
///
/// The plain check (`StoreCache.plainSignature`: two `stat`, an `open`, a `pread` and a `close`)
/// was a fifth of the server's CPU per 304 (bench/results-serve.md). This keeps the last plain
/// signature and hands it out again while nothing can have changed it:
///
/// - the store's wal-index header is as it was: the `-shm` file's first page, mapped read-only
///   once, read with SQLite's two-copies rule (both copies equal, `isInit` set, the checksum right:
///   else a writer is halfway and the answer is "unsure"). Every commit changes it (`iChange`,
///   `mxFrame`), a WAL reset its salts, the moment the commit becomes visible to readers; inotify
///   never reports it (SQLite writes the header through its own mapping);
/// - and inotify, on the store's folder, reported nothing on the store's names (`-wal`, `-shm`,
///   `-journal`): a store moved or copied in place, the `-shm` removed (the last connection's
///   close) or made again, truncated or grown (a new first connection rebuilding it), a write
///   without WAL, a checkpoint writing the store file. Those come from the very system call that
///   makes them, so they are queued before the change can be seen, and one non-blocking `read` of
///   the inotify descriptor per request finds them.
///
/// Anything else is "unsure" and takes the plain check: no inotify (or its queue overflowed, or
/// the folder went away), a store path through a symbolic link (SQLite keeps its `-wal` and
/// `-shm` beside the link's target, a folder this does not watch), a `-shm` too short to hold
/// the header, no plain signature yet. Not seen (a known limit): a folder *above* the store's
/// renamed under the live server.
///
/// The mapping is of the first page only; SQLite shortens a `-shm` to 3 bytes, never to 0, when
/// it rebuilds it, so the page stays readable (a page wholly past the file's end would be SIGBUS).
/// A `pread` of the header per request instead was measured at 6 % more CPU per 304 and not taken
/// (bench/results-serve.md, notes).
/// `StoreChangeSignalTests` checks that the cache's answers are the store's after commits by another
/// process, a checkpoint, a WAL reset, a store `mv`-ed in place and the `-shm` made again or left empty.
///
/// Four watches, each on its own (its inotify descriptor, mapping and trusted signature: each
/// sees every change by itself), so that the server's workers do not wait on one another here: a
/// thread takes the first free one from its own (by its thread id), and waits only when all are
/// taken. With one watch behind one lock, held across the inotify `read`, the lock's slow path was
/// 2 % of a 304 with two workers (perf, bench/results-serve.md).
final class StoreChangeSignal: Sendable {
    final class Slot: Sendable {
        let watch = Mutex<Watch?>(nil)
    }
    private let slots = (0..<4).map { _ in Slot() }
    /// How many times the plain check ran (tests count them).
    let plainChecks = Mutex(0)

    init() {}

    /// The plain signature of `storePath` (`plain(storePath)`), or the last one while nothing changed it.
    func signature(of storePath: String, plain: @Sendable (String) -> [Int]) -> [Int] {
        let own = Int(truncatingIfNeeded: (UInt(pthread_self()) &* 0x9E37_79B9_7F4A_7C15) >> 32) % slots.count
        for offset in 0..<slots.count {
            if let signature = slots[(own + offset) % slots.count].watch.withLockIfAvailable({ check(&$0, storePath, plain) }) {
                return signature
            }
        }
        return slots[own].watch.withLock { check(&$0, storePath, plain) }
    }

    private func check(_ slot: inout Watch?, _ storePath: String, _ plain: @Sendable (String) -> [Int]) -> [Int] {
        if slot?.storePath != storePath { slot = Watch(storePath) }
        guard let current = slot, current.usable else { return counted(plain, storePath) }
        switch current.drainEvents() {
        case .quiet: break
        case .touched: current.remap()
        case .lost:
            slot = nil  // set up again at the next request
            return counted(plain, storePath)
        }
        // The header before the plain check: a commit landing in between is seen next time.
        let header = current.header()
        if let header, let trusted = current.trusted, trusted.header == header { return trusted.signature }
        let signature = counted(plain, storePath)
        current.trusted = header.map { ($0, signature) }
        return signature
    }

    private func counted(_ plain: @Sendable (String) -> [Int], _ storePath: String) -> [Int] {
        plainChecks.withLock { $0 += 1 }
        return plain(storePath)
    }
}

extension StoreChangeSignal {
    /// The wal-index header's 48 bytes and the checkpoint's `nBackfill`, or the `-shm` missing.
    enum Header: Equatable {
        case absent
        case present(UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, backfill: UInt32)

        /// Reads SQLite's wal-index header at `page` (https://sqlite.org/walformat.html, section 2.1):
        /// two copies of 48 bytes, the second written first; nil unless both are equal, initialised
        /// and their checksum (SQLite's, over the first 40 bytes in native order) is right.
        static func read(_ page: UnsafeRawPointer) -> Header? {
            func words(_ at: Int) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
                (page.load(fromByteOffset: at, as: UInt64.self), page.load(fromByteOffset: at + 8, as: UInt64.self),
                 page.load(fromByteOffset: at + 16, as: UInt64.self), page.load(fromByteOffset: at + 24, as: UInt64.self),
                 page.load(fromByteOffset: at + 32, as: UInt64.self), page.load(fromByteOffset: at + 40, as: UInt64.self))
            }
            let first = words(0)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            let second = words(48)
            let backfill = page.load(fromByteOffset: 96, as: UInt32.self)
            guard first == second, page.load(fromByteOffset: 12, as: UInt8.self) != 0 else { return nil }
            // The checksum of the copy read first, over its first 40 bytes (as 32-bit words in native order;
            // the halves below are those words on a little-endian machine, and on another one the sum never
            // matches: the plain check every time, never a wrong answer).
            var s1: UInt32 = 0, s2: UInt32 = 0
            for word in [first.0, first.1, first.2, first.3, first.4] {
                s1 = s1 &+ UInt32(truncatingIfNeeded: word) &+ s2
                s2 = s2 &+ UInt32(truncatingIfNeeded: word >> 32) &+ s1
            }
            guard UInt64(s1) | UInt64(s2) << 32 == first.5 else { return nil }
            return .present(first.0, first.1, first.2, first.3, first.4, first.5, backfill: backfill)
        }
    }

    enum Events { case quiet, touched, lost }

    /// The inotify watch on the store's folder and the `-shm` mapping of one store path.
    final class Watch {
        let storePath: String
        private let inotify: Int32
        private let names: Set<String>
        private let shmPath: String
        /// The `-shm` file's first page; nil when it is missing (`shmMissing`) or too short.
        private var page: UnsafeRawPointer?
        private var shmMissing = false
        var trusted: (header: Header, signature: [Int])?
        static let pageSize = 4096

        init(_ storePath: String) {
            self.storePath = storePath
            let absolute = storePath.hasPrefix("/") ? storePath : FileManager.default.currentDirectoryPath + "/" + storePath
            let resolved = realpath(storePath, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) }
            let base = (storePath as NSString).lastPathComponent
            names = [base, base + "-wal", base + "-shm", base + "-journal"]
            shmPath = storePath + "-shm"
            // Through a symbolic link SQLite's companions sit beside the target: unsure, always plain.
            // (Compared as written: a path with `.` or `..` in it takes the plain check too.)
            guard resolved == absolute else {
                inotify = -1
                return
            }
            var fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            // Not IN_ATTRIB: SQLite running as root `fchown`s `-wal` and `-shm` at every opening, and a
            // time or mode changed alone leaves the store's content as it was.
            let mask = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
                              | IN_DELETE_SELF | IN_MOVE_SELF)
            let directory = (absolute as NSString).deletingLastPathComponent
            if fd >= 0, inotify_add_watch(fd, directory.isEmpty ? "/" : directory, mask) < 0 {
                close(fd)
                fd = -1
            }
            inotify = fd
            if fd >= 0 { remap() }
        }

        deinit {
            unmap()
            if inotify >= 0 { close(inotify) }
        }

        var usable: Bool { inotify >= 0 }

        /// Reads every queued event: `.touched` when one names the store or a companion, `.lost`
        /// when the queue overflowed or the folder itself went away.
        func drainEvents() -> Events {
            var result = Events.quiet
            withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
                while true {
                    let count = read(inotify, buffer.baseAddress, buffer.count)
                    guard count > 0 else {
                        if count < 0, errno != EAGAIN, errno != EINTR { result = .lost }
                        return
                    }
                    var offset = 0
                    while offset + 16 <= count {
                        let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                        let start = offset + 16, end = min(count, start + length)
                        if mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                            result = .lost
                        } else if result == .quiet {
                            let name = UnsafeRawBufferPointer(rebasing: buffer[start..<end]).prefix { $0 != 0 }
                            if names.contains(String(decoding: name, as: UTF8.self)) { result = .touched }
                        }
                        offset = start + length
                    }
                }
            }
            return result
        }

        /// Maps the `-shm` file's first page again (it may be another file now) and forgets the
        /// trusted signature.
        func remap() {
            trusted = nil
            unmap()
            let fd = open(shmPath, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                shmMissing = errno == ENOENT
                return
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_size >= 136 else { return }
            let mapped = mmap(nil, Self.pageSize, PROT_READ, MAP_SHARED, fd, 0)
            guard let mapped, mapped != MAP_FAILED else { return }
            page = UnsafeRawPointer(mapped)
        }

        private func unmap() {
            if let page { munmap(UnsafeMutableRawPointer(mutating: page), Self.pageSize) }
            page = nil
            shmMissing = false
        }

        /// The header now; nil when unsure.
        func header() -> Header? {
            if shmMissing { return .absent }
            return page.flatMap(Header.read)
        }
    }
}
