import Foundation

/// How urgent a desktop notification is (the spec's `urgency` hint: 0 low, 1 normal, 2 critical).
public enum DesktopUrgency: String, Sendable, Equatable, CaseIterable {
    case low, normal, critical
    /// By the alert's lead time: critical within 15 minutes, normal within a day, low beyond.
    case auto

    /// The level for one message: `auto` decides by the lead time (digests and tests: normal).
    func level(for message: OutgoingMessage) -> DesktopUrgency {
        guard self == .auto else { return self }
        guard message.kind == .alert, let lead = message.event?.leadSeconds else { return .normal }
        return lead <= 15 * 60 ? .critical : lead <= 86_400 ? .normal : .low
    }
}

/// The settings of a `desktop` channel.
public struct DesktopOptions: Sendable, Equatable {
    public var urgency: DesktopUrgency
    /// How long the notification stays; nil leaves it to the notification daemon.
    public var expire: TimeInterval?
    /// An icon name from the icon theme or a file path; nil picks one by the message kind.
    public var icon: String?
    /// Done and Snooze buttons; nil (not in the config): when the notification server advertises
    /// the `actions` capability.
    public var actions: Bool?
    /// The notify-send compatible program (argv[0], searched in PATH).
    public var command: String
    /// The datebook invocation that awaits the buttons (executable and global options), filled in
    /// by the CLI; empty: no buttons.
    public var listener: [String] = []
    /// What the listener is told through its environment, not its command line (which `ps` shows
    /// every user): the store's location, whose URL may hold a password. Filled in by the CLI.
    public var listenerEnvironment: [String: String] = [:]
    /// Where icon themes are looked for (`$XDG_DATA_DIRS`), filled in by the CLI; empty: no
    /// per-event icon, `appointment-soon` for every alert.
    public var iconDirectories: [String] = []

    public init(urgency: DesktopUrgency = .auto, expire: TimeInterval? = nil, icon: String? = nil,
                actions: Bool? = nil, command: String = "notify-send") {
        self.urgency = urgency
        self.expire = expire
        self.icon = icon
        self.actions = actions
        self.command = command
    }
}

/// One desktop notification as notify-send gets it: a plain-text summary and a body in which every
/// piece of event text is escaped for the markup notification daemons read (Pango/HTML subset).
public struct DesktopNotification: Sendable, Equatable {
    /// `🔨 Dentist · in 1 h`: plain text (the spec shows the summary as is).
    public var summary: String
    /// The time (unless the summary has it), the place if any, the open tasks; markup-escaped,
    /// without the title.
    public var body: String
    public var urgency: DesktopUrgency
    public var category: String
    public var icon: String
    /// The Done and Snooze buttons (`done=Done`), labelled in the reader's language.
    public var actions: [String]

    public init(_ message: OutgoingMessage, options: DesktopOptions) {
        urgency = options.urgency.level(for: message)
        actions = NotificationWatch.actions(message.labels)
        category = "x-datebook." + message.kind.rawValue
        if message.kind == .alert, let event = message.event {
            let title = event.symbol.isEmpty ? event.title : event.symbol + " " + event.title
            summary = Self.singleLine(event.relativeWhen.isEmpty ? title : title + " · " + event.relativeWhen)
            // The time is said once: `send alert` has no lead, so its summary already carries the
            // time itself (`relativeWhen` is then `when`), and the body leaves it out.
            var lines = !event.when.isEmpty && event.relativeWhen == event.when ? [] : [event.when]
            if !event.location.isEmpty { lines.append(event.location) }
            if !event.openTaskLines.isEmpty {
                lines.append((message.labels.openTaskCount.isEmpty ? "\(event.openTaskLines.count) open tasks" : message.labels.openTaskCount) + ":")
                lines += event.openTaskLines.map(Self.isolatingTaskText)
            }
            body = lines.map(Self.escapeMarkup).joined(separator: "\n")
            icon = options.icon ?? DesktopIcons.icon(forSymbol: event.symbol, dataDirectories: options.iconDirectories)
        } else {
            summary = Self.singleLine(message.displayTitle)
            body = Self.escapeMarkup(message.text)
            icon = options.icon ?? "x-office-calendar"
        }
    }

    /// `[ ] إحضار البطاقة` with the task's text in a first-strong isolate (U+2068 … U+2069) when it
    /// holds right-to-left letters: the line's own direction then comes from nothing but the box,
    /// so the box stays at the line's start where the reader expects it, instead of following
    /// the text to the other end.
    static func isolatingTaskText(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: isRightToLeft), line.count > 4 else { return line }
        let mark = line.prefix(4)  // `[ ] ` or `[~] `
        return mark + "\u{2068}" + line.dropFirst(4) + "\u{2069}"
    }

    /// A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko, … and their
    /// presentation forms).
    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
        default: false
        }
    }

    /// `&`, `<`, `>` as entities: event text never formats, links or breaks a notification.
    public static func escapeMarkup(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    static func singleLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// notify-send's argv: options first, then `--`, so a summary starting with a dash stays text.
    /// With `buttons`, `-p` (print the id) and the Done and Snooze actions.
    public func argv(options: DesktopOptions, buttons: Bool = false) -> [String] {
        var argv = [options.command, "--app-name=datebook", "--category=" + category, "--urgency=" + urgency.rawValue,
                    "--icon=" + icon, "--hint=string:desktop-entry:datebook"]
        if let expire = options.expire { argv.append("--expire-time=\(Int(expire * 1000))") }
        if buttons { argv += ["--print-id"] + actions.flatMap { ["--action=" + $0] } }
        return argv + ["--", summary, body]
    }

    /// Whether buttons could go on this message: an alert of an occurrence, with a listener to
    /// await the click, on a channel whose `actions` is not false.
    public static func canHaveButtons(_ message: OutgoingMessage, options: DesktopOptions) -> Bool {
        options.actions != false && !options.listener.isEmpty && message.kind == .alert
            && !(message.event?.occurrenceStart.isEmpty ?? true)
    }

    /// The whole step's argv: notify-send alone, or, with `buttons` (where `canHaveButtons`), under
    /// `datebook await-notification` (which returns once the notification is shown and leaves a
    /// listener for the click).
    public static func command(_ message: OutgoingMessage, options: DesktopOptions, channel: String, buttons: Bool) -> [String] {
        let notification = DesktopNotification(message, options: options)
        guard buttons, canHaveButtons(message, options: options), let event = message.event else {
            return notification.argv(options: options)
        }
        return options.listener + ["await-notification", "--event", event.id, "--occurrence", event.occurrenceStart,
                                   "--channel", channel, "--lifetime", String(Int(waitLifetime(message, options: options))), "--"]
            + notification.argv(options: options, buttons: true)
    }

    /// How long notify-send may wait for a click on the buttons: the notification's own expiry
    /// and a minute's grace; without one (the daemon's default, perhaps kept in its history) until
    /// an hour after the event starts. A daemon that restarted never reports the notification
    /// closed, and notify-send would wait for the rest of the session.
    public static func waitLifetime(_ message: OutgoingMessage, options: DesktopOptions) -> TimeInterval {
        if let expire = options.expire, expire > 0 { return expire + 60 }
        return TimeInterval(max(0, message.event?.leadSeconds ?? 0) + 3600)
    }
}

/// Where the user's session bus is when the environment does not say (cron).
public enum SessionBus {
    /// `DBUS_SESSION_BUS_ADDRESS` when set; else `unix:path=$XDG_RUNTIME_DIR/bus` (or
    /// `/run/user/UID/bus`) when that socket exists.
    /// - Throws: `ChannelError.unavailable` saying why there is no bus and what to do.
    public static func address(environment: [String: String], uid: UInt32,
                               socketExists: (String) -> Bool = SessionBus.isSocket) throws -> String {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(uid)"
        let path = runtime + "/bus"
        guard socketExists(path) else {
            throw ChannelError.unavailable(
                "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and \(path) does not exist; run datebook in the "
                    + "desktop session (the systemd user units have the bus) or set "
                    + "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/\(uid)/bus in the cron line while you are logged in")
        }
        return "unix:path=" + path
    }

    /// The notification server's capabilities (`GetCapabilities`: `actions`, `body-markup`, …) on
    /// the bus at `address`, asked by `dbus-send` (else `gdbus`) within `timeout`; empty when
    /// neither program, no server or no answer.
    public static func capabilities(address: String, timeout: TimeInterval = 2) -> Set<String> {
        let environment = ["DBUS_SESSION_BUS_ADDRESS": address]
        let runner = CommandRunner(timeout: timeout, grace: 0.5)
        let queries = [
            ["dbus-send", "--session", "--print-reply", "--reply-timeout=\(Int(timeout * 1000))",
             "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
             "org.freedesktop.Notifications.GetCapabilities"],
            ["gdbus", "call", "--session", "--timeout", "\(Int(timeout.rounded(.up)))", "--dest", "org.freedesktop.Notifications",
             "--object-path", "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetCapabilities"],
        ]
        for query in queries {
            guard let result = try? runner.run(query, environment: environment) else { continue }  // not installed
            return result.succeeded ? quotedWords(String(decoding: result.stdout, as: UTF8.self)) : []
        }
        return []
    }

    /// The quoted strings of a reply: dbus-send's `string "actions"` lines, gdbus's `(['actions', 'body'],)`.
    static func quotedWords(_ reply: String) -> Set<String> {
        var words: Set<String> = []
        var current: String?
        var quote: Character = "\""
        for character in reply {
            if var word = current {
                if character == quote {
                    words.insert(word)
                    current = nil
                } else {
                    word.append(character)
                    current = word
                }
            } else if character == "\"" || character == "'" {
                quote = character
                current = ""
            }
        }
        return words
    }

    public static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}

/// Runs notify-send and reads how it ended: shown (exit 0), no notification server or no bus yet
/// (transient: the user may log in later), or a program that is missing or refused the call.
enum DesktopOutcome {
    static func of(_ argv: [String], environment: [String: String], timeout: TimeInterval) -> DeliveryOutcome {
        let program = argv.first ?? ""
        let result: CommandResult
        do {
            result = try CommandRunner(timeout: timeout).run(argv, environment: environment)
        } catch .spawnFailed(_, let code) where code == ENOENT {
            return .transport(TransportError(kind: .setupFailed, destination: program,
                                             detail: "desktop channel: '\(program)' not found; install libnotify-bin "
                                                 + "(Debian) or set the channel's command"))
        } catch {
            return .transport(TransportError(kind: .setupFailed, destination: program, detail: "\(error)"))
        }
        guard !result.succeeded, !result.timedOut else { return .command(result) }
        let stderr = String(decoding: result.stderr.prefix(400), as: UTF8.self)
        let line = stderr.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let bus = environment["DBUS_SESSION_BUS_ADDRESS"] ?? "the session bus"
        if stderr.contains("org.freedesktop.DBus.Error.ServiceUnknown") || stderr.contains("NoServer") {
            return .transport(TransportError(kind: .connectionFailed, destination: bus,
                                             detail: "no notification server on the session bus (is the desktop session running?): " + line))
        }
        if result.termination == .exited(127), stderr.contains("No such file or directory") {
            return .transport(TransportError(kind: .setupFailed, destination: program,
                                             detail: "desktop channel: \(line); install libnotify-bin (Debian) or set the channel's command"))
        }
        if stderr.contains("Could not connect") || stderr.contains("Cannot autolaunch") {
            return .transport(TransportError(kind: .connectionFailed, destination: bus,
                                             detail: "cannot reach the session bus: " + line))
        }
        return .command(result)
    }
}
