import Foundation

/// How much of one delivery a channel has already accepted: the leading parts of a message split
/// into several requests (a long Discord, Mattermost or Slack digest), or the email recipients whose
/// server took the message. Kept in the ledger, so a retry sends only the rest.
public struct DeliveryProgress: Sendable, Equatable, Codable {
    /// Requests of a split message accepted, from the first on.
    public var parts: Int
    /// Email addresses (bare, as in RCPT TO) that accepted the message.
    public var recipients: [String]

    public init(parts: Int = 0, recipients: [String] = []) {
        self.parts = parts
        self.recipients = recipients
    }

    public var isEmpty: Bool { parts == 0 && recipients.isEmpty }

    /// This progress, then `later` (reported by an attempt that sent only what this one left).
    public func followed(by later: DeliveryProgress) -> DeliveryProgress {
        DeliveryProgress(parts: parts + later.parts, recipients: recipients + later.recipients.filter { !recipients.contains($0) })
    }

    /// The ledger's text (`{"parts":3}`, `{"recipients":["ann@example.org"]}`); nil when empty.
    public var text: String? {
        guard !isEmpty else { return nil }
        var fields: [String] = []
        if parts > 0 { fields.append("\"parts\":\(parts)") }
        if !recipients.isEmpty, let list = try? JSONEncoder().encode(recipients) {
            fields.append("\"recipients\":" + String(decoding: list, as: UTF8.self))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Reads the ledger's text; nil or unreadable text is no progress (the whole delivery is sent).
    public init(text: String?) {
        struct Stored: Decodable {
            var parts: Int?
            var recipients: [String]?
        }
        let stored = text.flatMap { try? JSONDecoder().decode(Stored.self, from: Data($0.utf8)) }
        self.init(parts: max(0, stored?.parts ?? 0), recipients: stored?.recipients ?? [])
    }

    /// `parts 1–3 sent` / `accepted by ann@example.org`, for the ledger's reason.
    public var summary: String {
        var said: [String] = []
        if parts > 0 { said.append(parts == 1 ? "part 1 sent" : "parts 1–\(parts) sent") }
        if !recipients.isEmpty { said.append("accepted by " + recipients.joined(separator: ", ")) }
        return said.joined(separator: "; ")
    }
}

extension DeliveryStep {
    /// What is left to send once `progress` is accepted: the parts after those sent, the email to
    /// the recipients that have not taken it (the To header still names everyone). Unchanged for
    /// the other channels, which have no parts.
    public func remaining(after progress: DeliveryProgress) -> DeliveryStep {
        switch self {
        case .http(let requests) where progress.parts > 0:
            return .http(Array(requests.dropFirst(progress.parts)))
        case .email(let configuration, var message) where !progress.recipients.isEmpty:
            message.envelope = message.recipients.filter { !progress.recipients.contains($0.cleanAddress) }
            return .email(configuration, message)
        default:
            return self
        }
    }
}
