import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookDelivery

@Suite struct CommandRunnerTests {
    static func injections(_ canary: String) -> [String] {
        ["$(touch \(canary))", "\"; touch \(canary) #", "`touch \(canary)`", "; touch \(canary)", "| touch \(canary)", "&& touch \(canary)"]
    }

    @Test func shellSyntaxInArgumentsIsInert() throws {
        let directory = URL(fileURLWithPath: makeScratchFolder("cmd"))
        defer { removeScratchFolder(directory.path) }
        defer { try? FileManager.default.removeItem(at: directory) }
        let canary = directory.appendingPathComponent("CANARY").path
        let injections = Self.injections(canary)
        var message = Fixtures.alert
        message.title = injections.joined(separator: " ")
        let argv = CommandRunner.expand(["/usr/bin/printf", "%s\\n", "{{title}}"] + injections, with: message)
        let result = try CommandRunner().run(argv, environment: CommandRunner.environment(for: message))
        #expect(result.succeeded)
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines == ["🎂 " + message.title] + injections)
        #expect(!FileManager.default.fileExists(atPath: canary))
    }

    @Test func environmentCarriesMessageAndOutputIsCaptured() throws {
        let result = try CommandRunner().run(
            ["sh", "-c", "printf '%s' \"$DATEBOOK_TITLE\"; printf 'oops' >&2; exit 3"],
            environment: CommandRunner.environment(for: Fixtures.canary))
        #expect(result.termination == .exited(3))
        #expect(String(decoding: result.stdout, as: UTF8.self) == "🎂 " + Fixtures.canaryTitle)
        #expect(String(decoding: result.stderr, as: UTF8.self) == "oops")
        #expect(!result.succeeded)
    }

    /// An alert's place and link reach a command as `{{location}}`/`{{url}}` and in its environment.
    @Test func locationAndLinkAreArgumentsAndEnvironment() throws {
        let argv = CommandRunner.expand(["/usr/bin/printf", "%s|%s|%s|%s\n", "{{location}}", "{{url}}",
                                         "$DATEBOOK_EVENT_LOCATION", "$DATEBOOK_EVENT_URL"], with: Fixtures.alert)
        #expect(Array(argv.suffix(4)) == ["Café Zoë, Hauptstraße 1", "https://example.org/events/evt-42",
                                          "$DATEBOOK_EVENT_LOCATION", "$DATEBOOK_EVENT_URL"])
        let result = try CommandRunner().run(["sh", "-c", "printf '%s|%s' \"$DATEBOOK_EVENT_LOCATION\" \"$DATEBOOK_EVENT_URL\""],
                                             environment: CommandRunner.environment(for: Fixtures.alert))
        #expect(String(decoding: result.stdout, as: UTF8.self) == "Café Zoë, Hauptstraße 1|https://example.org/events/evt-42")
    }

    /// A descriptor this process holds open without close-on-exec (a library's, or one another
    /// thread is handing to its own child) does not reach the command: only 0, 1 and 2 do.
    @Test func onlyTheStandardDescriptorsReachTheCommand() throws {
        let directory = makeScratchFolder("cmd-fds")
        defer { removeScratchFolder(directory) }
        let inherited = open(directory + "/held", O_WRONLY | O_CREAT, 0o600)
        #expect(inherited > 2)
        defer { close(inherited) }
        let result = try CommandRunner().run(["sh", "-c", "ls /proc/self/fd"])
        let listed = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        // ls's own directory descriptor aside (numbered from 3 once the others are gone).
        #expect(!listed.contains(inherited) || inherited == 3, "\(listed)")
        #expect(listed.filter { $0 > 2 }.count <= 1, "\(listed)")
    }

    @Test func timeoutSendsTermThenKill() throws {
        let start = Date()
        let result = try CommandRunner(timeout: 0.5, grace: 0.5).run(["sh", "-c", "trap '' TERM; sleep 30"])
        #expect(result.timedOut)
        #expect(result.termination == .signalled(SIGKILL))
        #expect(Date().timeIntervalSince(start) < 20)  // not killed, the command runs 30 s
    }

    @Test func timeoutTermIsEnoughForWellBehavedProgram() throws {
        let result = try CommandRunner(timeout: 0.3, grace: 5).run(["sleep", "30"])
        #expect(result.timedOut)
        #expect(result.termination == .signalled(SIGTERM))
    }

    @Test func missingProgramIsASpawnError() {
        #expect(throws: CommandError.self) { try CommandRunner().run(["/nonexistent/datebook-notify"]) }
        #expect(throws: CommandError.emptyArgv) { try CommandRunner().run([]) }
    }

    @Test func largeOutputIsReadToEOFWithoutDeadlock() throws {
        let result = try CommandRunner(maxOutputBytes: 1000).run(["sh", "-c", "head -c 1000000 /dev/zero; echo done >&2"])
        #expect(result.succeeded)
        #expect(result.stdout.count == 1000)
        #expect(String(decoding: result.stderr, as: UTF8.self) == "done\n")
    }
}
