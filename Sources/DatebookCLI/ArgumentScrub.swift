import DatebookStore
import Foundation
import Synchronization

/// Hides a store password given on the command line (`--store postgresql://ann:secret@db/team`)
/// from `ps` and `/proc/PID/cmdline`, which every user of the machine can read.
///
/// Linux shows a process's own argv memory, so each byte of the password is overwritten there
/// with `*` (the arguments keep their lengths). Until that moment — the process's start-up — the
/// password was visible, so `run` also warns and names the ways that never show it: `PGPASSFILE`
/// (`~/.pgpass`) or the config's `store: { file: … }`.
enum ArgumentScrub {
    /// True once `hideStorePasswords` hid one.
    private static let hid = Mutex(false)

    /// Whether a store password was on this process's command line.
    static var hidPassword: Bool { hid.withLock { $0 } }

    /// Overwrites every password in a `--store` value (`--store URL` or `--store=URL`) in place.
    static func hideStorePasswords() {
        let count = Int(CommandLine.argc)
        var previousWasStore = false
        for n in 1..<max(count, 1) {
            guard let pointer = CommandLine.unsafeArgv[n] else { continue }
            let text = String(cString: pointer)
            defer { previousWasStore = text == "--store" }
            let offset = previousWasStore ? 0 : text.hasPrefix("--store=") ? "--store=".utf8.count : -1
            guard offset >= 0 else { continue }
            let original = Array(text.utf8.dropFirst(offset))
            let masked = mask(original, like: Array(StoreLocation.redacted(String(decoding: original, as: UTF8.self)).utf8))
            guard masked != original else { continue }
            for (index, byte) in masked.enumerated() { pointer[offset + index] = CChar(bitPattern: byte) }
            hid.withLock { $0 = true }
        }
    }

    /// `original` with the bytes its redacted form replaced (between their common start and end) as `*`.
    static func mask(_ original: [UInt8], like redacted: [UInt8]) -> [UInt8] {
        var prefix = 0
        while prefix < min(original.count, redacted.count), original[prefix] == redacted[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(original.count, redacted.count) - prefix,
              original[original.count - 1 - suffix] == redacted[redacted.count - 1 - suffix] { suffix += 1 }
        var masked = original
        for index in prefix..<(original.count - suffix) { masked[index] = UInt8(ascii: "*") }
        return masked
    }
}
