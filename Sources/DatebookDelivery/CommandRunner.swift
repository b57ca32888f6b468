import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How a command ended.
public struct CommandResult: Sendable, Equatable {
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    public var termination: Termination
    public var stdout: Data
    public var stderr: Data
    /// The command outlived its timeout and was sent SIGTERM (then SIGKILL).
    public var timedOut: Bool

    /// Exit status 0 within the timeout.
    public var succeeded: Bool { termination == .exited(0) && !timedOut }
}

/// Why a command could not be started.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyArgv
    case spawnFailed(program: String, errno: Int32)
    case pipeFailed(errno: Int32)

    public var description: String {
        switch self {
        case .emptyArgv: return "command channel: argv is empty"
        case .spawnFailed(let program, let code):
            return "command channel: cannot start '\(program)': \(String(cString: strerror(code)))"
        case .pipeFailed(let code): return "command channel: cannot create pipe: \(String(cString: strerror(code)))"
        }
    }
}

/// Runs a command from an argv array with `posix_spawnp` — never through a shell, so event
/// text in arguments or environment is inert. Output is captured (read to EOF before
/// `waitpid`); past `timeout` the process group gets SIGTERM, then SIGKILL after `grace`.
public struct CommandRunner: Sendable {
    public var timeout: TimeInterval
    public var grace: TimeInterval
    /// Bytes kept per stream; the rest is read and discarded.
    public var maxOutputBytes: Int

    public init(timeout: TimeInterval = 30, grace: TimeInterval = 2, maxOutputBytes: Int = 64 * 1024) {
        self.timeout = timeout
        self.grace = grace
        self.maxOutputBytes = maxOutputBytes
    }

    /// `DATEBOOK_*` variables describing a message, for commands that prefer the environment.
    public static func environment(for message: OutgoingMessage) -> [String: String] {
        var values = [
            "DATEBOOK_KIND": message.kind.rawValue, "DATEBOOK_TITLE": message.displayTitle,
            "DATEBOOK_BODY": message.text, "DATEBOOK_BODY_MARKUP": DesktopNotification.escapeMarkup(message.text),
            "DATEBOOK_MARKDOWN": message.markdown,
            "DATEBOOK_IDEMPOTENCY_KEY": message.idempotencyKey,
        ]
        if let url = message.url { values["DATEBOOK_URL"] = url }
        // The event page's link is DATEBOOK_EVENT_PAGE_URL: DATEBOOK_EVENT_URL is the event's own link.
        for action in message.actions {
            let name = action.name == "event" ? "EVENT_PAGE" : action.name.uppercased()
            values["DATEBOOK_" + name + "_URL"] = action.url
        }
        if let event = message.event {
            values["DATEBOOK_EVENT_ID"] = event.id
            values["DATEBOOK_EVENT_START"] = event.start
            values["DATEBOOK_EVENT_SYMBOL"] = event.symbol
            values["DATEBOOK_EVENT_LOCATION"] = event.location
            values["DATEBOOK_EVENT_URL"] = event.url ?? ""
            values["DATEBOOK_OPEN_TASKS"] = String(event.openTasks)
        }
        return values
    }

    /// Replaces `{{title}}`, `{{body}}`, `{{bodyMarkup}}`, `{{markdown}}`, `{{url}}`, `{{start}}`,
    /// `{{location}}` inside each argument (`{{url}}`: an alert's event link); every argument stays exactly one argv entry whatever the text contains.
    /// `{{title}}` and `{{body}}` are plain text; `{{bodyMarkup}}` is the body with `&`, `<`, `>`
    /// escaped, for programs that read markup (notify-send's body).
    public static func expand(_ argv: [String], with message: OutgoingMessage) -> [String] {
        let values = [
            "{{title}}": message.displayTitle, "{{body}}": message.text,
            "{{bodyMarkup}}": DesktopNotification.escapeMarkup(message.text), "{{markdown}}": message.markdown,
            "{{url}}": message.url ?? "", "{{start}}": message.event?.start ?? "",
            "{{location}}": message.event?.location ?? "",
            "{{doneURL}}": message.actionURL("done") ?? "", "{{snoozeURL}}": message.actionURL("snooze") ?? "",
            "{{tomorrowURL}}": message.actionURL("tomorrow") ?? "", "{{eventURL}}": message.actionURL("event") ?? "",
        ]
        return argv.map { argument in
            values.reduce(argument) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
    }

    /// Runs `argv` (argv[0] searched in PATH) with the inherited environment plus `environment`.
    public func run(_ argv: [String], environment: [String: String] = [:]) throws(CommandError) -> CommandResult {
        guard let program = argv.first, !program.isEmpty else { throw CommandError.emptyArgv }
        let (pid, stdout, stderr) = try Self.spawnPiped(argv, environment: environment)
        defer { close(stdout); close(stderr) }
        return collect(pid: pid, stdout: stdout, stderr: stderr)
    }

    /// Starts `argv` with stdout and stderr on new pipes; returns their read ends (the caller closes them).
    static func spawnPiped(_ argv: [String], environment: [String: String]) throws(CommandError) -> (pid_t, stdout: Int32, stderr: Int32) {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw CommandError.pipeFailed(errno: errno) }
        guard pipe(&err) == 0 else {
            let code = errno
            close(out[0]); close(out[1])
            throw CommandError.pipeFailed(errno: code)
        }
        // Every end close-on-exec (dup2 onto 1 and 2 clears it there): a command's own long-lived
        // children must not hold another command's pipe open.
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            pid = try spawn(argv, environment: environment, stdout: out[1], stderr: err[1])
        } catch {
            close(out[0]); close(out[1]); close(err[0]); close(err[1])
            throw error
        }
        close(out[1])
        close(err[1])
        return (pid, out[0], err[0])
    }

    /// What a child never inherits from datebook's environment: the store's location (a PostgreSQL
    /// URL may hold its password), libpq's password, and the variable the config's `store: {env: …}`
    /// names (`withholdFromChildren`). A child that needs the store is given it explicitly in
    /// `environment` (the notification listener's `DATEBOOK_STORE`).
    public static var withheld: Set<String> { extraWithheld.withLock { $0 }.union(["DATEBOOK_STORE", "PGPASSWORD"]) }
    private static let extraWithheld = Mutex<Set<String>>([])

    /// Withholds `name` from every child this process starts from now on (see `withheld`).
    public static func withholdFromChildren(_ name: String) {
        _ = extraWithheld.withLock { $0.insert(name) }
    }

    /// Starts `argv` with stdin from `stdin` (else /dev/null) and stdout/stderr on the given
    /// descriptors, in a process group of its own, or a session of its own with `newSession`.
    static func spawn(_ argv: [String], environment: [String: String], stdin: Int32? = nil, stdout: Int32, stderr: Int32,
                      newSession: Bool = false) throws(CommandError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of the daemon's reaches the hook (a descriptor opened without close-on-exec,
        // by a library or another thread at this moment).
        SpawnActions.closeAll(from: 3, in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        // POSIX_SPAWN_SETSID (glibc 2.26+) is 0x80; Swift's Glibc module does not export it.
        let group = newSession ? Int32(0x80) : Int32(POSIX_SPAWN_SETPGROUP)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | group))

        var merged = ProcessInfo.processInfo.environment.filter { !withheld.contains($0.key) }
        for (key, value) in environment { merged[key] = value }
        let arguments = argv.map { strdup($0.replacingOccurrences(of: "\0", with: "")) } + [nil]
        let variables = merged.sorted { $0.key < $1.key }
            .map { strdup("\($0.key)=\($0.value)".replacingOccurrences(of: "\0", with: "")) } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, variables)
        guard status == 0 else { throw CommandError.spawnFailed(program: argv[0], errno: status) }
        return pid
    }

    private func collect(pid: pid_t, stdout: Int32, stderr: Int32) -> CommandResult {
        var buffers = [Data(), Data()]
        var open = [true, true]
        let fds = [stdout, stderr]
        let start = Date()
        var termSentAt: Date?
        var killed = false
        var waitStatus: Int32 = 0
        var exited = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !(exited && !open[0] && !open[1]) {
            if open[0] || open[1] {
                var polls = fds.indices.filter { open[$0] }.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
                _ = poll(&polls, nfds_t(polls.count), 100)
                for entry in polls where entry.revents != 0 {
                    guard let index = fds.firstIndex(of: entry.fd) else { continue }
                    let count = read(entry.fd, &chunk, chunk.count)
                    if count > 0 {
                        let room = max(0, maxOutputBytes - buffers[index].count)
                        buffers[index].append(contentsOf: chunk.prefix(min(count, room)))
                    } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                        open[index] = false
                    }
                }
            } else {
                usleep(10_000)
            }
            if !exited {
                let result = waitpid(pid, &waitStatus, WNOHANG)
                if result == pid || (result == -1 && errno == ECHILD) { exited = true }
            }
            let elapsed = Date().timeIntervalSince(start)
            if termSentAt == nil, elapsed > timeout {
                kill(-pid, SIGTERM)
                kill(pid, SIGTERM)
                termSentAt = Date()
            } else if let sent = termSentAt, !killed, Date().timeIntervalSince(sent) > grace {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                killed = true
            }
        }
        let signal = waitStatus & 0x7f
        let termination: CommandResult.Termination =
            signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signalled(signal)
        return CommandResult(termination: termination, stdout: buffers[0], stderr: buffers[1], timedOut: termSentAt != nil)
    }
}
