import DatebookDelivery
import Foundation
import Synchronization

/// The test process's watchdog: a small Python process whose stdin is a pipe from this process.
/// Every server or child a test starts is put in its own process group (Foundation's `Process`
/// makes one per child: PGID = PID) and its group is named to the reaper; every scratch folder
/// too. When the pipe reaches EOF — this process ended, normally or by a crash or SIGKILL — the
/// reaper kills each group still named (SIGKILL) and removes each folder still named. A test's
/// own teardown stops its group and removes its folder first and tells the reaper to forget them.
///
/// The write end of the pipe is close-on-exec, so no child holds it open; the reaper ignores
/// SIGINT and SIGHUP (a Ctrl-C reaches the test process, whose end the reaper then sees) and runs
/// in a process group of its own. It notes each group leader's start time when it is named and
/// leaves alone a group id that a new process has taken since.
public enum Reaper {
    /// `group PGID` / `forget-group PGID` / `folder PATH` / `forget-folder PATH`, one a line.
    static let script = #"""
        import os, shutil, signal, sys
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        def started(pid):
            try:
                with open("/proc/%d/stat" % pid) as stat: return stat.read().rsplit(")", 1)[1].split()[19]
            except (OSError, IndexError): return None
        groups, folders = {}, set()
        for line in sys.stdin.buffer:
            kind, _, value = line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            if kind == "group": groups[int(value)] = started(int(value))
            elif kind == "forget-group": groups.pop(int(value), None)
            elif kind == "folder": folders.add(value)
            elif kind == "forget-folder": folders.discard(value)
        for group, start in groups.items():
            now = started(group)
            if now is not None and now != start: continue  # the id was given to another process since
            try: os.killpg(group, signal.SIGKILL)
            except OSError: pass
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        """#

    /// The write end of the reaper's stdin and its process id; nil when it could not start (then
    /// teardown still works, only a crash would leave things behind).
    private static let channel: (fd: Int32, pid: pid_t)? = start()

    /// The groups named and not yet stopped or forgotten: stopping twice never signals a process
    /// group id that the system has since given to someone else.
    private static let groups = Mutex(Set<pid_t>())

    private static func start() -> (fd: Int32, pid: pid_t)? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        // Close-on-exec at once: a child spawned now must not hold the write end (no EOF then).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        // fd 0 the pipe's read end (dup2 clears its close-on-exec), stdout on /dev/null, stderr ours,
        // nothing else: a descriptor another thread's `Process` watches its child with would stay open
        // in the reaper, and that `waitUntilExit` would wait for the test process's end (SpawnActions).
        let pid = try? Spawn.start("/usr/bin/python3", ["-c", script], descriptors: [(0, .copy(fds[0])), (1, .null(write: true))])
        close(fds[0])
        guard let pid else {
            close(fds[1])
            return nil
        }
        return (fds[1], pid)
    }

    /// Whether the reaper runs (it needs /usr/bin/python3).
    public static var isRunning: Bool { channel != nil }

    /// The reaper's process id (for the test that checks the reaper itself).
    public static var processIdentifier: pid_t? { channel?.pid }

    private static func send(_ line: String) {
        guard let channel else { return }
        groups.withLock { _ in  // one writer at a time
            let bytes = Array((line + "\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let written = bytes[sent...].withUnsafeBytes { write(channel.fd, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }

    /// Names the process group of a started child (its PGID is its PID), to be killed if this process dies.
    public static func watch(_ process: Process) { watch(group: process.processIdentifier) }

    public static func watch(group: pid_t) {
        guard group > 0 else { return }
        groups.withLock { _ = $0.insert(group) }
        send("group \(group)")
    }

    /// Stops watching a group; true when it was watched.
    @discardableResult
    public static func forget(group: pid_t) -> Bool {
        guard group > 0, groups.withLock({ $0.remove(group) }) != nil else { return false }
        send("forget-group \(group)")
        return true
    }

    /// Names a scratch folder, to be removed if this process ends before the test removes it.
    public static func watch(folder path: String) { send("folder \(path)") }

    public static func forget(folder path: String) { send("forget-folder \(path)") }

    /// Kills a watched child's whole process group (SIGKILL), waits for the child, and forgets
    /// the group. A second call, or one for a child never watched, only waits.
    public static func stop(_ process: Process) {
        let group = process.processIdentifier
        if forget(group: group) { kill(-group, SIGKILL) }
        if group > 0, process.isRunning { process.waitUntilExit() }
    }

    /// Kills a watched process group that `Process` did not start (e.g. a daemon that made its own).
    public static func stop(group: pid_t) {
        if forget(group: group) { kill(-group, SIGKILL) }
    }
}
