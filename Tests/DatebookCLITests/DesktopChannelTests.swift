import DatebookTestSupport
import Foundation
import Testing

/// The `desktop` channel against a real stack: a private `dbus-daemon --session`, the scripted
/// notification server of `notification_server.py` on it, and Debian's notify-send.
@Suite(.serialized) struct DesktopChannelTests {
    /// `actions: false`: these tests run datebook in this process, whose executable (the test
    /// runner) cannot be the buttons' listener; the buttons' tests spawn the built binary.
    static let config = """
        { channels: { desk: { type: "desktop", actions: false } }, alerts: { channels: ["desk"], lateness: "6h" } }
        """

    /// One event at 10:00 with a 1 h alert, ticked at 09:00 in a fresh sandbox with this `environment`.
    static func tick(title: String, tasks: [String] = [], location: String? = nil, environment: [String: String]) throws -> (Sandbox, CLIRun) {
        let sandbox = Sandbox()
        var add = ["add", "--at", "2026-11-30 10:00", "--alert", "1h", "--symbol", "hammer.fill"]
        for task in tasks { add += ["--task", task] }
        if let location { add += ["--location", location] }
        let added = sandbox.run(add + ["--", title])
        #expect(added.code == 0, "\(added.err)")
        let config = try sandbox.writeConfig(Self.config)
        return (sandbox, sandbox.run(["--config", config, "tick"], environment: environment))
    }

    @Test(arguments: [
        ("Dentist", [], nil, "🔨 Dentist · in 1 h", "Mon 2026-11-30 10:00 (Europe/Berlin)"),
        ("Tom & Jerry <b>bold</b>", ["Bring <i>card</i> & ID"], nil, "🔨 Tom & Jerry <b>bold</b> · in 1 h",
         "Mon 2026-11-30 10:00 (Europe/Berlin)\n1 open task:\n[ ] Bring &lt;i&gt;card&lt;/i&gt; &amp; ID"),
        ("🎂 Party 🎉", ["Buy 🎁"], "Café <Zoë>", "🔨 🎂 Party 🎉 · in 1 h",
         "Mon 2026-11-30 10:00 (Europe/Berlin)\nCafé &lt;Zoë&gt;\n1 open task:\n[ ] Buy 🎁"),
        ("موعد طبيب الأسنان", ["إحضار البطاقة", "حجز سيارة"], nil, "🔨 موعد طبيب الأسنان · in 1 h",
         "Mon 2026-11-30 10:00 (Europe/Berlin)\n2 open tasks:\n[ ] \u{2068}إحضار البطاقة\u{2069}\n[ ] \u{2068}حجز سيارة\u{2069}"),
        ("-u critical", [], nil, "🔨 -u critical · in 1 h", "Mon 2026-11-30 10:00 (Europe/Berlin)"),
        ("--help", [], nil, "🔨 --help · in 1 h", "Mon 2026-11-30 10:00 (Europe/Berlin)"),
    ] as [(String, [String], String?, String, String)])
    func summaryAndBodyArriveExactlyWithEventTextEscapedInTheBody(
        title: String, tasks: [String], location: String?, summary: String, body: String
    ) throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let (_, run) = try Self.tick(title: title, tasks: tasks, location: location, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(run.code == 0, "\(run.err)")
        let received = try bus.waitForNotifications(1)
        try #require(received.count == 1)
        #expect(received[0]["summary"] as? String == summary)
        #expect(received[0]["body"] as? String == body)
        #expect(received[0]["app_name"] as? String == "datebook")
        #expect(received[0]["app_icon"] as? String == "appointment-soon")
        let hints = try #require(received[0]["hints"] as? [String: Any])
        #expect(hints["category"] as? String == "x-datebook.alert")
        #expect(hints["desktop-entry"] as? String == "datebook")
        #expect(hints["urgency"] as? Int == 1)  // auto: a 1 h lead is normal
    }

    /// `send alert` has no lead time, so its summary carries the title and the start: the body
    /// does not say the time again (a ticked alert's summary says `in 1 h`, its body the time).
    @Test func sendAlertSaysTheTimeOnceInTheSummaryAndNotAgainInTheBody() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        let added = sandbox.run(["add", "--at", "2026-11-30 10:00", "--symbol", "hammer.fill", "--location", "Clinic",
                                 "--task", "Bring card", "--", "Dentist"])
        #expect(added.code == 0, "\(added.err)")
        let config = try sandbox.writeConfig(Self.config)
        let run = sandbox.run(["--config", config, "send", "alert", "Dentist", "--channel", "desk"],
                              environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(run.code == 0, "\(run.err)")
        let received = try bus.waitForNotifications(1)
        try #require(received.count == 1)
        let summary = try #require(received[0]["summary"] as? String)
        let body = try #require(received[0]["body"] as? String)
        #expect(summary == "🔨 Dentist · Mon 2026-11-30 10:00 (Europe/Berlin)")
        #expect(body == "Clinic\n1 open task:\n[ ] Bring card")
        #expect((summary + "\n" + body).components(separatedBy: "10:00").count - 1 == 1)
    }

    /// An alert's icon fits its event where an installed theme has such an icon (the hammer's
    /// `applications-engineering` here), and is `appointment-soon` where none does.
    @Test func theIconFitsTheEventWhereAThemeHasOne() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let share = makeScratchFolder("icons")
        defer { removeScratchFolder(share) }
        let folder = share + "/icons/hicolor/scalable/categories"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/applications-engineering.svg", contents: Data("<svg/>".utf8)))
        #expect(FileManager.default.createFile(atPath: folder + "/camera-photo-symbolic.svg", contents: Data("<svg/>".utf8)))
        let (_, themed) = try Self.tick(title: "Fix the shelf", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                                               "XDG_DATA_DIRS": share])
        #expect(themed.code == 0, "\(themed.err)")
        let (_, plain) = try Self.tick(title: "Dentist", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(plain.code == 0, "\(plain.err)")
        let received = try bus.waitForNotifications(2)
        try #require(received.count == 2)
        #expect(received.map { $0["app_icon"] as? String } == ["applications-engineering", "appointment-soon"])
    }

    /// A title that long only comes from someone else's calendar (`add` refuses more than
    /// `Limits.titleBytes`; an import cuts it to that with a warning).
    @Test func aTenThousandCharacterTitleIsCutTo200ColumnsInTheSummary() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        let calendar = sandbox.home + "/long.ics"
        try ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other//EN\r\nBEGIN:VEVENT\r\nUID:long@example.org\r\n"
             + "DTSTART;TZID=Europe/Berlin:20261130T100000\r\nSUMMARY:" + String(repeating: "x", count: 10_000) + "\r\n"
             + "X-DATEBOOK-SYMBOL:hammer.fill\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT1H\r\nEND:VALARM\r\n"
             + "END:VEVENT\r\nEND:VCALENDAR\r\n").write(toFile: calendar, atomically: true, encoding: .utf8)
        let imported = sandbox.run(["import", calendar])
        #expect(imported.code == 0 && imported.err.contains("SUMMARY was 10000 bytes long; cut to 1000 bytes"), "\(imported.err)")
        let config = try sandbox.writeConfig(Self.config)
        let run = sandbox.run(["--config", config, "tick"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(run.code == 0, "\(run.err)")
        let received = try bus.waitForNotifications(1)
        try #require(received.count == 1)
        #expect(received[0]["summary"] as? String == "🔨 " + String(repeating: "x", count: 199) + "… · in 1 h")
        #expect(received[0]["body"] as? String == "Mon 2026-11-30 10:00 (Europe/Berlin)")
    }

    /// The test bus activates nothing: a notification daemon's service file where the stock session
    /// config looks (`$XDG_DATA_DIRS/dbus-1/services`, as dunst, mako or xfce4-notifyd install one)
    /// is never run, and the tick reaches "no notification server" instead of waiting on a daemon.
    @Test func theTestBusNeverStartsANotificationDaemonInstalledOnTheMachine() throws {
        let share = ScratchFolder("services")
        let services = share.file("dbus-1/services")
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        let marker = share.file("daemon-was-started")
        try """
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=/usr/bin/touch \(marker)

            """.write(toFile: services + "/org.freedesktop.Notifications.service", atomically: true, encoding: .utf8)
        let bus = try NotificationBus(server: false, environment: ["XDG_DATA_DIRS": share.path, "XDG_DATA_HOME": share.path])
        defer { bus.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h"])
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop" } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let tick = sandbox.run(["--config", config, "tick"],
                               environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_DIRS": share.path])
        #expect(tick.code == 75, "\(tick.err)")
        #expect(tick.err.contains("no notification server on the session bus"), "\(tick.err)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the bus started the service file's Exec")
    }

    /// Each way of not reaching a notification server leaves a `failed` row whose reason says
    /// which, and `status` shows it; a bus without a server is retried first (the session may
    /// start later), until the delivery's deadline 6 h on.
    @Test(arguments: [
        ("no server", "no notification server on the session bus"),
        ("no bus", "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and"),
        ("no notify-send", "'datebook-no-such-notify-send' not found; install libnotify-bin"),
    ])
    func anUnreachableNotificationServerIsAFailedRowWithItsReason(_ situation: String, reason: String) throws {
        let bus = try NotificationBus(server: false)
        defer { bus.stop() }
        var sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h"])
        let command = situation == "no notify-send" ? ", command: \"datebook-no-such-notify-send\"" : ""
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop"\(command) } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        var environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        if situation == "no bus" { environment = ["XDG_RUNTIME_DIR": sandbox.home + "/run"] }
        let tick = sandbox.run(["--config", config, "tick"], environment: environment)
        if situation == "no server" {
            #expect(tick.code == 75, "\(tick.err)")
            #expect(tick.err.contains(reason + " (is the desktop session running?)"), "\(tick.err)")
            sandbox.now = "2026-11-30 15:30"
            // The pass that gives the delivery up at its deadline says so (issue 27).
            #expect(sandbox.run(["--config", config, "tick"], environment: environment).code == 69)
        }
        let status = sandbox.run(["--config", config, "status"], environment: environment)
        #expect(status.code == 1)
        let failed = status.out.split(separator: "\n").filter { $0.contains("  failed  alert 'Dentist' (1h before) to desk: ") }
        #expect(failed.count == 1 && failed[0].contains(reason), "\(status.out)")
        #expect(try bus.notifications().isEmpty)
    }

    /// With no notification server on the bus, notify-send with buttons prints the id `0` and
    /// then fails (ServiceUnknown, exit 1): the real binary, buttons asked for (`actions: true`)
    /// or left to the server (unset), reports the failure (exit 75), leaves no listener, and the
    /// delivery is retried and ends `failed` with the reason, never `sent`.
    @Test(arguments: [true, nil] as [Bool?])
    func withoutANotificationServerAnAlertWithOrWithoutButtonsIsNotSent(actions: Bool?) throws {
        let bus = try NotificationBus(server: false)
        defer { bus.stop() }
        var sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card"])
        let setting = actions.map { ", actions: \($0)" } ?? ""
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop"\(setting) } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let environment = ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address]
        func tick() throws -> (Int32, String) {
            try Self.spawnDatebook(["--store", sandbox.store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
                                   environment: environment)
        }
        let (first, stderr) = try tick()
        #expect(first == 75, "\(stderr)")
        #expect(stderr.contains("no notification server on the session bus"), "\(stderr)")
        #expect(Self.listeners(of: sandbox.store).isEmpty, "no listener waits for a notification never shown")
        let sent = sandbox.run(["--config", config, "status", "--days", "1"], environment: environment).out
        #expect(sent.contains("alert 'Dentist' (1h before) to desk (retry after 1 attempts: attempt 1 failed: "), "\(sent)")
        #expect(sent.hasSuffix("Sent in the last 1 days, newest first (by scheduler host:pid):\n  (nothing)\n"), "\(sent)")
        sandbox.now = "2026-11-30 15:30"
        _ = try tick()
        let status = sandbox.run(["--config", config, "status"], environment: environment)
        let failed = status.out.split(separator: "\n").filter { $0.contains("  failed  alert 'Dentist' (1h before) to desk: ") }
        #expect(failed.count == 1 && failed[0].contains("no notification server on the session bus"), "\(status.out)")
        #expect(try bus.notifications().isEmpty)
    }

    @Test func addHelpSaysADashLeadingTitleGoesAfterAFinalDoubleDash() {
        let help = Sandbox().run(["add", "--help"])
        #expect(help.out.contains("add --at WHEN -- \"-u critical\""), "\(help.out)")
    }

    /// cron runs `datebook tick` without DBUS_SESSION_BUS_ADDRESS: the real binary, spawned with
    /// nothing but HOME, PATH and the runtime directory, finds the bus by its `$XDG_RUNTIME_DIR/bus`
    /// socket. (`/run/user/UID/bus`, the fallback without XDG_RUNTIME_DIR, is covered by
    /// `DesktopNotificationTests`; a test does not create sockets under /run.)
    @Test func tickWithACronEnvironmentReachesTheSessionBusByItsRuntimeDirectorySocket() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--symbol", "hammer.fill"])
        let config = try sandbox.writeConfig(Self.config)
        let (status, stderr) = try Self.spawnDatebook(["--store", sandbox.store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
                                                      environment: ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": bus.directory.path])
        #expect(status == 0, "\(stderr)")
        let received = try bus.waitForNotifications(1)
        #expect(received.map { $0["summary"] as? String } == ["🔨 Dentist · in 1 h"])
    }

    @Test func doneMarksEveryOpenTaskDoneAndSaysWhenThereIsNone() {
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--task", "Card", "--task", "ID", "--task", "Coat"])
        sandbox.run(["task", "done", "Dentist", "1"])
        let done = sandbox.run(["done", "Dentist"])
        #expect(done.code == 0, "\(done.err)")
        #expect(done.out.hasSuffix(" Dentist\n") && done.out.hasPrefix("2 tasks done ✓ "), "\(done.out)")
        #expect(sandbox.run(["tasks", "--status", "open"]).out.contains("ID") == false)
        #expect(sandbox.run(["done", "Dentist"]).out.hasPrefix("nothing to do: "))
    }

    /// A snooze is a ledger row of its own: `status` lists it, and the pass at that moment sends
    /// the alert again (without a lead time, so the summary says when the event is).
    @Test func snoozeSendsTheAlertAgainAtThatMoment() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        var sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--symbol", "hammer.fill"])
        let config = try sandbox.writeConfig(Self.config)
        let snooze = sandbox.run(["--config", config, "snooze", "Dentist", "--for", "30m"])
        #expect(snooze.code == 0, "\(snooze.err)")
        #expect(snooze.out.hasSuffix(" Dentist until Mon 2026-11-30 09:30 (to desk)\n"), "\(snooze.out)")
        let status = sandbox.run(["--config", config, "status"])
        #expect(status.out.contains("  Mon 2026-11-30 09:30  alert 'Dentist' (snoozed) to desk\n"), "\(status.out)")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        sandbox.now = "2026-11-30 09:29"
        #expect(sandbox.run(["--config", config, "tick"], environment: environment).code == 0)
        #expect(try bus.notifications().isEmpty)
        sandbox.now = "2026-11-30 09:30"
        #expect(sandbox.run(["--config", config, "tick"], environment: environment).code == 0)
        let received = try bus.waitForNotifications(1)
        #expect(received.map { $0["summary"] as? String } == ["🔨 Dentist · Mon 2026-11-30 10:00 (Europe/Berlin)"])
    }

    @Test(arguments: [
        (["--for", "1h", "--until", "10:00"], "give --for or --until, not both"),
        (["--until", "08:00"], "--until 08:00 is not in the future; give a later WHEN"),
        (["--for", "soon"], "cannot read alert lead time 'soon'"),
    ])
    func snoozeRefusesUnclearMoments(_ options: [String], message: String) throws {
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00"])
        let config = try sandbox.writeConfig(Self.config)
        let run = sandbox.run(["--config", config, "snooze", "Dentist"] + options)
        #expect(run.code == 64)
        #expect(run.err.contains(message), "\(run.err)")
    }

    /// The built binary (not this test process): the buttons' listener is a datebook process.
    static func spawnDatebook(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = repositoryRoot.appendingPathComponent(".build/debug/datebook")
        process.arguments = arguments
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// The buttons' listeners of one sandbox's store: processes awaiting a notification whose
    /// environment names `store` (the store is never on a command line).
    /// (One whose command line names the store is found too, so a test can say it should not.)
    static func listeners(of store: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  case let command = String(decoding: data, as: UTF8.self), command.contains("\0await-notification\0"),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { return nil }
            let named = String(decoding: environment, as: UTF8.self).split(separator: "\0").contains("DATEBOOK_STORE=" + store)
            return named || command.contains(store) ? pid : nil
        }
    }

    /// `ps` shows every user each process's command line: a listener awaiting the buttons of an
    /// alert from a PostgreSQL store gets the store's URL, password and all, only in its environment.
    @Test func theListenerOfAPostgreSQLStoreHasNoPasswordOnItsCommandLine() throws {
        let server = try TestPostgres.shared()
        let database = URL(string: try server.makeDatabase())?.lastPathComponent ?? ""
        let store = server.url(database: database, user: TestPostgres.passwordRole, password: TestPostgres.rightPassword)
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card"], storePath: store).code == 0)
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop", actions: true } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let (status, stderr) = try Self.spawnDatebook(
            ["--store", store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
            environment: ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(status == 0, "\(stderr)")
        let id = try #require(try bus.waitForNotifications(1).first?["id"] as? Int)
        let waiting = Self.listeners(of: store)
        try #require(waiting.count == 1)
        let command = String(decoding: FileManager.default.contents(atPath: "/proc/\(waiting[0])/cmdline") ?? Data(), as: UTF8.self)
        #expect(command.contains("await-notification"))
        #expect(!command.contains(TestPostgres.rightPassword), "\(command)")
        bus.invoke(id, action: "done")
        #expect(Self.eventually { Self.ended(waiting) }, "the listener exits")
        #expect(!sandbox.run(["tasks", "--status", "open"], storePath: store).out.contains("Card"), "the click reached the store")
    }

    /// Whether every one of `pids` has ended (gone, or a zombie not yet reaped). A pid, unlike a
    /// command line, stays the same while the waiter execs datebook.
    static func ended(_ pids: [Int32]) -> Bool {
        pids.allSatisfy { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// With `actions: true` the tick returns once the notification is shown (Done and Snooze
    /// buttons on it); a detached listener applies the click, or nothing when it expires, and exits.
    @Test(arguments: ["done", "snooze", "expire"])
    func buttonsAreAppliedByADetachedListener(_ answer: String) throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card", "--task", "ID"])
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop", actions: true } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let started = Date()
        let (status, stderr) = try Self.spawnDatebook(
            ["--store", sandbox.store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
            environment: ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(status == 0, "\(stderr)")
        #expect(Date().timeIntervalSince(started) < 30, "tick waited for the click")  // the click never comes
        let received = try bus.waitForNotifications(1)
        try #require(received.count == 1)
        #expect(received[0]["actions"] as? [String] == ["done", "Done", "snooze", "Snooze 1 h"])
        let id = try #require(received[0]["id"] as? Int)
        let listeners = Self.listeners(of: sandbox.store)
        #expect(listeners.count == 1, "one listener waits")
        switch answer {
        case "expire": bus.close(id, reason: 1)
        default: bus.invoke(id, action: answer)
        }
        #expect(Self.eventually { Self.ended(listeners) }, "the listener exits")
        let open = sandbox.run(["tasks", "--status", "open"]).out
        #expect(open.contains("Card") == (answer != "done"), "\(open)")
        let upcoming = sandbox.run(["--config", config, "status"]).out
        #expect(upcoming.contains("  Mon 2026-11-30 10:00  alert 'Dentist' (snoozed) to desk\n") == (answer == "snooze"), "\(upcoming)")
        let sent = sandbox.run(["--config", config, "status", "--days", "1"]).out
        #expect(sent.contains("(nothing: every delivery was sent on time)"), "\(sent)")
    }

    /// Without `actions` in the config the buttons follow the server's `actions` capability
    /// (GetCapabilities); an explicit `actions: false` wins over a server that offers them.
    @Test(arguments: [
        (nil, ["body", "body-markup", "actions"], true),
        (nil, ["body", "body-markup"], false),
        (false, ["body", "body-markup", "actions"], false),
        (true, ["body", "body-markup", "actions"], true),
    ] as [(Bool?, [String], Bool)])
    func buttonsFollowTheServersActionsCapabilityUnlessTheConfigSays(actions: Bool?, capabilities: [String], buttons: Bool) throws {
        let bus = try NotificationBus(capabilities: capabilities)
        defer { bus.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card"])
        let setting = actions.map { ", actions: \($0)" } ?? ""
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop"\(setting) } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let (status, stderr) = try Self.spawnDatebook(
            ["--store", sandbox.store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
            environment: ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(status == 0, "\(stderr)")
        let received = try bus.waitForNotifications(1)
        try #require(received.count == 1)
        #expect(received[0]["actions"] as? [String] == (buttons ? ["done", "Done", "snooze", "Snooze 1 h"] : []))
        let listeners = Self.listeners(of: sandbox.store)
        #expect(listeners.count == (buttons ? 1 : 0))
        if buttons, let id = received[0]["id"] as? Int { bus.close(id, reason: 2) }
        #expect(Self.eventually { Self.ended(listeners) }, "no listener stays")
    }

    /// The built C waiter (`Sources/datebook-notify-wait`), fed `input` on stdin, with `/bin/echo`
    /// in datebook's place: what it would run, or nothing.
    static func waiter(_ input: String, program: String = "/bin/echo") throws -> (Int32, String) {
        let process = Process()
        process.executableURL = repositoryRoot.appendingPathComponent(".build/debug/datebook-notify-wait")
        process.arguments = [program, "--store", "S", "await-notification", "--attached", "--answer"]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        if !input.isEmpty { stdin.fileHandleForWriting.write(Data(input.utf8)) }  // nothing to write: no SIGPIPE if it exits first
        try stdin.fileHandleForWriting.close()
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// The waiter runs datebook only for a line that is an action key, with the key as the last
    /// argument (an argv: no shell ever reads it); end of file runs nothing.
    @Test(arguments: [
        ("done\n", "--store S await-notification --attached --answer done\n"),
        ("snooze\n", "--store S await-notification --attached --answer snooze\n"),
        ("", ""),
        ("$(touch /tmp/x); rm -rf ~\n`id`\nDone\n", ""),
        ("warning: something\nsnooze\n", "--store S await-notification --attached --answer snooze\n"),
        (String(repeating: "a", count: 33) + "\n", ""),
    ])
    func theWaiterRunsDatebookOnlyForAnActionKey(_ input: String, ran: String) throws {
        let (status, output) = try Self.waiter(input)
        #expect(status == 0)
        #expect(output == ran)
    }

    @Test func theWaiterRefusesARelativeProgram() throws {
        #expect(try Self.waiter("", program: "echo").0 == 64)
    }

    /// While a notification with buttons is on screen, what stays is notify-send and the C waiter
    /// (issue 20: ≤ 10 MB RSS together; a waiting datebook alone was about 25 MB).
    @Test func whileTheNotificationIsOnScreenOnlyNotifySendAndTheSmallWaiterStay() throws {
        let bus = try NotificationBus()
        defer { bus.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "2026-11-30 10:00", "--alert", "1h", "--task", "Card"])
        let config = try sandbox.writeConfig("""
            { channels: { desk: { type: "desktop", actions: true } }, alerts: { channels: ["desk"], lateness: "6h" } }
            """)
        let (status, stderr) = try Self.spawnDatebook(
            ["--store", sandbox.store, "--config", config, "--now", sandbox.now, "--tz", sandbox.tz, "tick"],
            environment: ["HOME": sandbox.home, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(status == 0, "\(stderr)")
        let id = try #require(try bus.waitForNotifications(1).first?["id"] as? Int)
        let waiting = Self.listeners(of: sandbox.store)
        try #require(waiting.count == 1)
        #expect(WaitingProcesses.name(waiting[0]) == "datebook-notify-wait")
        let writers = WaitingProcesses.writers(toStdinOf: waiting[0])
        #expect(writers.map(WaitingProcesses.name) == ["notify-send"])
        let kilobytes = (waiting + writers).compactMap(WaitingProcesses.residentKilobytes).reduce(0, +)
        #expect(kilobytes > 0 && kilobytes <= 10 * 1024, "\(kilobytes) kB resident while waiting")
        bus.invoke(id, action: "done")
        #expect(Self.eventually { Self.ended(waiting) }, "the listener exits")
        #expect(!sandbox.run(["tasks", "--status", "open"]).out.contains("Card"))
    }
}
