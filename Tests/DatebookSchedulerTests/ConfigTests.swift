import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookTestSupport
import Foundation
import Testing

func parse(_ text: String) throws -> Config {
    try Config.parse(Array(text.utf8), file: "config.json5", environment: ["HOME": "/home/me"])
}

struct ConfigTests {
    /// README promises every key is documented in the example: each key the parser allows appears
    /// there as `key:` (in a value or a comment).
    @Test func theShippedExampleMentionsEveryKey() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("etc/config.example.json5"), encoding: .utf8)
        let keys = Config.topKeys + Config.digestKeys + Config.alertKeys + Config.feedKeys + Config.serveKeys + Config.commonChannelKeys
            + Config.channelKeys.values.flatMap { $0 }
        for key in Set(keys) {
            let mentioned = text.range(of: "(?<![A-Za-z])\(key):", options: .regularExpression) != nil
            #expect(mentioned, "etc/config.example.json5 does not mention '\(key):'")
        }
    }

    @Test func theShippedExampleParsesWithEveryChannelKind() throws {
        let path = repositoryRoot.appendingPathComponent("etc/config.example.json5").path
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let config = try Config.parse(Array(bytes), file: path, environment: ["HOME": "/home/me"])
        #expect(Set(config.channels.map(\.type)) == Set(Channel.types))
        #expect(config.alerts.before.map(\.description) == ["1d", "1h"])
        #expect(config.alerts.quietHours == QuietHours(start: TimeOfDay(hour: 22, minute: 0), end: TimeOfDay(hour: 7, minute: 0)))
        #expect(config.alerts.lateness == 6 * 3600)
        #expect(config.alerts.cancelWhenDone)
        #expect(config.channel(named: "notes")?.kind == .file(path: "/home/me/notes/{{date}}.md", format: .markdown))
        #expect(config.channel(named: "desktop")?.timeout == 10)
        #expect(!config.channels.contains { $0.hasInlineSecret })
    }

    /// A copy of the example used unchanged switches nothing on: no zone (a copied Berlin moved
    /// "fri 14:30"), no locale, nothing sent, fetched or synced, no host but example ones.
    @Test func aCopyOfTheShippedExampleSwitchesNothingOn() throws {
        let path = repositoryRoot.appendingPathComponent("etc/config.example.json5").path
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let config = try Config.parse(Array(bytes), file: path, environment: ["HOME": "/home/me"])
        #expect(config.timeZone == nil)
        #expect(config.locale == nil)
        #expect(config.digests.isEmpty)
        #expect(config.alerts.channels.isEmpty)
        #expect(config.feeds.isEmpty)
        #expect(config.caldav.isEmpty)
        #expect(config.serve.baseURL == nil)
        #expect(config.store == nil)
        let hosts = config.channels.compactMap { channel in
            (try? channel.endpoint(environment: [:])).flatMap { URLComponents(string: $0)?.host }
        }
        #expect(hosts.allSatisfy { $0 == "example.org" || $0.hasSuffix(".example.org") }, "\(hosts)")
    }

    /// A CalDAV account's `timeout` (issue 31): how long a request may wait for a byte; none given: the account's default (2 minutes).
    @Test func aCalDAVAccountsTimeoutIsReadWithATwoMinuteDefault() throws {
        let account = "name: \"a\", url: \"https://dav.example.org/\", username: \"u\", password: { env: \"P\" }"
        let config = try parse("{ caldav: [ { \(account), timeout: \"5m\" }, { \(account) } ] }")
        #expect(config.caldav.map(\.timeout) == [300, nil])
    }

    @Test(arguments: [
        ("{ digests: [ { name: \"m\", at: \"7am\", channels: [] } ] }",
         "config.json5:1: digests[0].at: expected HH:MM, got \"7am\""),
        ("{\n  channels: {\n    team: { type: \"slack\", url: 42 },\n  },\n}",
         "config.json5:3: channels.team.url: expected a string or {env: \"NAME\"} or {file: \"path\"}, got 42"),
        ("{ timezone: \"UTC\" }", "config.json5:1: timezone: unknown key (did you mean 'timeZone'?)"),
        ("{ channels: { x: { type: \"slak\", url: \"u\" } } }",
         "config.json5:1: channels.x.type: expected one of slack, discord, teams, mattermost, ntfy, webhook, …, got \"slak\" (did you mean 'slack'?)"),
        ("{ channels: { x: { type: \"slack\", url: \"u\", urll: 1 } } }", "config.json5:1: channels.x.urll: unknown key (did you mean 'url'?)"),
        ("{ channels: { x: { type: \"slack\", url: \"u\", caInfo: \"ca.pem\" } } }",
         "config.json5:1: channels.x.caInfo: unknown key (did you mean 'caFile'?)"),
        ("{ channels: { x: { type: \"slack\" } } }", "config.json5:1: channels.x.url: missing: a slack channel needs url"),
        ("{ channels: { team: { type: \"slack\", url: \"u\" } }, alerts: { channels: [\"teem\"] } }",
         "config.json5:1: alerts.channels[0]: no channel named \"teem\" (did you mean 'team'?); channels are team"),
        ("{ alerts: { quietHours: \"late\" } }", "config.json5:1: alerts.quietHours: expected HH:MM-HH:MM like 22:00-07:00, got \"late\""),
        ("{ alerts: { lateness: \"soon\" } }", "config.json5:1: alerts.lateness: expected a duration like 30s, 10m, 6h or 1d, got \"soon\""),
        ("{ digests: [ { name: \"m\", at: \"07:00\", days: \"funday\" } ] }",
         "config.json5:1: digests[0].days: expected days like mon-fri, sat,sun, daily, weekdays or weekends, got \"funday\""),
        ("{ timeZone: \"Europe/Berln\" }",
         "config.json5:1: timeZone: unknown time zone \"Europe/Berln\" (did you mean 'Europe/Berlin'?); expected an IANA name like Europe/Berlin"),
        ("{\n  channels: {\n    a: { type: \"slack\" url: \"x\" }\n  }\n}", "config.json5:3: expected ',' or '}' after the value of 'type' (column 24)"),
        ("{ channels: { m: { type: \"email\", smtp: \"mail.example.org\", from: \"a@b\", to: [\"c@d\"] } } }",
         "config.json5:1: channels.m.smtp: expected an smtp:// or smtps:// URL, got \"mail.example.org\""),
        ("{ serve: { listen: \"localhost\" } }",
         "config.json5:1: serve.listen: expected HOST:PORT like 127.0.0.1:8650 or [::1]:8650, got \"localhost\""),
        ("{ serve: { baseURL: \"planner.example.org\" } }",
         "config.json5:1: serve.baseURL: expected an http:// or https:// URL like https://planner.example.org, got \"planner.example.org\""),
    ])
    func errorsNameFileLineKeyPathAndExpectation(text: String, message: String) {
        do {
            _ = try parse(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func serveTakesListenBaseURLAndASecretToken() throws {
        let config = try parse("{ serve: { listen: \"0.0.0.0:8650\", baseURL: \"https://planner.example.org/\", token: { env: \"DATEBOOK_TOKEN\" }, feedToken: \"f33d\" } }")
        #expect(config.serve == ServeConfig(listen: "0.0.0.0:8650", baseURL: "https://planner.example.org", token: .environment("DATEBOOK_TOKEN"),
                                            feedToken: .inline("f33d")))
        #expect(try parse("{}").serve == ServeConfig())
    }

    @Test func secretsComeInlineFromEnvironmentOrFile() throws {
        let dir = makeScratchFolder("secret")
        defer { removeScratchFolder(dir) }
        try "s3cret-from-file\n".write(toFile: dir + "/url", atomically: true, encoding: .utf8)
        let config = try parse("""
        { channels: { a: { type: "slack", url: "inline-url" }, b: { type: "slack", url: { env: "B_URL" } },
                      c: { type: "slack", url: { file: "\(dir)/url" } } } }
        """)
        #expect(config.channels[0].hasInlineSecret)
        guard case .slack(let b) = config.channels[1].kind, case .slack(let c) = config.channels[2].kind else {
            Issue.record("wrong kinds")
            return
        }
        #expect(try b.resolve(environment: ["B_URL": "from-env"]).value == "from-env")
        #expect(try c.resolve(environment: [:]).value == "s3cret-from-file")
        #expect(throws: ChannelError.unavailable("environment variable B_URL is not set")) { try b.resolve(environment: [:]) }
    }

    @Test(arguments: [("mon-fri", [1, 2, 3, 4, 5]), ("sat,sun", [0, 6]), ("fri-mon", [5, 6, 0, 1]), ("daily", [0, 1, 2, 3, 4, 5, 6]),
                      ("weekends", [0, 6]), ("mon,wed-thu", [1, 3, 4])])
    func digestDaysParse(text: String, days: [Int]) {
        #expect(DigestSchedule.parseDays(text) == Set(days))
    }

    @Test func quietHoursWrapMidnight() {
        let quiet = QuietHours(start: TimeOfDay(hour: 22, minute: 0), end: TimeOfDay(hour: 7, minute: 0))
        #expect(quiet.contains(minutes: 23 * 60))
        #expect(quiet.contains(minutes: 6 * 60 + 59))
        #expect(!quiet.contains(minutes: 7 * 60))
        #expect(!quiet.contains(minutes: 12 * 60))
    }
}
