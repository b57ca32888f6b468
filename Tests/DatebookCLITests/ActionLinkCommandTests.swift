@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// Action links end to end: `tick` sends an alert whose webhook body carries the links, the real
/// `datebook serve` on a free loopback port confirms and applies one, `status` lists the snooze,
/// and a later `tick` delivers it.
struct ActionLinkCommandTests {
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path

    /// `datebook serve --listen 127.0.0.1:0` on `sandbox`'s store at a fixed time; stopped with SIGTERM.
    final class Server {
        let process = Process()
        let port: Int

        init(_ sandbox: Sandbox, config: String, now: String) throws {
            process.executableURL = URL(fileURLWithPath: ActionLinkCommandTests.binary)
            process.arguments = ["serve", "--listen", "127.0.0.1:0", "--store", sandbox.store, "--config", config,
                                 "--now", now, "--tz", sandbox.tz]
            process.environment = ["HOME": sandbox.home, "PATH": "/usr/bin:/bin"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var text = ""
            while !text.contains("serving on") || !text.contains(" (pid") {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            let address = text.components(separatedBy: "serving on http://127.0.0.1:").last?.prefix { $0.isNumber } ?? ""
            guard let port = Int(address) else {
                process.terminate()
                throw CLIError.data("datebook serve did not say where it listens: \(text)")
            }
            self.port = port
        }

        /// `curl` with `arguments`: the status and the body.
        func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
            let run = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments)
            let lines = run.out.components(separatedBy: "\n")
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        /// The path of `link` (its host is the configured baseURL) on this server.
        func local(_ link: String) -> String {
            "http://127.0.0.1:\(port)" + (link.range(of: "/a/").map { String(link[$0.lowerBound...]) } ?? link)
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test func aSnoozeLinkFromAnAlertIsConfirmedListedAndDeliveredLater() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        var sandbox = Sandbox()
        sandbox.run(["add", "Pagliacci", "--at", "2026-11-30 20:00", "--alert", "1h", "--task", "Tickets"])
        let config = try sandbox.writeConfig("""
            { channels: { hook: { type: "webhook", url: "\(sink.baseURL)/hook" } },
              alerts: { channels: ["hook"] },
              serve: { baseURL: "https://planner.example.org" } }
            """)
        sandbox.now = "2026-11-30 19:00"
        #expect(sandbox.send(["tick"], config: config).code == 0)
        let alert = try #require(try bodies(sink).first { $0.path == "/hook" })
        let document = try #require(try JSONSerialization.jsonObject(with: Data(alert.body.utf8)) as? [String: Any])
        let actions = try #require(document["actions"] as? [[String: String]])
        #expect(actions.map { $0["action"] } == ["done", "snooze", "tomorrow", "event"])
        let snooze = try #require(actions[1]["url"])
        #expect(snooze.hasPrefix("https://planner.example.org/a/"))

        let server = try Server(sandbox, config: config, now: "2026-11-30 19:05")
        defer { server.stop() }
        let page = try server.curl([server.local(snooze)])
        #expect(page.status == 200)
        #expect(page.body.contains("Send the alert for “Pagliacci” again in 1 hour?"))
        #expect(!sandbox.send(["status"], config: config).out.contains("(snoozed)"), "a GET changes nothing")
        let proof = try #require(page.body.components(separatedBy: "name=\"csrf\" value=\"").last?.prefix { $0 != "\"" })
        let result = try server.curl(["--data", "csrf=" + proof, server.local(snooze)])
        #expect(result.status == 200)
        #expect(result.body.contains("The alert for “Pagliacci” comes again Mon 2026-11-30 20:05 (Europe/Berlin) on hook."))
        #expect(try server.curl(["--data", "csrf=" + proof, server.local(snooze)]).status == 409)
        #expect(try server.curl(["-X", "PUT", server.local(snooze)]).status == 405)

        let status = sandbox.send(["status"], config: config)
        #expect(status.out.contains("(snoozed)"))
        let preview = sandbox.send(["preview", "--days", "1"], config: config)
        #expect(preview.out.contains("(snoozed)"))
        sandbox.now = "2026-11-30 20:04"
        #expect(sandbox.send(["tick"], config: config).code == 0)
        #expect(try bodies(sink).filter { $0.path == "/hook" }.count == 1)
        sandbox.now = "2026-11-30 20:05"
        #expect(sandbox.send(["tick"], config: config).code == 0)
        #expect(try bodies(sink).filter { $0.path == "/hook" }.count == 2)
    }

    @Test func sendAlertCarriesLinksOnlyWithABaseURL() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let (sandbox, config) = try Sandbox.standup(channels: "hook: { type: \"webhook\", url: \"\(sink.baseURL)/hook\" },")
        #expect(sandbox.send(["send", "alert", "Standup", "--channel", "hook"], config: config).code == 0)
        let linked = try sandbox.writeConfig("""
            { channels: { hook: { type: "webhook", url: "\(sink.baseURL)/hook" } }, serve: { baseURL: "https://planner.example.org/" } }
            """)
        #expect(sandbox.send(["send", "alert", "Standup", "--channel", "hook"], config: linked).code == 0)
        let sent = try bodies(sink).map(\.body)
        #expect(sent.count == 2)
        #expect(!sent[0].contains("\"actions\""))
        #expect(sent[1].contains("\"actions\":[{\"action\":\"done\",\"label\":\"Done\",\"url\":\"https://planner.example.org/a/"))
    }
}
