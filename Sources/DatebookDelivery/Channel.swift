import Foundation

/// Where a secret comes from: written in the config, an environment variable, or a file.
public enum SecretSource: Sendable, Equatable, CustomStringConvertible {
    case inline(String)
    case environment(String)
    case file(String)

    /// Reads the secret; errors name the variable or file, never the value.
    public func resolve(environment: [String: String]) throws -> Secret {
        switch self {
        case .inline(let value):
            return Secret(value)
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw ChannelError.unavailable("environment variable \(name) is not set")
            }
            return Secret(value)
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path),
                  let text = String(data: data, encoding: .utf8) else {
                throw ChannelError.unavailable("cannot read secret file \(path)")
            }
            return Secret(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    public var isInline: Bool {
        if case .inline = self { return true }
        return false
    }

    /// Safe to print: never the value.
    public var description: String {
        switch self {
        case .inline: "(inline)"
        case .environment(let name): "{env: \(name)}"
        case .file(let path): "{file: \(path)}"
        }
    }
}

/// A channel that cannot be used right now (missing secret, bad URL): exit 69.
public enum ChannelError: Error, Equatable, CustomStringConvertible {
    case unavailable(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): reason
        }
    }
}

/// Which body of a message a channel writes: plain text, Markdown or HTML.
public enum MessageFormat: String, Sendable, CaseIterable {
    case text, markdown, html
}

/// A named destination from the config (DESIGN.md: slack, discord, teams, mattermost, ntfy,
/// webhook, email, command, desktop, file).
public struct Channel: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case slack(url: SecretSource)
        case discord(url: SecretSource, username: String?)
        case teams(url: SecretSource)
        case mattermost(url: SecretSource, username: String?)
        case ntfy(server: String, topic: SecretSource, priority: Int?, tags: [String], token: SecretSource?)
        case webhook(url: SecretSource, secret: SecretSource?)
        case email(smtp: String, username: String?, password: SecretSource?, from: String, to: [String], requireTLS: Bool)
        case command(argv: [String])
        case desktop(DesktopOptions)
        case file(path: String, format: MessageFormat)
    }

    public var name: String
    public var kind: Kind
    /// Skip TLS verification (self-hosted servers only); a warning is logged on every use.
    public var insecure: Bool
    /// PEM file of certificates to trust (private CA, tests).
    public var caFile: String?
    /// Seconds allowed for one attempt (transfer or command run).
    public var timeout: TimeInterval

    public init(name: String, kind: Kind, insecure: Bool = false, caFile: String? = nil, timeout: TimeInterval = 30) {
        self.name = name
        self.kind = kind
        self.insecure = insecure
        self.caFile = caFile
        self.timeout = timeout
    }

    /// The config `type` word.
    public var type: String {
        switch kind {
        case .slack: "slack"
        case .discord: "discord"
        case .teams: "teams"
        case .mattermost: "mattermost"
        case .ntfy: "ntfy"
        case .webhook: "webhook"
        case .email: "email"
        case .command: "command"
        case .desktop: "desktop"
        case .file: "file"
        }
    }

    public static let types = ["slack", "discord", "teams", "mattermost", "ntfy", "webhook", "email", "command", "desktop", "file"]

    /// `slack 'team'`: how messages name a channel.
    public var label: String { "\(type) '\(name)'" }

    /// Every secret the channel reads (URL, topic, token, password, signing secret).
    public var secretSources: [SecretSource] {
        switch kind {
        case .slack(let url), .teams(let url), .discord(let url, _), .mattermost(let url, _): [url]
        case .webhook(let url, let secret): [url] + (secret.map { [$0] } ?? [])
        case .ntfy(_, let topic, _, _, let token): [topic] + (token.map { [$0] } ?? [])
        case .email(_, _, let password, _, _, _): password.map { [$0] } ?? []
        case .command, .desktop, .file: []
        }
    }

    /// The URL the channel connects to (its secret resolved), or nil for a channel that sends
    /// nothing over the network (command, desktop, file).
    public func endpoint(environment: [String: String]) throws -> String? {
        switch kind {
        case .slack(let url), .teams(let url), .discord(let url, _), .mattermost(let url, _), .webhook(let url, _):
            try url.resolve(environment: environment).value
        case .ntfy(let server, _, _, _, _): server
        case .email(let smtp, _, _, _, _, _): smtp
        case .command, .desktop, .file: nil
        }
    }

    /// Secrets written inline in the config file (for the file-permission warning).
    public var hasInlineSecret: Bool {
        switch kind {
        case .slack(let url), .teams(let url), .discord(let url, _), .mattermost(let url, _): url.isInline
        // A generic webhook's URL is often public; its signing secret is the credential.
        case .webhook(_, let secret): secret?.isInline ?? false
        case .ntfy(_, let topic, _, _, let token): topic.isInline || (token?.isInline ?? false)
        case .email(_, _, let password, _, _, _): password?.isInline ?? false
        case .command, .desktop, .file: false
        }
    }
}
