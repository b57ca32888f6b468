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
}
