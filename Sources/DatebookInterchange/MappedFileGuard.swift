import Foundation

/// Turns a SIGBUS on the pages of a mapped import file — the file was truncated (or replaced in
/// place) while it was read — into zero pages and a mark on the file, so that the import ends with
/// an error naming the file (`ImportFile.changedWhileRead`), the store as it was, instead of the
/// process dying.
///
/// Reading with `pread` into a reused buffer instead of mapping would avoid the signal, but the
/// batch reader's first pass and its batches address the whole file; the mapping is what keeps
/// the 1M import at 175 MB. A fault outside every registered file goes to the handler there was
/// before (the Swift runtime's backtracer, or the default: the process ends as before).
enum MappedFileGuard {
    /// Files that can be watched at once (imports running side by side, as tests do).
    static let slots = 32
    /// Per slot: start address, end address, and 1 once a fault fell inside. A start of 0 is a free
    /// slot. Read by the handler, which must not lock or allocate; written under `lock`.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<UInt> = {
        let table = UnsafeMutablePointer<UInt>.allocate(capacity: slots * 3)
        table.initialize(repeating: 0, count: slots * 3)
        return table
    }()
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)
        previous.initialize(to: sigaction())
        return previous
    }()
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    /// Watches `count` mapped bytes at `start`; the slot, or nil when every slot is taken.
    static func watch(_ start: UnsafeMutableRawPointer, count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if !installed {
            _ = table
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = handler
            action.sa_flags = SA_SIGINFO
            _ = sigemptyset(&action.sa_mask)
            guard sigaction(SIGBUS, &action, previous) == 0 else { return nil }
            installed = true
        }
        for slot in 0..<slots where table[slot * 3] == 0 {
            table[slot * 3 + 1] = UInt(bitPattern: start) + UInt(count)
            table[slot * 3 + 2] = 0
            table[slot * 3] = UInt(bitPattern: start)
            return slot
        }
        return nil
    }

    /// Stops watching `slot` (before its bytes are unmapped).
    static func release(_ slot: Int) {
        lock.lock()
        defer { lock.unlock() }
        table[slot * 3] = 0
    }

    /// Whether a read of the file in `slot` faulted: the file shrank under its mapping.
    static func faulted(_ slot: Int) -> Bool { table[slot * 3 + 2] != 0 }

    /// Maps zero pages over the rest of the watched file the fault fell in, and marks it; any other
    /// fault goes to the previous handler (restored, so the faulting access raises it again).
    private static let handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { _, info, _ in
        let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
        let page = UInt(4_096)
        for slot in 0..<slots {
            let start = table[slot * 3], end = table[slot * 3 + 1]
            guard start != 0, address >= start, address < end else { continue }
            let from = address / page * page
            let zeros = mmap(UnsafeMutableRawPointer(bitPattern: from), Int(end - from), PROT_READ,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            if zeros != UnsafeMutableRawPointer(bitPattern: -1) {
                table[slot * 3 + 2] = 1
                return
            }
        }
        _ = sigaction(SIGBUS, previous, nil)
    }
}
