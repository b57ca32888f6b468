@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// A secret that must never appear in any output of the test run (scripts/test.sh also greps the log).
let canarySecret = "CANARY-SECRET-7f3a9e"

extension Sandbox {
    /// Writes `config.json5` (mode 0600) into the sandbox and returns its path.
    func writeConfig(_ text: String, mode: Int = 0o600) throws -> String {
        let path = home + "/config.json5"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// A sandbox with one event, "Standup", and a config with these `channels` entries.
    static func standup(channels: String) throws -> (Sandbox, config: String) {
        let sandbox = Sandbox()
        sandbox.run(["add", "Standup", "--at", "tomorrow 9:00"])
        return (sandbox, try sandbox.writeConfig("{ channels: {\n\(channels)\n} }"))
    }

    func send(_ arguments: [String], config: String, environment: [String: String] = [:]) -> CLIRun {
        let run = self.run(["--config", config] + arguments, environment: environment)
        #expect(!run.out.contains(canarySecret) && !run.err.contains(canarySecret), "a secret leaked: \(arguments)")
        return run
    }
}

func bodies(_ sink: TestServer) throws -> [(path: String, body: String)] {
    try sink.records().map { record in
        let body = (record["body"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (record["path"] as? String ?? "", body)
    }
}

struct DeliveryCommandTests {
    @Test func alertReachesEveryChatKindWithoutMentionsOrSecrets() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let sandbox = Sandbox()
        sandbox.run(["add", "@everyone <!channel> @here party", "--at", "tomorrow 19:00", "--task", "Bring <b>cake</b>"])
        let base = sink.baseURL
        let config = try sandbox.writeConfig("""
        { channels: {
            team: { type: "slack", url: { env: "SLACK_URL" } },
            friends: { type: "discord", url: "\(base)/discord/\(canarySecret)" },
            office: { type: "teams", url: "\(base)/teams/\(canarySecret)" },
            chat: { type: "mattermost", url: "\(base)/mattermost/\(canarySecret)" },
            phone: { type: "ntfy", url: "\(base)/ntfy", topic: "\(canarySecret)" },
            hook: { type: "webhook", url: "\(base)/hook", secret: "\(canarySecret)" },
        } }
        """)
        let run = sandbox.send(["send", "alert", "@everyone <!channel> @here party",
                                "--channel", "team", "--channel", "friends", "--channel", "office",
                                "--channel", "chat", "--channel", "phone", "--channel", "hook"],
                               config: config, environment: ["SLACK_URL": "\(base)/slack/\(canarySecret)"])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.split(separator: "\n").count == 6)
        let received = try bodies(sink)
        #expect(received.count == 6)
        let byKind = Dictionary(received.map { (String($0.path.split(separator: "/").first ?? ""), $0.body) }) { a, _ in a }
        #expect(byKind["slack"]?.contains("&lt;!channel&gt;") == true)
        #expect(byKind["slack"]?.contains("<!channel>") == false)
        #expect(byKind["discord"]?.contains("\"allowed_mentions\":{\"parse\":[]}") == true)
        #expect(byKind["mattermost"]?.contains("@here party") == false)
        #expect(byKind["hook"]?.contains("\"schema\":\"datebook.v1\"") == true)
        #expect(byKind["ntfy"]?.contains("\"topic\":\"\(canarySecret)\"") == true)
    }

    @Test func commandChannelNeverRunsAShellAndPassesFieldsAsArguments() throws {
        let sandbox = Sandbox()
        let canary = sandbox.home + "/CANARY"
        for title in ["$(touch \(canary))", "\"; touch \(canary) #", "`touch \(canary)`"] {
            sandbox.run(["add", title, "--at", "tomorrow 10:00"])
        }
        let output = sandbox.home + "/args.txt"
        let config = try sandbox.writeConfig("""
        { channels: { desktop: { type: "command", argv: ["/bin/sh", "-c", "printf '%s|' \\"$0\\" \\"$DATEBOOK_TITLE\\" >> \(output)", "{{title}}"] } } }
        """)
        // The program here is a shell on purpose: it receives the title as data ($0), never as code.
        for title in ["$(touch \(canary))", "\"; touch \(canary) #", "`touch \(canary)`"] {
            let run = sandbox.send(["send", "alert", title, "--channel", "desktop"], config: config)
            #expect(run.code == 0, "\(run.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: canary))
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.contains("$(touch \(canary))"))
        #expect(written.contains("`touch \(canary)`"))
    }

    @Test func digestGoesToAFileAtomicallyAndToEmail() throws {
        let smtp = try TestServer(script: "smtp_sink.py")
        defer { smtp.stop() }
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        try FileManager.default.createDirectory(atPath: sandbox.home + "/notes", withIntermediateDirectories: true)
        let config = try sandbox.writeConfig("""
        { channels: {
            notes: { type: "file", path: "~/notes/{{date}}.md", format: "markdown" },
            mail: { type: "email", smtp: "smtp://127.0.0.1:\(smtp.port)", requireTLS: false,
                    from: "datebook <me@example.org>", to: ["Jörg <j@example.org>"] },
        } }
        """)
        let run = sandbox.send(["send", "digest", "--channel", "notes", "--channel", "mail"], config: config)
        #expect(run.code == 0, "\(run.err)")
        let note = try String(contentsOfFile: sandbox.home + "/notes/2026-11-30.md", encoding: .utf8)
        #expect(note.contains("Pagliacci"))
        let mail = try #require(try smtp.records().first)
        #expect(mail["rcpt_tos"] as? [String] == ["j@example.org"])
        #expect((mail["to"] as? String)?.contains("Jörg") == true)
    }

    /// Two different digests sent by hand the same day are two messages to a receiver that
    /// deduplicates: the Message-ID (host: the sender's domain, not the machine's name) and the
    /// webhook's Idempotency-Key name the content; the same digest again keeps both.
    @Test func twoDifferentManualDigestsTheSameDayCarryDifferentIDs() throws {
        let smtp = try TestServer(script: "smtp_sink.py")
        defer { smtp.stop() }
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let config = try sandbox.writeConfig("""
        { channels: {
            mail: { type: "email", smtp: "smtp://127.0.0.1:\(smtp.port)", requireTLS: false,
                    from: "datebook <me@example.org>", to: ["j@example.org"] },
            hook: { type: "webhook", url: "\(sink.baseURL)/hook" },
        } }
        """)
        func send() {
            let run = sandbox.send(["send", "digest", "--channel", "mail", "--channel", "hook"], config: config)
            #expect(run.code == 0, "\(run.err)")
        }
        send()
        send()
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-12-02 10:00"]).code == 0)
        send()
        let ids = try smtp.records().map { $0["message_id"] as? String ?? "" }
        let keys = try sink.records().map { record in
            ((record["headers"] as? [[String]])?.first { $0.first?.lowercased() == "idempotency-key" }?.last) ?? ""
        }
        #expect(ids.count == 3 && keys.count == 3)
        #expect(ids.allSatisfy { $0.hasSuffix("@example.org>") }, "\(ids)")
        #expect(ids[0] == ids[1] && ids[1] != ids[2], "\(ids)")
        #expect(keys[0] == keys[1] && keys[1] != keys[2] && keys.allSatisfy { $0.hasPrefix("digest:now:2026-11-30:") }, "\(keys)")
    }

    @Test func aBrokenChannelIsNamedAndDoesNotStopTheOthers() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let (sandbox, config) = try Sandbox.standup(channels: """
            gone: { type: "slack", url: "\(sink.baseURL)/status/404/\(canarySecret)" },
            nokey: { type: "slack", url: { env: "MISSING_SLACK_URL" } },
            good: { type: "slack", url: "\(sink.baseURL)/ok/\(canarySecret)" },
            """)
        let run = sandbox.send(["send", "alert", "Standup", "--channel", "gone", "--channel", "nokey", "--channel", "good"], config: config)
        #expect(run.code == 69)
        #expect(run.err.contains("slack 'gone': HTTP 404 (webhook deleted?)"))
        #expect(run.err.contains("slack 'nokey': environment variable MISSING_SLACK_URL is not set"))
        #expect(run.out == "sent to slack 'good'\n")
    }

    /// A server error that outlasts `--wait` is temporary (75), whether the retries ran out or
    /// the next one would pass the wait; a refusal beside it still makes it 69.
    @Test func aTransientFailureThatOutlastsTheWaitExits75() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let (sandbox, config) = try Sandbox.standup(channels: """
            busy: { type: "slack", url: "\(sink.baseURL)/status/503/\(canarySecret)" },
            limited: { type: "slack", url: "\(sink.baseURL)/status/429?retry_after=1&k=\(canarySecret)" },
            gone: { type: "slack", url: "\(sink.baseURL)/status/404/\(canarySecret)" },
            """)
        for wait in [0, 3] {
            let run = sandbox.send(["send", "alert", "Standup", "--channel", "busy", "--channel", "limited", "--wait", "\(wait)s"],
                                   config: config)
            #expect(run.code == 75, "--wait \(wait): \(run.err)")
            #expect(run.err.contains("slack 'busy': HTTP 503; still failing after \(wait) s, try again later"), "\(run.err)")
            #expect(run.err.contains("slack 'limited': HTTP 429; still failing after \(wait) s, try again later"), "\(run.err)")
        }
        let mixed = sandbox.send(["send", "alert", "Standup", "--channel", "busy", "--channel", "gone", "--wait", "0s"], config: config)
        #expect(mixed.code == 69)
    }

    @Test func dryRunShowsWhatWouldBeSentWithSecretsHiddenAndSendsNothing() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let config = try sandbox.writeConfig("""
        { channels: { team: { type: "slack", url: "\(sink.baseURL)/services/\(canarySecret)" },
                      hook: { type: "webhook", url: "\(sink.baseURL)/hook", secret: "\(canarySecret)" } } }
        """)
        let run = sandbox.send(["send", "digest", "--channel", "team", "--channel", "hook", "--dry-run"], config: config)
        #expect(run.code == 0)
        #expect(run.out.contains("POST http://127.0.0.1:\(sink.port)/****"))
        #expect(run.out.contains("X-Datebook-Signature: sha256="))  // the HMAC, never the secret itself
        #expect(run.out.contains("Pagliacci"))
        #expect(try sink.records().isEmpty)
    }

    @Test func channelsListHidesSecretsAndTestSendsOneMessage() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let sandbox = Sandbox()
        let config = try sandbox.writeConfig("""
        { channels: { team: { type: "slack", url: "\(sink.baseURL)/services/\(canarySecret)" },
                      phone: { type: "ntfy", url: "https://ntfy.example.org", topic: { env: "NTFY_TOPIC" } } } }
        """, mode: 0o644)
        let list = sandbox.send(["channels"], config: config)
        #expect(list.out.contains("team         slack      http://127.0.0.1:\(sink.port)/****"))
        #expect(list.out.contains("phone        ntfy       https://ntfy.example.org/ topic {env: NTFY_TOPIC}  (unavailable: environment variable NTFY_TOPIC is not set)"))
        #expect(list.err.contains("holds an inline secret and is readable by others (mode 644); run: chmod 600 \(config)"))
        let test = sandbox.send(["channels", "test", "team"], config: config)
        #expect(test.code == 0, "\(test.err)")
        #expect(test.out == "sent to slack 'team'\n")
        #expect(try sink.records().count == 1)
        #expect(sandbox.send(["channels", "test", "teem"], config: config).err.contains("no channel named 'teem' (did you mean 'team'?)"))
    }
}
