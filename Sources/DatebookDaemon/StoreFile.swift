import Foundation

/// Which file a store path names, by device and inode: a path whose file was replaced (a backup
/// moved over it) names another one, a deleted one none.
public struct StoreFile: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    public static func identity(_ path: String) -> StoreFile? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return StoreFile(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Waits until the file's size and modification time have held still for `quiet` seconds (a
    /// copy over it is done), at most `limit` seconds.
    public static func waitUntilQuiet(_ path: String, quiet: TimeInterval = 0.5, limit: TimeInterval = 30) {
        func look() -> [Int] {
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
        let deadline = ContinuousClock.now + .seconds(limit)
        var last = look()
        var since = ContinuousClock.now
        while ContinuousClock.now < deadline, ContinuousClock.now - since < .seconds(quiet) {
            Thread.sleep(forTimeInterval: 0.05)
            let now = look()
            if now != last { (last, since) = (now, ContinuousClock.now) }
        }
    }
}
