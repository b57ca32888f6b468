import DatebookDelivery
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

@testable import DatebookRender

@Suite struct DispatcherTests {
    /// Unset `actions`: buttons (await-notification) only when the server offers `actions`; set: as set, unasked.
    @Test(arguments: [
        (nil, ["actions"], true), (nil, ["body"], false), (false, ["actions"], false), (true, ["body"], true),
    ] as [(Bool?, Set<String>, Bool)])
    func dispatchAsksTheCapabilitiesOnlyWhenActionsIsUnset(actions: Bool?, capabilities: Set<String>, buttons: Bool) throws {
        var options = DesktopOptions(actions: actions)
        options.listener = ["/usr/bin/datebook"]
        var dispatcher = Dispatcher(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/bus"], now: Date(), timeZone: .gmt)
        let asked = Mutex(0)
        dispatcher.desktopCapabilities = { _ in
            asked.withLock { $0 += 1 }
            return capabilities
        }
        var message = Fixtures.alert
        message.event?.occurrenceStart = "2026-12-01T17:00:00Z"
        let step = try dispatcher.prepare(message, for: Channel(name: "desk", kind: .desktop(options)))
        guard case .notification(let argv, _, _) = step else { Issue.record("not a notification: \(step)"); return }
        #expect(argv.contains("await-notification") == buttons)
        #expect(argv.contains("--action=done=Done") == buttons)
        #expect(asked.withLock { $0 } == (actions == nil ? 1 : 0))
    }
}
