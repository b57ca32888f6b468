import DatebookTestSupport
import Foundation
import Testing

/// The shipped systemd units and crontab line parse and run the right commands.
struct EtcTests {
    /// `[Section]` → key → values (keys may repeat), comments and blank lines skipped.
    static func unit(_ name: String) throws -> [String: [String: [String]]] {
        let path = repositoryRoot.appendingPathComponent("etc/systemd/" + name).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var sections: [String: [String: [String]]] = [:]
        var current = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(parts.count == 2, "\(name): not key=value: \(line)")
            try #require(!current.isEmpty, "\(name): \(line) outside a section")
            sections[current, default: [:]][parts[0], default: []].append(parts[1])
        }
        return sections
    }

    @Test func theDaemonUnitRunsDatebookRunAndReloadsWithSIGHUP() throws {
        let service = try Self.unit("datebook.service")
        let exec = try #require(service["Service"]?["ExecStart"]?.first)
        #expect(exec.hasSuffix("datebook run"))
        #expect(service["Service"]?["ExecReload"]?.first?.contains("-HUP") == true)
        #expect(service["Install"]?["WantedBy"] == ["default.target"])
    }

    @Test func theTimerRunsTickPersistently() throws {
        let service = try Self.unit("datebook-tick.service")
        #expect(service["Service"]?["Type"] == ["oneshot"])
        #expect(try #require(service["Service"]?["ExecStart"]?.first).hasSuffix("datebook tick"))
        #expect(service["Service"]?["SuccessExitStatus"] == ["75"])
        let timer = try Self.unit("datebook-tick.timer")
        #expect(timer["Timer"]?["Persistent"] == ["true"])
        #expect(timer["Timer"]?["OnCalendar"]?.isEmpty == false)
        #expect(timer["Install"]?["WantedBy"] == ["timers.target"])
    }

    @Test func theCrontabLineRunsTickEveryMinute() throws {
        let text = try String(contentsOfFile: repositoryRoot.appendingPathComponent("etc/crontab.example").path, encoding: .utf8)
        let entries = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(entries.count == 1)
        let fields = try #require(entries.first).split(separator: " ", maxSplits: 5)
        #expect(fields.prefix(5).allSatisfy { $0 == "*" })
        #expect(fields.last?.contains("datebook tick") == true)
    }
}
