import DatebookTestSupport
import Foundation
import Testing

/// Issue 30: a child datebook starts (a command channel, notify-send) never gets the store's
/// location, whose PostgreSQL URL may hold a password, nor libpq's password, nor the variable the
/// config's `store: {env: …}` names.
struct ChildEnvironmentTests {
    @Test func noChildGetsTheStoreOrAPassword() throws {
        let folder = ScratchFolder("child-env")
        let directory = folder.path
        let hookOut = directory + "/hook-env.txt", notifyOut = directory + "/notify-env.txt"
        let fakeNotifySend = directory + "/notify-send"
        try "#!/bin/sh\nenv > \(notifyOut)\n".write(toFile: fakeNotifySend, atomically: true, encoding: .utf8)
        chmod(fakeNotifySend, 0o755)
        let config = directory + "/config.json5"
        try """
            { timeZone: "Europe/Berlin", store: { env: "TEAM_STORE" },
              channels: { hook: { type: "command", argv: ["/bin/sh", "-c", "env > \(hookOut)"] },
                          desktop: { type: "desktop", command: "\(fakeNotifySend)", actions: false } },
              alerts: { before: ["1h"], channels: ["hook", "desktop"] } }
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let store = directory + "/store.sqlite3"
        let environment = ["HOME": directory, "PATH": "/usr/bin:/bin", "DATEBOOK_CONFIG": config, "DATEBOOK_TZ": "Europe/Berlin",
                           "DATEBOOK_STORE": store, "TEAM_STORE": store, "PGPASSWORD": "pg-secret", "KEPT": "yes",
                           // notify-send (the fake) is run once a bus address is known; none answers there.
                           "DBUS_SESSION_BUS_ADDRESS": "unix:abstract=datebook-test-none"]
        let added = try runDatebook(["add", "Tea", "--at", "2026-12-01 10:00"], environment: environment)
        try #require(added.code == 0, "\(added.err)")
        let tick = try runDatebook(["tick", "--now", "2026-12-01T09:00:00+01:00"], environment: environment)
        try #require(tick.code == 0, "\(tick.out)\(tick.err)")
        for output in [hookOut, notifyOut] {
            // Once seen missing in a loaded full run with tick exiting 0: say what the tick printed.
            let written = try #require(FileManager.default.contents(atPath: output), "\(output) not written; tick said: \(tick.out)\(tick.err)")
            let variables = String(decoding: written, as: UTF8.self).split(separator: "\n").map { $0.prefix { $0 != "=" } }
            #expect(variables.contains("KEPT"), "\(output): the rest of the environment is inherited")
            for withheld in ["DATEBOOK_STORE", "TEAM_STORE", "PGPASSWORD"] {
                #expect(!variables.contains(Substring(withheld)), "\(output) got \(withheld)")
            }
        }
    }
}
