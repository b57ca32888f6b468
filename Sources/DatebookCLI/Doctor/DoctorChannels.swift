import DatebookDelivery
import Foundation

/// `datebook doctor`'s channel checks: the host resolves and takes a connection, its TLS
/// certificate verifies (nothing is sent), a command is found; with `--send`, a test message.
enum DoctorChannels {
    static func check(_ context: Context, send: Bool, offline: Bool = false) -> [Finding] {
        var findings = context.config.channels.compactMap { reach($0, context, offline: offline) }
        // A channel to an example host is never sent to either: nothing there would accept it.
        let sendable = context.config.channels.filter { exampleHost($0, context) == nil }
        if send, !sendable.isEmpty {
            let delivery = InteractiveDelivery(context: context, wait: 10)
            let items = sendable.map { InteractiveDelivery.Item(channel: $0, message: ChannelsCommand.testMessage(to: $0, context)) }
            for (item, result) in zip(items, delivery.deliver(items)) {
                let subject = "channel " + item.channel.label
                switch result {
                case .sent: findings.append(.ok(subject, "test message sent"))
                case .unavailable(let reason), .failed(let reason), .gaveUp(let reason):
                    findings.append(.fail(subject, "test message not sent: " + InteractiveDelivery.withoutLabel(of: item.channel, reason),
                                          unavailable: true))
                }
            }
        }
        return findings
    }

    /// Whether the channel's destination can be reached; nil for a file channel (its folder is
    /// made when it first writes) and for a channel whose secret is missing (reported already).
    static func reach(_ channel: Channel, _ context: Context, offline: Bool = false) -> Finding? {
        let subject = "channel " + channel.label
        switch channel.kind {
        case .command(let argv):
            return program(argv.first ?? "", subject, context)
        case .desktop(let options):
            return program(options.command, subject, context)
        case .file:
            return nil
        default:
            break
        }
        guard let url = try? channel.endpoint(environment: context.environment) else { return nil }
        let origin = ConnectionProbe.origin(of: url).map(redactURL) ?? redactURL(url)
        if let host = exampleHost(channel, context) {
            return .skip(subject, "example host \(host) (reserved by RFC 2606, never looked up); put the service's real address in the config")
        }
        if offline { return .skip(subject, "\(origin) not looked up (--offline)") }
        switch ConnectionProbe(timeout: min(channel.timeout, 10)).check(url: url, caFile: channel.caFile, insecure: channel.insecure) {
        case .success:
            let secure = origin.hasPrefix("https:") || origin.hasPrefix("smtps:")
            if channel.insecure { return .warn(subject, "\(origin) reachable, but its TLS certificate is not checked (insecure: true)") }
            return secure ? .ok(subject, "\(origin) reachable, TLS certificate valid")
                : .warn(subject, "\(origin) reachable without TLS: messages travel unencrypted")
        case .failure(let error):
            return .fail(subject, error.description, unavailable: true)
        }
    }

    /// The channel's host when it is a reserved example name (RFC 2606 and 6761): `example.org`,
    /// `example.com`, `example.net` and their subdomains, and names under `.example`, `.invalid`, `.test`.
    static func exampleHost(_ channel: Channel, _ context: Context) -> String? {
        guard let url = try? channel.endpoint(environment: context.environment),
              let host = URLComponents(string: url)?.host?.lowercased() else { return nil }
        return ExampleHosts.isExample(host) ? host : nil
    }

    static func program(_ name: String, _ subject: String, _ context: Context) -> Finding {
        if let path = ProgramSearch.find(name, environment: context.environment) {
            return .ok(subject, "runs \(path)")
        }
        return .fail(subject, "'\(name)' not found in PATH; install it or give its absolute path", unavailable: true)
    }
}

/// Finds a program the way a shell does, in the `PATH` of the environment datebook was given
/// (so tests can put stand-ins first).
enum ProgramSearch {
    static func find(_ name: String, environment: [String: String]) -> String? {
        guard !name.isEmpty else { return nil }
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Host names reserved for documentation and testing, which no real service answers to.
enum ExampleHosts {
    static let domains = ["example.org", "example.com", "example.net"]
    static let topLevel = ["example", "invalid", "test"]

    static func isExample(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if domains.contains(where: { name == $0 || name.hasSuffix("." + $0) }) { return true }
        let last = name.split(separator: ".").last.map(String.init) ?? name
        return topLevel.contains(last)
    }
}
