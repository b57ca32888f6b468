import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a child started with `posix_spawn` inherits: only the descriptors its file actions set up.
///
/// Close-on-exec is not enough: another thread may hold a descriptor open without it at that very
/// moment (Foundation's `Process` keeps one end of the socket it watches its child with open
/// while it starts that child). A long-lived child that inherits it keeps it open, and that
/// `waitUntilExit` then waits for the long-lived child's end instead of its own child's.
public enum SpawnActions {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not export; nil on an older C library.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// The child gets no descriptor numbered `fd` or above, whatever this process holds open then
    /// (after the actions added so far: `dup2`s to lower numbers come first). On a C library
    /// without it, close-on-exec alone decides.
    public static func closeAll(from fd: Int32, in actions: inout posix_spawn_file_actions_t) {
        _ = closeFrom?(&actions, fd)
    }
}
