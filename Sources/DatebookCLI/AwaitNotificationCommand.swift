import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook await-notification --event ID --occurrence ISO --channel NAME -- notify-send …`
/// (internal: the desktop channel runs it for a notification with Done and Snooze buttons).
///
/// Shows the notification and exits as soon as it is on screen (exit 0: sent), leaving a detached
/// `datebook-notify-wait` (the small C waiter next to this binary) that reads notify-send's answer
/// and only then runs `… await-notification --attached --answer KEY` to apply it: `done` marks
/// every open task done, `snooze` puts the alert in the ledger again one hour later; end of file
/// (closed or expired unclicked) changes nothing. Without the waiter, `… --attached` itself reads
/// the answer (a whole datebook process waits). When notify-send fails, its stderr and exit status
/// are passed on for the delivery's ledger row.
enum AwaitNotificationCommand: Command {
    static let spec = CommandSpec(
        name: "await-notification", summary: "(internal) show a desktop notification and await its buttons",
        usage: "--event ID --occurrence ISO --channel NAME [--lifetime SECONDS] [--attached [--answer KEY]] -- PROGRAM [ARGUMENTS]…",
        options: [.value("--event", "ID", "the event"), .value("--occurrence", "ISO", "the occurrence's start"),
                  .value("--channel", "NAME", "the channel a snooze goes to"),
                  .value("--lifetime", "SECONDS", "end notify-send after this long without an answer"),
                  .flag("--attached", "read the answer on stdin and apply it"),
                  .value("--answer", "KEY", "with --attached: apply this action key (done, snooze) instead of reading stdin")],
        positionals: 0...Int.max, hidden: true
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        guard let eventID = arguments.value("--event"), let channel = arguments.value("--channel"),
              let occurrence = arguments.value("--occurrence").flatMap(ISOInstant.parse) else {
            throw UsageError(message: "await-notification needs --event, --occurrence and --channel", command: "await-notification")
        }
        if arguments.flags.contains("--attached") {
            try listen(eventID: eventID, occurrence: occurrence, channel: channel, arguments, context)
            return ExitCode.ok
        }
        guard !arguments.positionals.isEmpty else {
            throw UsageError(message: "await-notification needs the notify-send command after --", command: "await-notification")
        }
        let own = CommandLine.arguments
        let executable = executablePath()
        let attached = [executable] + own.dropFirst().prefix { $0 != "--" } + ["--attached"]
        let waiter = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(waiterName).path
        let small = executable.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: waiter)  // it execs an absolute path
        let listener = small ? [waiter] + attached + ["--answer"] : attached
        let lifetime = arguments.value("--lifetime").flatMap(TimeInterval.init)
        // The listener acts on the store; notify-send, which never sees it, cannot leak its password.
        switch try NotificationWatch.show(arguments.positionals, listener: listener, lifetime: lifetime,
                                          listenerEnvironment: ["DATEBOOK_STORE": context.storePath]) {
        case .shown(let id):
            context.out.write("shown \(id)\n")
            return ExitCode.ok
        case .failed(let result):
            context.err.write(String(decoding: result.stderr, as: UTF8.self))
            if case .exited(let code) = result.termination, code != 0 { return code }
            return ExitCode.unavailable
        }
    }

    /// The C waiter (`Sources/datebook-notify-wait`), looked for next to this program.
    static let waiterName = "datebook-notify-wait"

    /// Applies `--answer KEY` (from the waiter), else each answer notify-send prints on stdin (the
    /// action's key; nothing when the notification closes).
    static func listen(eventID: String, occurrence: Date, channel: String, _ arguments: ParsedArguments, _ context: Context) throws {
        if let answer = arguments.value("--answer") {
            try apply(answer, eventID: eventID, occurrence: occurrence, channel: channel, arguments, context)
            return
        }
        while let line = readLine() {
            try apply(line.trimmingCharacters(in: .whitespaces), eventID: eventID, occurrence: occurrence, channel: channel,
                      arguments, context)
        }
    }

    /// `done`: every open task done; `snooze`: the alert in the ledger again one hour after the
    /// click; any other key: nothing.
    static func apply(_ answer: String, eventID: String, occurrence: Date, channel: String, _ arguments: ParsedArguments,
                      _ context: Context) throws {
        // The click's time; `--now` (reproducible runs) fixes it like every other time.
        let pinned = context.environment["DATEBOOK_NOW"] != nil || arguments.value("--now") != nil
        let clicked = pinned ? context.now : Date()
        switch answer {
        case "done":
            let store = try context.openStore(extendingHorizon: false)
            if let event = try store.event(id: eventID), let done = Snooze.completingTasks(of: event) { try store.save(done) }
        case "snooze":
            let store = try context.openStore(extendingHorizon: false)
            let until = clicked.addingTimeInterval(Snooze.defaultLength)
            _ = try store.plan(Snooze.entry(eventID: eventID, occurrenceStart: occurrence, until: until, channel: channel),
                               now: clicked)
        default:
            return
        }
    }

    /// `config` with its desktop channels' buttons awaited by this program on `storePath` (at the
    /// pretended time `now`, when one is given). The store goes to the listener as `DATEBOOK_STORE`
    /// in its environment: on its command line, `ps` would show a PostgreSQL URL's password.
    /// Icon themes are looked for in `environment`'s `XDG_DATA_DIRS`.
    static func listening(_ config: Config, storePath: String, now: Date?, environment: [String: String]) -> Config {
        let listener = [executablePath()] + (now.map { ["--now", ISOInstant.format($0)] } ?? [])
        var config = config
        config.channels = config.channels.map { channel in
            guard case .desktop(var options) = channel.kind else { return channel }
            options.iconDirectories = DesktopIcons.dataDirectories(environment)
            if options.actions != false {
                options.listener = listener
                options.listenerEnvironment = ["DATEBOOK_STORE": storePath]
            }
            var channel = channel
            channel.kind = .desktop(options)
            return channel
        }
        return config
    }

    /// This program, for the detached listener (`/proc/self/exe`, else argv[0]).
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first ?? "datebook" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
