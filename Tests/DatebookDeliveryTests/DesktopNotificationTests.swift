import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookDelivery

@Suite struct DesktopNotificationTests {
    @Test(arguments: [
        // (environment, sockets that exist, expected address)
        (["DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/x"], [], "unix:path=/tmp/x"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], ["/run/user/1000/bus"], "unix:path=/run/user/1000/bus"),
        ([:], ["/run/user/1000/bus"], "unix:path=/run/user/1000/bus"),
        (["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": ""], ["/run/user/1000/bus"], "unix:path=/run/user/1000/bus"),
    ] as [([String: String], [String], String)])
    func theSessionBusIsFoundWithoutDBUSSessionBusAddress(environment: [String: String], sockets: [String], address: String) throws {
        #expect(try SessionBus.address(environment: environment, uid: 1000, socketExists: { sockets.contains($0) }) == address)
    }

    @Test func withoutAnyBusTheErrorSaysWhyAndWhatToDo() {
        #expect(throws: ChannelError.unavailable(
            "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and /run/user/1000/bus does not exist; run datebook in "
                + "the desktop session (the systemd user units have the bus) or set "
                + "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus in the cron line while you are logged in")) {
            try SessionBus.address(environment: [:], uid: 1000, socketExists: { _ in false })
        }
    }

    @Test func markupIsEscapedAndOnlyMarkup() {
        #expect(DesktopNotification.escapeMarkup("Tom & Jerry <b>bold</b> \"q\" 'a' 🎂") == "Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt; \"q\" 'a' 🎂")
    }

    /// Options first, then `--`, then summary and body: a summary starting with a dash is text.
    @Test func argvEndsOptionsBeforeTheSummary() {
        var message = Fixtures.alert
        message.event?.title = "-u critical"
        message.event?.relativeWhen = "now"
        message.event?.leadSeconds = 0
        let options = DesktopOptions(expire: 300, command: "/usr/bin/notify-send")
        let argv = DesktopNotification(message, options: options).argv(options: options)
        #expect(argv == ["/usr/bin/notify-send", "--app-name=datebook", "--category=x-datebook.alert", "--urgency=critical",
                         "--icon=appointment-soon", "--hint=string:desktop-entry:datebook", "--expire-time=300000", "--",
                         "🎂 -u critical · now", "\nCafé Zoë, Hauptstraße 1"])
    }

    @Test(arguments: [(0, DesktopUrgency.critical), (900, .critical), (901, .normal), (86_400, .normal), (86_401, .low)])
    func autoUrgencyFollowsTheLeadTime(lead: Int, urgency: DesktopUrgency) {
        var message = Fixtures.alert
        message.event?.leadSeconds = lead
        #expect(DesktopUrgency.auto.level(for: message) == urgency)
    }

    @Test func commandChannelOffersTheBodyEscapedAsBodyMarkup() {
        var message = Fixtures.alert
        message.text = "Tom & Jerry <b>"
        #expect(CommandRunner.expand(["{{body}}", "{{bodyMarkup}}"], with: message) == ["Tom & Jerry <b>", "Tom &amp; Jerry &lt;b&gt;"])
        #expect(CommandRunner.environment(for: message)["DATEBOOK_BODY_MARKUP"] == "Tom &amp; Jerry &lt;b&gt;")
    }

    @Test func capabilitiesAreReadFromDbusSendAndGdbusReplies() {
        let dbusSend = "method return time=1.2 sender=:1.3 -> destination=:1.4 serial=4 reply_serial=2\n"
            + "   array [\n      string \"body\"\n      string \"actions\"\n   ]\n"
        #expect(SessionBus.quotedWords(dbusSend) == ["body", "actions"])
        #expect(SessionBus.quotedWords("(['body', 'body-markup', 'actions'],)\n") == ["body", "body-markup", "actions"])
        #expect(SessionBus.quotedWords("([],)\n").isEmpty)
    }

    /// The real query (dbus-send) against the scripted server: what it advertises, or nothing
    /// when no one serves notifications on the bus.
    @Test(arguments: [
        (true, ["body", "actions"], ["body", "actions"]),
        (true, ["body"], ["body"]),
        (false, ["body", "actions"], []),
    ] as [(Bool, [String], Set<String>)])
    func theServersCapabilitiesAreAskedOnTheBus(server: Bool, advertised: [String], expected: Set<String>) throws {
        let bus = try NotificationBus(server: server, capabilities: advertised)
        defer { bus.stop() }
        #expect(SessionBus.capabilities(address: bus.address) == expected)
    }

    /// notify-send with buttons waits until its notification closes; a daemon that restarted
    /// never says so. With a lifetime, the small waiter ends notify-send (and itself) when it is
    /// over: here a real notify-send on a private bus whose server never closes the notification.
    /// The lifetime leaves room for the two scans of /proc on a loaded machine (with 3 s, one
    /// clean-clone CI run found the waiter already gone).
    @Test func aNotifySendLeftWaitingEndsWhenItsLifetimeIsOver() throws {
        let waiter = repositoryRoot.appendingPathComponent(".build/debug/datebook-notify-wait").path
        try #require(FileManager.default.isExecutableFile(atPath: waiter), "build the waiter first: swift build")
        let bus = try NotificationBus()
        defer { bus.stop() }
        let summary = "lifetime-" + UUID().uuidString
        let shown = try NotificationWatch.show(["notify-send", "--print-id", "--action=done=Done", "--", summary, "body"],
                                               listener: [waiter, "/bin/echo"], lifetime: 15,
                                               environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard case .shown(let id) = shown else {
            Issue.record("not shown: \(shown)")
            return
        }
        defer { bus.close(Int(id) ?? 0) }  // should the bound fail, the notification's close ends both
        let sender = Self.processes { command, _ in command.contains(summary) }
        try #require(sender.count == 1, "notify-send waits for the click")
        let listener = Self.processes { _, environment in environment.contains("DATEBOOK_NOTIFY_PID=\(sender[0])") }
        #expect(listener.count == 1, "the waiter was told notify-send's pid")
        #expect(Self.eventually(seconds: 45) { (sender + listener).allSatisfy(Self.ended) }, "both end once the lifetime is over")
        #expect(try bus.notifications().count == 1)
    }

    /// Processes whose command line and environment (NUL-separated) satisfy `matches`.
    static func processes(_ matches: (String, String) -> Bool) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry), let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { return nil }
            return matches(String(decoding: command, as: UTF8.self), String(decoding: environment, as: UTF8.self)) && !ended(pid) ? pid : nil
        }
    }

    /// Gone, or a zombie not yet reaped.
    static func ended(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(seconds: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// A right-to-left task keeps its box at the start of the line: its text is isolated
    /// (FSI … PDI), so the line has no strong direction but the box's; left-to-right lines stay as they are.
    @Test(arguments: [
        ("[ ] إحضار البطاقة", "[ ] \u{2068}إحضار البطاقة\u{2069}"),
        ("[~] הזמנת מונית", "[~] \u{2068}הזמנת מונית\u{2069}"),
        ("[ ] Bring card", "[ ] Bring card"),
        ("[ ] 日本語", "[ ] 日本語"),
    ])
    func aRightToLeftTaskLineKeepsItsBoxAtTheStart(line: String, shown: String) {
        #expect(DesktopNotification.isolatingTaskText(line) == shown)
    }
}
