@testable import DatebookCLI
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

extension Sandbox {
    /// `datebook doctor` with the config at `config` (if any) and `environment`; checks no secret leaked.
    func doctor(_ arguments: [String] = [], config: String? = nil, environment: [String: String] = [:]) -> CLIRun {
        let run = self.run((config.map { ["--config", $0] } ?? []) + ["doctor"] + arguments, environment: environment)
        #expect(!run.out.contains(canarySecret) && !run.err.contains(canarySecret), "a secret leaked: \(run.out)")
        return run
    }

    /// A folder of stand-in programs (`systemctl`, `crontab`) for PATH, each a shell script.
    func programs(_ scripts: [String: String]) throws -> String {
        let folder = home + "/bin-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, body) in scripts {
            // Written through a close-on-exec descriptor: a child another test spawns meanwhile must
            // not keep it open for writing, or running the script fails with ETXTBSY.
            let fd = open(folder + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
            guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
            let bytes = Array(("#!/bin/sh\n" + body + "\n").utf8)
            let written = write(fd, bytes, bytes.count)
            close(fd)
            guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        }
        return folder
    }
}

/// The line of `doctor`'s output about `subject` (`config`, `store`, `channel slack 'team'`, …).
func finding(_ run: CLIRun, _ subject: String) -> String? {
    run.out.split(separator: "\n").map(String.init).first { $0.dropFirst(6).hasPrefix(subject + ":") }
}

struct DoctorTests {
    static let alerting = "alerts: { before: [\"1h\"], channels: [\"notes\"] }"
    static let notes = "notes: { type: \"file\", path: \"/tmp/datebook-doctor-notes.md\" }"

    @Test func noConfigAndNoStoreIsAWarningAboutTheStoreOnly() {
        let run = Sandbox().doctor()
        #expect(finding(run, "config")?.hasPrefix("ok    config: none at ") == true, "\(run.out)")
        #expect(finding(run, "store")?.hasPrefix("warn  store: ") == true)
        #expect(finding(run, "store")?.contains("does not exist yet") == true)
        #expect(finding(run, "scheduler")?.hasPrefix("ok ") == true)
        #expect(finding(run, "time zone") == "ok    time zone: Europe/Berlin")
        #expect(finding(run, "locale") == "ok    locale: en_US (the default)")
        #expect(run.code == 1)
    }

    @Test func everyCheckPassingExitsZero() throws {
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"])
        let config = try sandbox.writeConfig("{ locale: \"de_DE\", channels: { \(Self.notes) } }")
        let run = sandbox.doctor(config: config)
        #expect(!run.out.contains("warn") && !run.out.contains("fail"), "\(run.out)")
        #expect(finding(run, "store")?.hasSuffix("opens, integrity check ok, schema \(Store.schemaVersion) (current)") == true)
        #expect(finding(run, "locale") == "ok    locale: de_DE")
        #expect(run.code == 0)
    }

    @Test(arguments: [
        ("{ channels: { ", ":1: unclosed object: expected '}' (column 13)"),
        ("{ timeZone: \"Europe/Berln\" }", "did you mean 'Europe/Berlin'?"),
    ])
    func aConfigThatDoesNotLoadFailsWithFileAndLine(text: String, expected: String) throws {
        let sandbox = Sandbox()
        let config = try sandbox.writeConfig(text)
        let run = sandbox.doctor(config: config)
        let line = finding(run, "config") ?? ""
        #expect(line.hasPrefix("fail"), "\(run.out)")
        #expect(line.contains(expected), "\(line)")
        #expect(run.code == 65)
        // The other checks still run.
        #expect(finding(run, "store") != nil && finding(run, "time zone") != nil)
    }

    @Test func anUnknownLocaleFailsWithTheNearestSuggested() throws {
        let sandbox = Sandbox()
        let run = sandbox.doctor(config: try sandbox.writeConfig("{ locale: \"de_XX\" }"))
        #expect(finding(run, "locale") == "fail  locale: config: unknown locale 'de_XX' (did you mean 'de_DE'?); use an identifier like en_US, de_DE or ja_JP",
                "\(run.out)")
        #expect(run.code == 65)
    }

    @Test func aBrokenUserCatalogueFailsTheLocaleCheck() throws {
        let sandbox = Sandbox()
        let folder = sandbox.home + "/config/datebook/templates/locales"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "{\n  \"left\": \"noch\"\n}\n".write(toFile: folder + "/de.json", atomically: true, encoding: .utf8)
        let run = sandbox.doctor(config: try sandbox.writeConfig("{ locale: \"de_DE\" }"))
        #expect(finding(run, "locale") == "fail  locale: \(folder)/de.json:2: key 'left': missing placeholder {count}", "\(run.out)")
        let swedish = sandbox.doctor(config: try sandbox.writeConfig("{ locale: \"sv_SE\" }"))
        #expect(finding(swedish, "locale") == "ok    locale: sv_SE, words in English (no catalogue for 'sv')")
    }

    @Test func configReadableByOthersWarnsAndFailsWhenItHoldsASecret() throws {
        let sandbox = Sandbox()
        let plain = try sandbox.writeConfig("{ channels: { \(Self.notes) } }", mode: 0o644)
        let warned = sandbox.doctor(config: plain)
        #expect(warned.out.contains("warn  config: \(plain) is readable by others (mode 644); run: chmod 600 \(plain)"), "\(warned.out)")
        let secret = try sandbox.writeConfig("{ channels: { team: { type: \"slack\", url: \"http://127.0.0.1:9/\(canarySecret)\" } } }", mode: 0o640)
        let failed = sandbox.doctor(config: secret)
        #expect(failed.out.contains("fail  config: \(secret) holds an inline secret and is readable by others (mode 640)"))
        #expect(failed.code == 65)
        let closed = try sandbox.writeConfig("{ channels: { \(Self.notes) } }")
        #expect(!sandbox.doctor(config: closed).out.contains("readable by others"))
    }

    @Test func secretsAreResolvedButNeverPrinted() throws {
        let sandbox = Sandbox()
        let secretFile = sandbox.home + "/topic"
        try canarySecret.write(toFile: secretFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretFile)
        let config = try sandbox.writeConfig("""
        { channels: {
            team: { type: "slack", url: { env: "SLACK_URL" } },
            phone: { type: "ntfy", url: "http://127.0.0.1:9", topic: { file: "\(secretFile)" } },
            hook: { type: "webhook", url: "http://127.0.0.1:9/hook", secret: { env: "HOOK_SECRET" } },
        } }
        """)
        let run = sandbox.doctor(config: config, environment: ["SLACK_URL": "http://127.0.0.1:9/\(canarySecret)"])
        #expect(finding(run, "secret {env: SLACK_URL}") == "ok    secret {env: SLACK_URL}: resolves (slack 'team')", "\(run.out)")
        #expect(finding(run, "secret {env: HOOK_SECRET}")
            == "fail  secret {env: HOOK_SECRET}: environment variable HOOK_SECRET is not set (webhook 'hook')")
        #expect(run.out.contains("warn  secret {file: \(secretFile)}: \(secretFile) is readable by others (mode 644)"))
        #expect(!run.out.contains("secret (inline)"))
    }

    @Test func aChannelWhoseHostIsDownFailsWith69() throws {
        let sandbox = Sandbox()
        let config = try sandbox.writeConfig("{ channels: { hook: { type: \"webhook\", url: \"http://127.0.0.1:9/\(canarySecret)\" } } }")
        let run = sandbox.doctor(config: config)
        let line = finding(run, "channel webhook 'hook'") ?? ""
        #expect(line.hasPrefix("fail  channel webhook 'hook': http://127.0.0.1:9/: connection failed"), "\(run.out)")
        #expect(run.code == 69)
    }

    @Test func aChannelsTLSCertificateIsCheckedWithoutSendingAndSentToOnlyWithSend() throws {
        let directory = URL(fileURLWithPath: makeScratchFolder("doctor"))
        defer { removeScratchFolder(directory.path) }
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try makeCertificate(in: directory)
        let sink = try TestServer(script: "http_sink.py", arguments: [pem.cert, pem.key])
        defer { sink.stop() }
        let sandbox = Sandbox()
        let url = "https://127.0.0.1:\(sink.port)/slack/\(canarySecret)"
        let trusted = try sandbox.writeConfig("{ channels: { team: { type: \"slack\", url: \"\(url)\", caFile: \"\(pem.cert)\" } } }")
        let checked = sandbox.doctor(config: trusted)
        #expect(finding(checked, "channel slack 'team'") == "ok    channel slack 'team': https://127.0.0.1:\(sink.port)/ reachable, TLS certificate valid",
                "\(checked.out)")
        #expect(try sink.records().isEmpty, "doctor without --send must send nothing")

        let sent = sandbox.doctor(["--send"], config: trusted)
        #expect(sent.out.contains("ok    channel slack 'team': test message sent"), "\(sent.out)")
        #expect(try bodies(sink).map(\.path) == ["/slack/\(canarySecret)"])

        let untrusted = try sandbox.writeConfig("{ channels: { team: { type: \"slack\", url: \"\(url)\" } } }")
        let refused = sandbox.doctor(config: untrusted)
        #expect(finding(refused, "channel slack 'team'")?.hasPrefix("fail  channel slack 'team': https://127.0.0.1:\(sink.port)/: TLS failed") == true,
                "\(refused.out)")
        #expect(refused.code == 69)
        #expect(try sink.records().count == 1)
    }

    @Test func aCommandChannelsProgramMustBeOnPath() throws {
        let sandbox = Sandbox()
        let bin = try sandbox.programs(["notify-send": "exit 0"])
        let config = try sandbox.writeConfig("""
        { channels: { desk: { type: "command", argv: ["notify-send", "{{title}}"] }, gone: { type: "command", argv: ["no-such-notifier"] } } }
        """)
        let run = sandbox.doctor(config: config, environment: ["PATH": bin])
        #expect(finding(run, "channel command 'desk'") == "ok    channel command 'desk': runs \(bin)/notify-send", "\(run.out)")
        #expect(finding(run, "channel command 'gone'") == "fail  channel command 'gone': 'no-such-notifier' not found in PATH; install it or give its absolute path")
    }

    @Test func aCorruptStoreFailsTheIntegrityCheck() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sandbox.store)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // Page 2 holds the first table's rows: opening never reads it, the integrity check does.
        for index in pageSize + 8..<pageSize + 40 { bytes[index] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: sandbox.store))
        let run = sandbox.doctor()
        #expect(finding(run, "store")?.hasPrefix("fail  store: \(sandbox.store) fails SQLite's integrity check (") == true, "\(run.out)")
        #expect(run.code == 65)
    }

    @Test func anOlderSchemaWarnsAndIsLeftAsItIs() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sandbox.store)))
        bytes[63] = 8  // PRAGMA user_version lives at offset 60 of the header, big-endian.
        try Data(bytes).write(to: URL(fileURLWithPath: sandbox.store))
        let run = sandbox.doctor()
        #expect(finding(run, "store")?.hasPrefix("warn  store: \(sandbox.store) has schema 8, this datebook \(Store.schemaVersion): ") == true, "\(run.out)")
        let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sandbox.store)))
        #expect(after[63] == 8, "doctor must not upgrade the store")
    }

    @Test func aStoreThatIsNotADatabaseFails() throws {
        let sandbox = Sandbox()
        try String(repeating: "not sqlite ", count: 100).write(toFile: sandbox.store, atomically: true, encoding: .utf8)
        let run = sandbox.doctor()
        #expect(finding(run, "store")?.hasPrefix("fail  store: ") == true, "\(run.out)")
        #expect(run.code == 65)
    }

    @Test(arguments: [
        ("systemctl", "[ \"$4\" = datebook-tick.timer ] && exit 0; exit 3", "ok    scheduler: systemd user unit datebook-tick.timer is active"),
        ("systemctl", "[ \"$4\" = datebook.service ] && exit 0; exit 3", "ok    scheduler: systemd user unit datebook.service is active"),
        ("crontab", "echo '# * * * * * datebook tick'; echo '* * * * * $HOME/.local/bin/datebook tick >> log 2>&1'",
         "ok    scheduler: a crontab line runs it: * * * * * $HOME/.local/bin/datebook tick >> log 2>&1"),
        ("crontab", "echo '# * * * * * datebook tick'", "warn  scheduler: no systemd timer or service is active and no crontab line runs datebook"),
        ("systemctl", "exit 3", "warn  scheduler: no systemd timer or service is active and no crontab line runs datebook"),
    ])
    func theSchedulerIsFoundInSystemdOrCrontab(program: String, script: String, expected: String) throws {
        let sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"])
        let config = try sandbox.writeConfig("{ channels: { \(Self.notes) }, \(Self.alerting) }")
        let bin = try sandbox.programs([program: script])
        let run = sandbox.doctor(config: config, environment: ["PATH": bin])
        #expect(finding(run, "scheduler")?.hasPrefix(expected) == true, "\(run.out)")
    }

    @Test func anUnknownTimeZoneFailsAndTheRestStillRuns() {
        var sandbox = Sandbox()
        sandbox.tz = "Europe/Berln"
        let run = sandbox.doctor()
        #expect(finding(run, "time zone")?.hasPrefix("fail  time zone: unknown time zone 'Europe/Berln' (did you mean 'Europe/Berlin'?)") == true,
                "\(run.out)")
        #expect(finding(run, "store") != nil)
        #expect(run.code == 65)
    }

    @Test func theLastPassMustBeRecentWhenSomethingIsConfiguredToSend() throws {
        var sandbox = Sandbox()
        sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"])
        let config = try sandbox.writeConfig("{ channels: { \(Self.notes) }, \(Self.alerting) }")
        #expect(finding(sandbox.doctor(config: config), "last pass")
            == "warn  last pass: no tick or daemon pass recorded yet: no alert has been sent")
        sandbox.run(["--config", config, "tick"])
        sandbox.now = "2026-11-30 09:05"
        #expect(finding(sandbox.doctor(config: config), "last pass") == "ok    last pass: 5 min ago (Mon 2026-11-30 09:00)")
        sandbox.now = "2026-11-30 12:00"
        #expect(finding(sandbox.doctor(config: config), "last pass")
            == "warn  last pass: 3 h ago (Mon 2026-11-30 09:00): alerts wait for the next pass; check the timer, crontab line or daemon")
    }

    @Test func feedsMustHaveBeenRefreshedRecently() throws {
        var sandbox = Sandbox()
        let file = sandbox.home + "/team.ics"
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("team.ics").path, toPath: file)
        sandbox.run(["feed", "add", "team", file, "--every", "30m"])
        sandbox.now = "2026-11-30 09:40"
        #expect(finding(sandbox.doctor(), "feed 'team'") == "ok    feed 'team': refreshed 40 min ago (2 events)")
        sandbox.now = "2026-11-30 11:00"
        #expect(finding(sandbox.doctor(), "feed 'team'")
            == "warn  feed 'team': last refreshed 2 h ago, every 30 min: feeds refresh on tick or in the daemon; check that one runs")
    }

    @Test(arguments: [
        ([Finding.ok("a", "")], Int32(0)),
        ([.ok("a", ""), .warn("b", "")], Int32(1)),
        ([.warn("b", ""), .fail("c", "", unavailable: true)], Int32(69)),
        ([.fail("c", "", unavailable: true), .fail("d", "")], Int32(65)),
    ] as [([Finding], Int32)])
    func theExitStatusIsTheWorstFinding(findings: [Finding], code: Int32) {
        #expect(DoctorCommand.exitCode(findings) == code)
    }
}

/// Example hosts are never looked up, `--offline` skips the network, and the exit status is the
/// one README's "Checking the set-up" states.
struct DoctorOfflineTests {
    @Test(arguments: ["example.org", "hooks.example.com", "mail.example.net", "dav.example", "x.invalid", "ntfy.test", "EXAMPLE.ORG."])
    func anExampleHostIsSkippedWithoutALookup(host: String) throws {
        let sandbox = Sandbox()
        let config = try sandbox.writeConfig("{ channels: { hook: { type: \"webhook\", url: \"https://\(host)/\(canarySecret)\" } } }")
        // A lookup would end as ok or fail; only a skip did not make one.
        let run = sandbox.doctor(config: config)
        let line = finding(run, "channel webhook 'hook'") ?? ""
        #expect(line.hasPrefix("skip  channel webhook 'hook': skipped: example host \(host.lowercased())"), "\(run.out)")
        #expect(run.code != 69, "\(run.out)")
    }

    @Test(arguments: ["example.org.uk", "myexample.org", "test.org", "127.0.0.1"])
    func aRealLookingHostIsChecked(host: String) {
        #expect(!ExampleHosts.isExample(host))
    }

    @Test func offlineSkipsEveryChannelHostAndSendsNothing() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let sandbox = Sandbox()
        let config = try sandbox.writeConfig("{ channels: { hook: { type: \"webhook\", url: \"http://127.0.0.1:\(sink.port)/h\" } } }")
        let online = sandbox.doctor(config: config)
        #expect(finding(online, "channel webhook 'hook'")?.hasPrefix("warn  channel webhook 'hook': http://127.0.0.1:\(sink.port)/ reachable") == true,
                "\(online.out)")
        let offline = sandbox.doctor(["--offline"], config: config)
        #expect(finding(offline, "channel webhook 'hook'") == "skip  channel webhook 'hook': skipped: http://127.0.0.1:\(sink.port)/ not looked up (--offline)",
                "\(offline.out)")
        #expect(try sink.records().isEmpty)
        #expect(sandbox.doctor(["--offline", "--send"], config: config).code == 64)
    }

    /// README: 65 when a check other than a channel's fails, 69 when only channel checks fail.
    @Test func theExitStatusIsTheOneTheReadmeStates() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let flat = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(flat(readme).contains(flat(DoctorCommand.exitStatusText)), "README's doctor exit status differs from the code's")
        #expect(DoctorCommand.spec.details.contains(DoctorCommand.exitStatusText))

        let sandbox = Sandbox()
        let channelOnly = try sandbox.writeConfig("{ channels: { hook: { type: \"webhook\", url: { env: \"DATEBOOK_UNSET_HOOK\" } } } }")
        #expect(sandbox.doctor(["--offline"], config: channelOnly).code == 69)
        let feedSecret = try sandbox.writeConfig("{ feeds: [ { name: \"work\", url: { env: \"DATEBOOK_UNSET_FEED\" } } ] }")
        let feed = sandbox.doctor(["--offline"], config: feedSecret)
        #expect(feed.code == 65, "a feed's missing secret is not a channel check: \(feed.out)")
        let both = try sandbox.writeConfig("{ timeZone: \"Mars/Olympus\", channels: { hook: { type: \"webhook\", url: { env: \"DATEBOOK_UNSET_HOOK\" } } } }")
        #expect(sandbox.doctor(["--offline"], config: both).code == 65)
    }
}

extension DoctorOfflineTests {
    @Test func aPostgreSQLStoreOnAnExampleHostIsNotConnectedTo() throws {
        let sandbox = Sandbox()
        let run = sandbox.run(["--store", "postgresql://datebook:\(canarySecret)@db.example.org/team", "doctor"])
        #expect(finding(run, "store") == "skip  store: skipped: example host db.example.org (reserved by RFC 2606, never looked up); "
                + "put your database server in the config", "\(run.out)")
        #expect(!run.out.contains(canarySecret))
        let offline = sandbox.run(["--store", "postgresql://datebook@127.0.0.1:9/team", "doctor", "--offline"])
        #expect(finding(offline, "store")?.hasPrefix("skip  store: skipped: postgresql://datebook@127.0.0.1:9/team is a server (--offline)") == true,
                "\(offline.out)")
    }
}
