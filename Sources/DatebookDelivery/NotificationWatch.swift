import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A notification with Done and Snooze buttons, shown without waiting for the click.
///
/// notify-send with `-A` stays until the notification is closed and prints the chosen action's
/// name; with `-p` it first prints the notification's id (line-buffered through `stdbuf -oL`, or
/// the id would wait in stdio's buffer until exit). `show` starts it, returns once the id is out
/// (the delivery counts as sent), and hands its stdout to a detached `listener` process, which
/// reads the action (or end of file when the notification closes or expires) and exits.
public enum NotificationWatch {
    /// The buttons, key and label: `-A done=Done -A snooze=Snooze 1 h` (labels in the reader's language).
    public static func actions(_ labels: OutgoingMessage.Labels) -> [String] {
        ["done=" + labels.done, "snooze=" + labels.snooze]
    }

    public enum Shown: Sendable, Equatable {
        /// On screen, with this id; the listener has its output.
        case shown(id: String)
        /// notify-send ended without showing: its exit status and stderr.
        case failed(CommandResult)
    }

    /// Runs `argv` (notify-send and its arguments) and, once it printed the id, starts `listener`
    /// with notify-send's stdout as its stdin, in a session of its own.
    ///
    /// - Parameter lifetime: how long notify-send may wait for the click, told to the listener as
    ///   `DATEBOOK_NOTIFY_UNTIL` and `DATEBOOK_NOTIFY_PID` (the small waiter ends notify-send then);
    ///   nil: until the notification closes.
    /// - Parameter listenerEnvironment: what the listener alone is told (the store: notify-send never
    ///   gets it, `CommandRunner.withheld`).
    public static func show(_ argv: [String], listener: [String], lifetime: TimeInterval? = nil, environment: [String: String] = [:],
                            listenerEnvironment: [String: String] = [:], timeout: TimeInterval = 30) throws(CommandError) -> Shown {
        keepInheritedDescriptorsFromChildren()
        let (pid, stdout, stderr) = try CommandRunner.spawnPiped(["stdbuf", "-oL"] + argv, environment: environment)
        defer { close(stdout); close(stderr) }
        // A usable id is a positive number: without a notification server notify-send prints `0`
        // and then fails (ServiceUnknown, exit 1), which is a failure, not a notification on screen.
        guard let id = readLine(stdout, timeout: timeout), let number = UInt32(id), number > 0 else {
            return .failed(finish(pid, stderr: stderr, timeout: timeout))
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        var bound = environment.merging(listenerEnvironment) { $1 }
        if let lifetime {
            // Rounded up as a whole: the waiter reads whole seconds, and truncating now + lifetime
            // would end notify-send up to a second early.
            bound["DATEBOOK_NOTIFY_UNTIL"] = String(Int((Date().timeIntervalSince1970 + lifetime).rounded(.up)))
            bound["DATEBOOK_NOTIFY_PID"] = String(pid)
        }
        _ = try CommandRunner.spawn(listener, environment: bound, stdin: stdout, stdout: null, stderr: null, newSession: true)
        return .shown(id: id)
    }

    /// Marks every descriptor above stderr close-on-exec. notify-send and the listener outlive this
    /// process; a copy of a pipe this process inherited (its parent's stdout, say) kept open in them
    /// would keep whoever reads that pipe from seeing end of file until the notification closes.
    static func keepInheritedDescriptorsFromChildren() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in entries.compactMap(Int32.init) where fd > 2 {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
    }

    /// One line read a byte at a time (nothing after it is taken from the pipe), or nil at end of
    /// file or after `timeout`.
    static func readLine(_ fd: Int32, timeout: TimeInterval) -> String? {
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var byte: UInt8 = 0
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return nil }
            guard poller.revents != 0 else { continue }
            let count = read(fd, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            } else if count == 0 || errno != EINTR {
                return nil
            }
        }
        return nil
    }

    /// The failed run's stderr and exit status (killed when it outlives `timeout`).
    static func finish(_ pid: pid_t, stderr: Int32, timeout: TimeInterval) -> CommandResult {
        var text = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var timedOut = false
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var poller = pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 100)
            if poller.revents != 0 {
                let count = read(stderr, &chunk, chunk.count)
                if count > 0 { text.append(contentsOf: chunk.prefix(min(count, 64 * 1024 - text.count))); continue }
                if count == 0 || errno != EINTR { break }
            }
            if Date() > deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return CommandResult(termination: signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal),
                             stdout: Data(), stderr: text, timedOut: timedOut)
    }
}
