import DatebookTestSupport
import Foundation
import Testing

/// A sandbox for the built binary: its own HOME and XDG folders (removed afterwards), a fixed
/// zone, locale and clock, and nothing of this process's environment but PATH.
struct ProgramSandbox {
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path
    let home: String
    var environment: [String: String]

    init(now: String = "2026-12-03 07:34", zone: String = "Europe/Berlin", lang: String = "en_US.UTF-8") throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("datebook-recipe-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        environment = ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
                       "XDG_DATA_DIRS": home + "/share", "PATH": "/usr/bin:/bin", "TZ": zone, "LANG": lang,
                       "DATEBOOK_NOW": now, "XDG_RUNTIME_DIR": home]
    }

    var configPath: String { home + "/config/datebook/config.json5" }
    /// The default store (XDG_DATA_HOME), named for a pass at a pretended time (`tick --now` asks for that).
    var store: [String: String] { ["DATEBOOK_STORE": home + "/data/datebook/datebook.sqlite3"] }

    func run(_ arguments: [String], stdin: String = "", extra: [String: String] = [:]) throws -> ProgramRun {
        try runProgram(Self.binary, arguments, environment: environment.merging(extra) { $1 }, stdin: stdin)
    }

    func remove() { try? FileManager.default.removeItem(atPath: home) }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int
    }
}

/// README's three recipes, run line by line through the built binary against loopback sinks:
/// an SMTP server for the morning digest, an HTTP sink for Slack, a private D-Bus notification
/// server for the desktop. Only the hosts change (and the test's CA is trusted); `systemctl`
/// lines are left out (a scheduler pass with `--now` stands in for the timer).
@Suite(.serialized) struct RecipeTests {
    static let readme = (try? String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The commands of the first ```sh block under `heading`: continuation lines joined, comments
    /// cut, each split into words as a shell would (quotes only).
    static func commands(under heading: String) throws -> [[String]] {
        let section = try #require(readme.range(of: "\n### " + heading + "\n"), "README has no recipe '\(heading)'")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let block = rest[open.upperBound..<close.lowerBound].replacingOccurrences(of: "\\\n", with: " ")
        return block.split(separator: "\n").map { line in
            var words: [String] = [], word = "", quote: Character?, any = false
            for char in line {
                if let q = quote {
                    if char == q { quote = nil } else { word.append(char) }
                } else if char == "\"" || char == "'" {
                    quote = char
                    any = true
                } else if char == "#", word.isEmpty, !any {
                    break
                } else if char == " " {
                    if !word.isEmpty || any { words.append(word) }
                    word = ""
                    any = false
                } else {
                    word.append(char)
                }
            }
            if !word.isEmpty || any { words.append(word) }
            return words
        }.filter { !$0.isEmpty }
    }

    /// Runs a recipe's lines; `adjust` may change a line's words, `stdin` feeds a line that reads `-`.
    static func run(_ heading: String, _ sandbox: ProgramSandbox, stdin: String = "", extra: [String: String] = [:],
                    adjust: ([String]) -> [String] = { $0 }) throws -> [String] {
        var outputs: [String] = []
        let lines = try commands(under: heading)
        #expect(lines.contains { $0.first == "systemctl" }, "the recipe ends with the timer")
        for line in lines where line.first != "systemctl" {
            try #require(line.first == "datebook", "\(line)")
            let words = adjust(Array(line.dropFirst()))
            let run = try sandbox.run(words, stdin: words.contains("-") ? stdin : "", extra: extra)
            #expect(run.status == 0, "datebook \(words.joined(separator: " ")): \(run.err)")
            outputs.append(run.out + run.err)
        }
        return outputs
    }

    @Test func aMorningDigestByEmail() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let certificates = URL(fileURLWithPath: sandbox.home + "/tls")
        try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
        let pem = try makeCertificate(in: certificates)
        let password = "pw-\(canarySecret)"
        let sink = try TestServer(script: "smtp_sink.py", arguments: ["--mode", "smtps", "--cert", pem.cert, "--key", pem.key,
                                                                      "--auth", "me@example.org:\(password)"])
        defer { sink.stop() }
        let outputs = try Self.run("A morning digest by email", sandbox, stdin: password + "\n") { words in
            let local = words.map { $0 == "smtps://smtp.example.org:465" ? "smtps://127.0.0.1:\(sink.port)" : $0 }
            return local.contains("add-channel") ? local + ["--ca-file", pem.cert] : local
        }
        #expect(outputs.allSatisfy { !$0.contains(canarySecret) }, "a secret was printed: \(outputs)")
        #expect(outputs.joined().contains("datebook channels test mail"))
        var records = try sink.records()
        #expect(records.count == 2, "the test message and today's digest: \(records)")
        #expect(records.allSatisfy { $0["authenticated"] as? Bool == true && $0["tls"] as? Bool == true })
        // From then on a pass at 07:00 sends the morning digest.
        let tick = try sandbox.run(["tick"], extra: sandbox.store.merging(["DATEBOOK_NOW": "2026-12-04 07:00:30"]) { $1 })
        #expect(tick.status == 0, "\(tick.err)")
        records = try sink.records()
        #expect(records.count == 3, "\(tick.err)")
        #expect(records.last?["rcpt_tos"] as? [String] == ["me@example.org"])
        let secret = sandbox.home + "/config/datebook/mail-password.secret"
        #expect(ProgramSandbox.mode(secret) == 0o600)
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == password + "\n")
        #expect(ProgramSandbox.mode(sandbox.configPath) == 0o600)
        #expect(!(try String(contentsOfFile: sandbox.configPath, encoding: .utf8)).contains(password))
    }

    @Test func alertsInSlack() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let url = "\(sink.baseURL)/services/\(canarySecret)"
        let outputs = try Self.run("Alerts in Slack (or Discord, Teams …)", sandbox, stdin: url + "\n")
        #expect(outputs.allSatisfy { !$0.contains(canarySecret) }, "a secret was printed: \(outputs)")
        #expect(try sink.records().count == 1, "the test message")
        // The Dentist's 1 h alert, due at 08:00 tomorrow.
        let tick = try sandbox.run(["tick"], extra: sandbox.store.merging(["DATEBOOK_NOW": "2026-12-04 08:00:30"]) { $1 })
        #expect(tick.status == 0, "\(tick.err)")
        #expect(tick.err.contains("sent alert 'Dentist' (1h before) to team"), "\(tick.err)")
        let records = try sink.records()
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0["path"] as? String == "/services/\(canarySecret)" })
        #expect(ProgramSandbox.mode(sandbox.home + "/config/datebook/team-url.secret") == 0o600)
    }

    @Test func desktopNotifications() throws {
        let sandbox = try ProgramSandbox()
        defer { sandbox.remove() }
        let bus = try NotificationBus(capabilities: ["body", "body-markup"])
        defer { bus.stop() }
        let bus_ = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        _ = try Self.run("Desktop notifications", sandbox, extra: bus_)
        #expect(try bus.waitForNotifications(1).count == 1, "the test message")
        // "Stretch" in 2 hours (09:34) with a 10 min alert: due at 09:24.
        let tick = try sandbox.run(["tick"], extra: bus_.merging(sandbox.store) { $1 }.merging(["DATEBOOK_NOW": "2026-12-03 09:24:30"]) { $1 })
        #expect(tick.status == 0, "\(tick.err)")
        let received = try bus.waitForNotifications(2)
        #expect(received.count == 2)
        #expect((received.last?["summary"] as? String)?.contains("Stretch") == true, "\(received)")
    }
}
