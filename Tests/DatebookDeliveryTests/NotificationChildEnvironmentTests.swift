import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookDelivery

/// Issue 30: notify-send never gets the store's location (a PostgreSQL URL may hold a password);
/// the listener that acts on the clicks is given it explicitly.
struct NotificationChildEnvironmentTests {
    @Test func notifySendGetsNeitherTheStoreNorAWithheldVariableAndTheListenerGetsTheStore() throws {
        let folder = ScratchFolder("notify-env")
        let notifyOut = folder.path + "/notify-env.txt", listenerOut = folder.path + "/listener-env.txt"
        let fake = folder.path + "/notify-send"
        try "#!/bin/sh\nenv > \(notifyOut)\necho 7\n".write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let withheld = "DATEBOOK_TEST_WITHHELD_\(getpid())"
        setenv(withheld, "secret", 1)
        CommandRunner.withholdFromChildren(withheld)
        let store = "postgresql://ann:secret@db.example.org/team"
        let shown = try NotificationWatch.show([fake, "--print-id", "--", "Tea", "body"],
                                               listener: ["/bin/sh", "-c", "env > \(listenerOut).part && mv \(listenerOut).part \(listenerOut)"],
                                               listenerEnvironment: ["DATEBOOK_STORE": store])
        #expect(shown == .shown(id: "7"))
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: listenerOut), Date() < deadline { usleep(10_000) }
        let sent = try String(contentsOfFile: notifyOut, encoding: .utf8)
        #expect(!sent.contains("DATEBOOK_STORE=") && !sent.contains(withheld + "="), "\(sent)")
        let listener = try String(contentsOfFile: listenerOut, encoding: .utf8)
        #expect(listener.contains("DATEBOOK_STORE=" + store))
        #expect(!listener.contains(withheld + "="))
        #expect(CommandRunner.withheld.isSuperset(of: ["DATEBOOK_STORE", "PGPASSWORD"]))
    }
}
