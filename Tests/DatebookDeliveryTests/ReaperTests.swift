import DatebookTestSupport
import Foundation
import Testing

/// No server outlives a crashed test process: a helper test process starts servers the way tests
/// do (`TestServer`, `NotificationBus` with its dbus-daemon), is killed with SIGKILL, and its
/// reaper kills their process groups and removes their folders.
@Suite struct ReaperTests {
    /// Set only in the helper process: the file it writes its servers' process groups and folders to.
    static let helperRecord = ProcessInfo.processInfo.environment["DATEBOOK_REAPER_HELPER_RECORD"]

    /// The test binary `swift build --build-tests` makes (all test targets in one executable).
    static let testBinary = repositoryRoot.appendingPathComponent(".build/debug/datebookPackageTests.xctest").path

    /// The helper's body, run only inside the process that `theServersOfAKilledTestProcessAreKilled`
    /// starts: two servers, their groups and folders written down, then waiting to be killed.
    @Test(.enabled(if: helperRecord != nil, "runs only as the helper of theServersOfAKilledTestProcessAreKilled"))
    func helperStartsServersAndWaitsToBeKilled() throws {
        let record = try #require(Self.helperRecord)
        let sink = try TestServer(script: "http_sink.py")
        let bus = try NotificationBus(server: true)
        let lines = ["\(sink.process.processIdentifier) \(sink.directory.path)",
                     "\(bus.process.processIdentifier) \(bus.directory.path)"]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: record + ".part"))
        try FileManager.default.moveItem(atPath: record + ".part", toPath: record)
        while true { pause() }
    }

    @Test(.enabled(if: helperRecord == nil))
    func theServersOfAKilledTestProcessAreKilled() throws {
        try #require(Reaper.isRunning, "the reaper needs /usr/bin/python3")
        let scratch = ScratchFolder("reaper")
        let record = scratch.file("servers")
        let helper = Process()
        helper.executableURL = URL(fileURLWithPath: Self.testBinary)
        helper.arguments = ["--testing-library", "swift-testing", "--filter", "helperStartsServersAndWaitsToBeKilled"]
        helper.environment = ProcessInfo.processInfo.environment.merging(
            ["DATEBOOK_REAPER_HELPER_RECORD": record, "SWIFT_BACKTRACE": "enable=no"]) { $1 }
        helper.standardInput = FileHandle.nullDevice
        helper.standardOutput = FileHandle.nullDevice
        helper.standardError = FileHandle.nullDevice
        try helper.run()
        Reaper.watch(helper)
        defer { Reaper.stop(helper) }

        // Generous: the machine may be busy; the helper reports as soon as both servers answer.
        try #require(waitUntil(seconds: 180) { FileManager.default.fileExists(atPath: record) || !helper.isRunning },
                     "the helper did not start its servers")
        let text = try String(contentsOfFile: record, encoding: .utf8)
        let servers = text.split(separator: "\n").compactMap { line -> (group: pid_t, folder: String)? in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let group = pid_t(parts[0]) else { return nil }
            return (group, String(parts[1]))
        }
        try #require(servers.count == 2, "\(text)")
        // The bus's group holds the Python server and its dbus-daemon.
        #expect(Self.members(of: servers[1].group).count >= 2)
        #expect(servers.allSatisfy { !Self.members(of: $0.group).isEmpty && FileManager.default.fileExists(atPath: $0.folder) })

        kill(helper.processIdentifier, SIGKILL)
        helper.waitUntilExit()
        let gone = waitUntil(seconds: 60) {
            servers.allSatisfy { Self.members(of: $0.group).isEmpty && !FileManager.default.fileExists(atPath: $0.folder) }
        }
        #expect(gone, "left behind: \(servers.map { "group \($0.group): \(Self.members(of: $0.group))" })")
    }

    /// The live (not zombie) processes whose process group is `group`, from /proc.
    static func members(of group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.range(of: ")", options: .backwards) else { return false }
            // After the name: state, ppid, pgrp.
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && pid_t(fields[2]) == group
        }
    }
}

/// Polls `condition` every 20 ms for up to `seconds`; whether it became true.
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
