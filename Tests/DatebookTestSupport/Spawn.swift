import DatebookDelivery
import Foundation

/// How the test support starts the programs it drives (PostgreSQL's tools, Chromium, the reaper,
/// datebook replicas): `posix_spawn` with exactly the descriptors named and no other
/// (`SpawnActions.closeAll`), in a process group of its own unless told otherwise. Not
/// Foundation's `Process`: a server a child leaves running would inherit what `Process` watches
/// that child with, and its `waitUntilExit` would then never return.
public enum Spawn {
    /// What one descriptor of the child is.
    public enum Descriptor {
        /// /dev/null, for reading (`write` false) or writing.
        case null(write: Bool)
        /// A file, created if needed, appended to or emptied first.
        case file(String, append: Bool)
        /// A copy of one of this process's descriptors (`dup2`).
        case copy(Int32)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let code: Int32
        public var description: String { "\(path): \(String(cString: strerror(code)))" }
    }

    /// Starts `path` with `arguments` (argv[0] is `path`); the child's `descriptors` are set up in
    /// the order given, standard ones not named are this process's, and every other is closed. `environment` (`NAME=value` entries) nil
    /// passes this process's. `ownGroup`: the child leads a new process group (the reaper can then
    /// end all it starts).
    public static func start(_ path: String, _ arguments: [String], descriptors: [(Int32, Descriptor)],
                             environment: [String]? = nil, ownGroup: Bool = true) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, descriptor) in descriptors {
            switch descriptor {
            case .null(let write): posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", write ? O_WRONLY : O_RDONLY, 0)
            case .file(let file, let append):
                posix_spawn_file_actions_addopen(&actions, fd, file, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
            case .copy(let from): posix_spawn_file_actions_adddup2(&actions, from, fd)
            }
        }
        SpawnActions.closeAll(from: max(3, (descriptors.map(\.0).max() ?? 0) + 1), in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid = pid_t()
        let spawned = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure(path: path, code: spawned) }
        return pid
    }
}
