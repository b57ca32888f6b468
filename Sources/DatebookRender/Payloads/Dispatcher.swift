import DatebookDelivery
import Foundation

/// Turns a message for a channel into a `DeliveryStep`: payload building plus secret resolution.
public struct Dispatcher: Sendable {
    public var environment: [String: String]
    public var now: Date
    public var timeZone: TimeZone
    public var host: String
    /// Whose session bus a desktop notification goes to when the environment names none.
    public var uid: UInt32
    /// The notification server's capabilities on a bus (asked when a desktop channel leaves `actions` unset).
    public var desktopCapabilities: @Sendable (_ busAddress: String) -> Set<String> = { SessionBus.capabilities(address: $0) }

    public init(environment: [String: String], now: Date, timeZone: TimeZone, host: String = "localhost",
                uid: UInt32 = getuid()) {
        self.environment = environment
        self.now = now
        self.timeZone = timeZone
        self.host = host
        self.uid = uid
    }

    /// - Throws: `ChannelError.unavailable` when a secret cannot be read or the channel is misconfigured.
    public func prepare(_ message: OutgoingMessage, for channel: Channel) throws -> DeliveryStep {
        func secret(_ source: SecretSource) throws -> Secret {
            do { return try source.resolve(environment: environment) } catch let error as ChannelError {
                throw ChannelError.unavailable("\(channel.label): \(error)")
            }
        }
        func tuned(_ requests: [HTTPRequest]) -> [HTTPRequest] {
            requests.map { request in
                var request = request
                request.insecure = channel.insecure
                request.caInfo = channel.caFile
                request.timeout = channel.timeout
                return request
            }
        }
        switch channel.kind {
        case .slack(let url):
            return .http(tuned(SlackPayload.requests(for: message, options: .init(url: try secret(url)))))
        case .discord(let url, let username):
            return .http(tuned(DiscordPayload.requests(for: message, options: .init(url: try secret(url), username: username))))
        case .teams(let url):
            return .http(tuned(TeamsPayload.requests(for: message, options: .init(url: try secret(url)))))
        case .mattermost(let url, let username):
            return .http(tuned(MattermostPayload.requests(for: message, options: .init(url: try secret(url), username: username))))
        case .ntfy(let server, let topic, let priority, let tags, let token):
            let options = NtfyPayload.Options(server: server, topic: try secret(topic), priority: priority, tags: tags,
                                              token: try token.map(secret))
            return .http(tuned(NtfyPayload.requests(for: message, options: options)))
        case .webhook(let url, let signing):
            return .http(tuned(WebhookPayload.requests(for: message, options: .init(url: try secret(url), secret: try signing.map(secret)))))
        case .email(let smtp, let username, let password, let from, let to, let requireTLS):
            let configuration = SMTPConfiguration(url: smtp, username: username, password: try password.map(secret),
                                                  requireTLS: requireTLS, insecure: channel.insecure, caInfo: channel.caFile,
                                                  timeout: channel.timeout)
            let email = EmailMessage(message, from: EmailAddress(parsing: from), to: to.map(EmailAddress.init(parsing:)),
                                     date: now, host: host)
            return .email(configuration, email)
        case .command(let argv):
            return .command(argv: CommandRunner.expand(argv, with: message),
                            environment: CommandRunner.environment(for: message), timeout: channel.timeout)
        case .desktop(let options):
            let bus: String
            do { bus = try SessionBus.address(environment: environment, uid: uid) } catch {
                throw ChannelError.unavailable("\(channel.label): \(error)")
            }
            let buttons = DesktopNotification.canHaveButtons(message, options: options)
                && (options.actions ?? desktopCapabilities(bus).contains("actions"))
            let listening = buttons ? options.listenerEnvironment : [:]
            return .notification(argv: DesktopNotification.command(message, options: options, channel: channel.name, buttons: buttons),
                                 environment: listening.merging(["DBUS_SESSION_BUS_ADDRESS": bus]) { $1 }, timeout: channel.timeout)
        case .file(let pattern, let format):
            let body: String
            switch format {
            case .text: body = message.text
            case .markdown: body = message.markdown
            case .html: body = message.html ?? message.text
            }
            return .file(path: Self.expandPath(pattern, now: now, timeZone: timeZone, environment: environment), contents: body)
        }
    }

    /// `~/notes/{{date}}.md` → `/home/me/notes/2026-12-01.md` (date in the user's zone).
    static func expandPath(_ pattern: String, now: Date, timeZone: TimeZone, environment: [String: String]) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        var path = pattern.replacingOccurrences(of: "{{date}}", with: date)
        if path.hasPrefix("~/"), let home = environment["HOME"] { path = home + path.dropFirst() }
        return path
    }
}
