import Foundation

/// A test's scratch folder, `$TMPDIR/datebook-LABEL-UUID`: removed when the value is released
/// (deinit), and by the reaper if the test process ends first (crash, SIGKILL).
public final class ScratchFolder: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ label: String) {
        url = URL(fileURLWithPath: makeScratchFolder(label))
    }

    /// `path/name`.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { removeScratchFolder(url.path) }
}

/// Creates `$TMPDIR/datebook-LABEL-UUID` and names it to the reaper, which removes it when the
/// test process ends (so even a free-standing helper that returns a path leaves nothing behind
/// after the run). Prefer `ScratchFolder`, which removes it as soon as the test is done with it.
@discardableResult
public func makeScratchFolder(_ label: String) -> String {
    let path = NSTemporaryDirectory() + "datebook-\(label)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    Reaper.watch(folder: path)
    return path
}

/// Removes a folder made by `makeScratchFolder` and tells the reaper.
public func removeScratchFolder(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
    Reaper.forget(folder: path)
}
