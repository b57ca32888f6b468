import DatebookCore
import DatebookDelivery
import Foundation

extension Config {
    // The keys the parser accepts; `datebook man 5` documents each (a test fails on one it lacks).
    public static let topKeys = ["timeZone", "locale", "templates", "channels", "digests", "alerts", "feeds", "serve", "caldav", "store"]
    public static let digestKeys = ["name", "at", "days", "channels", "format", "template"]
    public static let alertKeys = ["before", "channels", "quietHours", "lateness", "cancelWhenDone", "clockJump"]
    public static let feedKeys = ["name", "url", "every"]
    public static let serveKeys = ["listen", "baseURL", "token", "feedToken", "accessLog", "trustedProxies", "workers"]
    public static let caldavKeys = ["name", "url", "username", "password", "calendars", "every", "caFile", "timeout"]
    public static let commonChannelKeys = ["type", "insecure", "caFile", "timeout"]
    public static let channelKeys: [String: [String]] = [
        "slack": ["url"], "teams": ["url"], "discord": ["url", "username"], "mattermost": ["url", "username"],
        "ntfy": ["url", "topic", "priority", "tags", "token"], "webhook": ["url", "secret"],
        "email": ["smtp", "username", "password", "from", "to", "requireTLS"],
        "command": ["argv"], "desktop": ["urgency", "expire", "icon", "actions", "command"], "file": ["path", "format"],
    ]

    /// Parses and validates config text; every error names the file, line and key path.
    public static func parse(_ bytes: [UInt8], file: String, environment: [String: String] = [:]) throws -> Config {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch let error as JSONSyntaxError {
            throw InputError(file: file, line: error.line, path: "", message: error.message + " (column \(error.column))")
        }
        let reader = JSONReader(file: file)
        _ = try reader.object(root, "", allowed: topKeys)
        var config = Config()
        if let node = root["timeZone"] {
            let name = try reader.string(node, "timeZone")
            guard TimeZone(identifier: name) != nil else {
                throw reader.fail(node, "timeZone", "unknown time zone \"\(name)\"" + Suggestion.hint(for: name, in: TimeZone.knownTimeZoneIdentifiers)
                                  + "; expected an IANA name like Europe/Berlin")
            }
            config.timeZone = name
        }
        config.locale = try reader.optionalString(root["locale"], "locale")
        config.store = try root["store"].map { try secret($0, "store", reader: reader, environment: environment) }
        config.templates = try reader.optionalString(root["templates"], "templates").map { expandHome($0, environment) }
        if let node = root["channels"] {
            guard case .object(let members) = node.value else { throw reader.expected("an object of named channels", node, "channels") }
            config.channels = try members.map { try channel($0.key, $0.value, reader: reader, environment: environment) }
        }
        let names = config.channels.map(\.name)
        if let node = root["digests"] {
            config.digests = try reader.array(node, "digests").enumerated().map { n, item in
                try digest(item, path: "digests[\(n)]", reader: reader, channels: names)
            }
            var seen = Set<String>()
            for (n, digest) in config.digests.enumerated() where !seen.insert(digest.name).inserted {
                throw InputError(file: file, line: nil, path: "digests[\(n)].name", message: "duplicate digest name \"\(digest.name)\"")
            }
        }
        if let node = root["alerts"] { config.alerts = try alerts(node, reader: reader, channels: names) }
        if let node = root["feeds"] {
            config.feeds = try reader.array(node, "feeds").enumerated().map { n, item in
                let path = "feeds[\(n)]"
                _ = try reader.object(item, path, allowed: feedKeys)
                guard let nameNode = item["name"], let urlNode = item["url"] else {
                    throw reader.fail(item, path, "expected name and url")
                }
                var every: TimeInterval = 1800
                if let node = item["every"] { every = try duration(node, path + ".every", reader: reader) }
                return FeedSubscription(name: try reader.string(nameNode, path + ".name"),
                                        source: try secret(urlNode, path + ".url", reader: reader, environment: environment),
                                        every: every)
            }
        }
        if let node = root["serve"] { config.serve = try serve(node, reader: reader, environment: environment) }
        if let node = root["caldav"] {
            config.caldav = try reader.array(node, "caldav").enumerated().map { n, item in
                try caldavAccount(item, path: "caldav[\(n)]", reader: reader, environment: environment)
            }
        }
        return config
    }

    static func serve(_ node: JSONNode, reader: JSONReader, environment: [String: String]) throws -> ServeConfig {
        _ = try reader.object(node, "serve", allowed: serveKeys)
        var serve = ServeConfig()
        if let listen = node["listen"] {
            let text = try reader.string(listen, "serve.listen")
            let port = text.split(separator: ":").last.flatMap { UInt16($0) }
            guard text.contains(":"), port != nil else {
                throw reader.fail(listen, "serve.listen", "expected HOST:PORT like 127.0.0.1:8650 or [::1]:8650, got \"\(text)\"")
            }
            serve.listen = text
        }
        if let base = node["baseURL"] {
            let text = try reader.string(base, "serve.baseURL")
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw reader.fail(base, "serve.baseURL", "expected an http:// or https:// URL like https://planner.example.org, got \"\(text)\"")
            }
            serve.baseURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        if let token = node["token"] { serve.token = try secret(token, "serve.token", reader: reader, environment: environment) }
        if let token = node["feedToken"] { serve.feedToken = try secret(token, "serve.feedToken", reader: reader, environment: environment) }
        if let accessLog = node["accessLog"] { serve.accessLog = try reader.bool(accessLog, "serve.accessLog") }
        if let workers = node["workers"] {
            let count = try reader.integer(workers, "serve.workers")
            guard (1...64).contains(count) else { throw reader.fail(workers, "serve.workers", "expected 1 to 64 worker threads, got \(count)") }
            serve.workers = count
        }
        if let proxies = node["trustedProxies"] {
            serve.trustedProxies = try reader.array(proxies, "serve.trustedProxies").enumerated().map { index, item in
                let text = try reader.string(item, "serve.trustedProxies[\(index)]")
                var v4 = in_addr(), v6 = in6_addr()
                guard inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1 else {
                    throw reader.fail(item, "serve.trustedProxies[\(index)]", "expected a numeric address like 127.0.0.1 or ::1, got \"\(text)\"")
                }
                return text
            }
        }
        return serve
    }

    static func caldavAccount(_ item: JSONNode, path: String, reader: JSONReader, environment: [String: String]) throws -> CalDAVAccountConfig {
        _ = try reader.object(item, path, allowed: caldavKeys)
        guard let nameNode = item["name"], let urlNode = item["url"], let userNode = item["username"], let passwordNode = item["password"] else {
            throw reader.fail(item, path, "expected name, url, username and password")
        }
        let url = try reader.string(urlNode, path + ".url")
        guard url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://") else {
            throw reader.fail(urlNode, path + ".url", "expected an https:// or http:// URL")
        }
        var every: TimeInterval = 900
        if let node = item["every"] { every = try duration(node, path + ".every", reader: reader) }
        let calendars = try item["calendars"].map { node in
            try reader.array(node, path + ".calendars").enumerated().map { try reader.string($1, "\(path).calendars[\($0)]") }
        } ?? []
        var timeout: TimeInterval?
        if let node = item["timeout"] {
            let seconds = try duration(node, path + ".timeout", reader: reader)
            timeout = seconds
            guard seconds >= 1 else { throw reader.fail(node, path + ".timeout", "expected a duration of at least 1s, like 30s or 5m") }
        }
        var caFile: String?
        if let node = item["caFile"] {
            let file = expandHome(try reader.string(node, path + ".caFile"), environment)
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw reader.fail(node, path + ".caFile", "cannot read \(file); give a readable PEM file of the certificates to trust")
            }
            caFile = file
        }
        return CalDAVAccountConfig(name: try reader.string(nameNode, path + ".name"), url: url,
                                   username: try reader.string(userNode, path + ".username"),
                                   password: try secret(passwordNode, path + ".password", reader: reader, environment: environment),
                                   calendars: calendars, every: every, caFile: caFile, timeout: timeout)
    }

    static func channel(_ name: String, _ node: JSONNode, reader: JSONReader, environment: [String: String]) throws -> Channel {
        let path = "channels." + name
        guard let typeNode = node["type"] else {
            throw reader.fail(node, path + ".type", "missing: expected one of " + Channel.types.joined(separator: ", "))
        }
        let type = try reader.choice(typeNode, path + ".type", Channel.types)
        _ = try reader.object(node, path, allowed: commonChannelKeys + (channelKeys[type] ?? []))
        func required(_ key: String) throws -> JSONNode {
            guard let value = node[key] else { throw reader.fail(node, path + "." + key, "missing: a \(type) channel needs \(key)") }
            return value
        }
        func secretValue(_ key: String) throws -> SecretSource {
            try secret(try required(key), path + "." + key, reader: reader, environment: environment)
        }
        func optionalSecret(_ key: String) throws -> SecretSource? {
            try node[key].map { try secret($0, path + "." + key, reader: reader, environment: environment) }
        }
        func strings(_ key: String) throws -> [String] {
            try reader.array(try required(key), path + "." + key).enumerated().map { try reader.string($1, "\(path).\(key)[\($0)]") }
        }
        let kind: Channel.Kind
        switch type {
        case "slack": kind = .slack(url: try secretValue("url"))
        case "teams": kind = .teams(url: try secretValue("url"))
        case "discord": kind = .discord(url: try secretValue("url"), username: try reader.optionalString(node["username"], path + ".username"))
        case "mattermost": kind = .mattermost(url: try secretValue("url"), username: try reader.optionalString(node["username"], path + ".username"))
        case "ntfy":
            let server = try reader.string(try required("url"), path + ".url")
            var priority: Int?
            if let p = node["priority"] {
                priority = try reader.integer(p, path + ".priority")
                guard (1...5).contains(priority ?? 0) else { throw reader.fail(p, path + ".priority", "expected 1 to 5") }
            }
            let tags = node["tags"] == nil ? ["calendar"] : try strings("tags")
            kind = .ntfy(server: server, topic: try secretValue("topic"), priority: priority, tags: tags, token: try optionalSecret("token"))
        case "webhook": kind = .webhook(url: try secretValue("url"), secret: try optionalSecret("secret"))
        case "email":
            let smtpNode = try required("smtp")
            let smtp = try reader.string(smtpNode, path + ".smtp")
            guard smtp.hasPrefix("smtp://") || smtp.hasPrefix("smtps://") else {
                throw reader.fail(smtpNode, path + ".smtp", "expected an smtp:// or smtps:// URL, got \"\(smtp)\"")
            }
            let to = try strings("to")
            guard !to.isEmpty else { throw reader.fail(node, path + ".to", "expected at least one address") }
            kind = .email(smtp: smtp, username: try reader.optionalString(node["username"], path + ".username"),
                          password: try optionalSecret("password"), from: try reader.string(try required("from"), path + ".from"),
                          to: to, requireTLS: try node["requireTLS"].map { try reader.bool($0, path + ".requireTLS") } ?? true)
        case "command":
            let argv = try strings("argv")
            guard !argv.isEmpty, !(argv.first ?? "").isEmpty else {
                throw reader.fail(node, path + ".argv", "expected the program and its arguments, e.g. [\"notify-send\", \"{{title}}\"]")
            }
            kind = .command(argv: argv)
        case "desktop":
            kind = .desktop(try desktop(node, path, reader: reader))
        default:
            let formatNode = node["format"]
            let format = try formatNode.map { MessageFormat(rawValue: try reader.choice($0, path + ".format", MessageFormat.allCases.map(\.rawValue))) } ?? .markdown
            kind = .file(path: expandHome(try reader.string(try required("path"), path + ".path"), environment), format: format ?? .markdown)
        }
        var channel = Channel(name: name, kind: kind)
        if let insecure = node["insecure"] { channel.insecure = try reader.bool(insecure, path + ".insecure") }
        if let ca = node["caFile"] { channel.caFile = expandHome(try reader.string(ca, path + ".caFile"), environment) }
        if let timeout = node["timeout"] { channel.timeout = try duration(timeout, path + ".timeout", reader: reader) }
        return channel
    }

    static func desktop(_ node: JSONNode, _ path: String, reader: JSONReader) throws -> DesktopOptions {
        var options = DesktopOptions()
        if let urgency = node["urgency"] {
            let word = try reader.choice(urgency, path + ".urgency", DesktopUrgency.allCases.map(\.rawValue))
            options.urgency = DesktopUrgency(rawValue: word) ?? .auto
        }
        options.expire = try node["expire"].map { try duration($0, path + ".expire", reader: reader) }
        options.icon = try reader.optionalString(node["icon"], path + ".icon")
        if let actions = node["actions"] { options.actions = try reader.bool(actions, path + ".actions") }
        if let command = node["command"] {
            options.command = try reader.string(command, path + ".command")
            guard !options.command.isEmpty else {
                throw reader.fail(command, path + ".command", "expected a program like notify-send or /usr/bin/notify-send")
            }
        }
        return options
    }

    static func digest(_ node: JSONNode, path: String, reader: JSONReader, channels: [String]) throws -> DigestSchedule {
        _ = try reader.object(node, path, allowed: digestKeys)
        guard let nameNode = node["name"] else { throw reader.fail(node, path + ".name", "missing: expected a name") }
        guard let atNode = node["at"] else { throw reader.fail(node, path + ".at", "missing: expected HH:MM") }
        let atText = try reader.string(atNode, path + ".at")
        guard let at = TimeOfDay(atText) else { throw reader.fail(atNode, path + ".at", "expected HH:MM, got \"\(atText)\"") }
        var weekdays = Set(0...6)
        if let daysNode = node["days"] {
            let text = try reader.string(daysNode, path + ".days")
            guard let parsed = DigestSchedule.parseDays(text) else {
                throw reader.fail(daysNode, path + ".days", "expected days like mon-fri, sat,sun, daily, weekdays or weekends, got \"\(text)\"")
            }
            weekdays = parsed
        }
        var format = MessageFormat.text
        if let f = node["format"] {
            format = MessageFormat(rawValue: try reader.choice(f, path + ".format", MessageFormat.allCases.map(\.rawValue))) ?? .text
        }
        return DigestSchedule(name: try reader.string(nameNode, path + ".name"), at: at, weekdays: weekdays,
                              channels: try channelList(node["channels"], path + ".channels", reader: reader, known: channels),
                              format: format, template: try reader.optionalString(node["template"], path + ".template"))
    }

    static func alerts(_ node: JSONNode, reader: JSONReader, channels: [String]) throws -> AlertPolicy {
        _ = try reader.object(node, "alerts", allowed: alertKeys)
        var policy = AlertPolicy()
        if let before = node["before"] {
            policy.before = try reader.array(before, "alerts.before").enumerated().map { n, item in
                let text = try reader.string(item, "alerts.before[\(n)]")
                guard let lead = LeadTime(text), lead.anchor == .start || lead.anchor == .end else {
                    throw reader.fail(item, "alerts.before[\(n)]", "expected a lead time like 1d, 1h, 10m or end-15m, got \"\(text)\"")
                }
                return lead
            }
        }
        policy.channels = try channelList(node["channels"], "alerts.channels", reader: reader, known: channels)
        if let quiet = node["quietHours"] {
            let text = try reader.string(quiet, "alerts.quietHours")
            let parts = text.split(separator: "-").map(String.init)
            guard parts.count == 2, let start = TimeOfDay(parts[0]), let end = TimeOfDay(parts[1]) else {
                throw reader.fail(quiet, "alerts.quietHours", "expected HH:MM-HH:MM like 22:00-07:00, got \"\(text)\"")
            }
            policy.quietHours = QuietHours(start: start, end: end)
        }
        if let late = node["lateness"] { policy.lateness = try duration(late, "alerts.lateness", reader: reader) }
        if let jump = node["clockJump"] { policy.clockJump = try duration(jump, "alerts.clockJump", reader: reader) }
        if let cancel = node["cancelWhenDone"] { policy.cancelWhenDone = try reader.bool(cancel, "alerts.cancelWhenDone") }
        return policy
    }

    static func channelList(_ node: JSONNode?, _ path: String, reader: JSONReader, known: [String]) throws -> [String] {
        guard let node else { return [] }
        return try reader.array(node, path).enumerated().map { n, item in
            let name = try reader.string(item, "\(path)[\(n)]")
            guard known.contains(name) else {
                throw reader.fail(item, "\(path)[\(n)]", "no channel named \"\(name)\"" + Suggestion.hint(for: name, in: known)
                                  + (known.isEmpty ? "; define it under channels" : "; channels are " + known.joined(separator: ", ")))
            }
            return name
        }
    }

    static func duration(_ node: JSONNode, _ path: String, reader: JSONReader) throws -> TimeInterval {
        let text = try reader.string(node, path)
        guard let lead = LeadTime(duration: text) else {
            throw reader.fail(node, path, "expected a duration like 30s, 10m, 6h or 1d, got \"\(text)\"")
        }
        return TimeInterval(lead.days * 86_400 + lead.seconds)
    }

    static func secret(_ node: JSONNode, _ path: String, reader: JSONReader, environment: [String: String]) throws -> SecretSource {
        switch node.value {
        case .string(let value): return .inline(value)
        case .object(let members):
            guard members.count == 1, let member = members.first, member.key == "env" || member.key == "file" else {
                throw reader.expected("a string or {env: \"NAME\"} or {file: \"path\"}", node, path)
            }
            let value = try reader.string(member.value, path + "." + member.key)
            return member.key == "env" ? .environment(value) : .file(expandHome(value, environment))
        default:
            throw reader.expected("a string or {env: \"NAME\"} or {file: \"path\"}", node, path)
        }
    }

    static func expandHome(_ path: String, _ environment: [String: String]) -> String {
        guard path.hasPrefix("~/"), let home = environment["HOME"] else { return path }
        return home + path.dropFirst()
    }
}
