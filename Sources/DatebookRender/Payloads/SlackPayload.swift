import DatebookCore
import DatebookDelivery
import Foundation

/// Slack incoming-webhook payload: Block Kit (header + mrkdwn sections + context) with a
/// `text` fallback. Every piece of event text has `&`, `<`, `>` escaped, so no mention,
/// channel ping or spoofed link can be formed from data.
public enum SlackPayload {
    public struct Options: Sendable, Equatable {
        public var url: Secret
        public init(url: Secret) { self.url = url }
    }

    static let headerLimit = 150
    static let sectionLimit = 3000
    static let maxSections = 45

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let title = PayloadText.decoratedTitle(message)
        // Escape first, then cut on whole atoms so the limit holds and no entity is split.
        let titleAtoms = PayloadText.atoms(slackEscaping: title)
        var header = PayloadText.split(atoms: titleAtoms, limit: headerLimit - 1).first ?? ""
        if header.utf16.count < titleAtoms.joined().utf16.count { header += "…" }
        var blocks: [JSONValue] = [
            ["type": "header", "text": ["type": "plain_text", "text": .string(header), "emoji": true]]
        ]
        let sections = PayloadText.split(atoms: PayloadText.atoms(slackEscaping: message.text), limit: sectionLimit)
        for section in sections.prefix(maxSections) where !section.isEmpty {
            blocks.append(["type": "section", "text": ["type": "mrkdwn", "text": .string(section)]])
        }
        if sections.count > maxSections {
            blocks.append(["type": "context", "elements": [["type": "mrkdwn", "text": "_(truncated)_"]]])
        }
        if let event = message.event {
            var facts = ["Starts \(event.start)"]
            if !event.location.isEmpty { facts.append("at " + event.location) }
            if event.openTasks > 0 { facts.append("\(event.openTasks) open task\(event.openTasks == 1 ? "" : "s")") }
            blocks.append(["type": "context", "elements": [["type": "mrkdwn", "text": .string(PayloadText.slackEscape(facts.joined(separator: " · ")))]]])
        }
        if let url = message.url, let link = slackLink(url) {
            blocks.append(["type": "section", "text": ["type": "mrkdwn", "text": .string("<\(link)|Open>")]])
        }
        let fallback = PayloadText.slackEscape(PayloadText.truncate("\(title)\n\(message.text)", limit: 3000))
        let body: JSONValue = ["text": .string(fallback), "blocks": .array(blocks)]
        return [PayloadText.jsonRequest(url: options.url.value, body: body)]
    }

    /// An http(s) URL made safe inside `<…|…>`: escaped, with `|` percent-encoded.
    static func slackLink(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        return PayloadText.slackEscape(url.replacingOccurrences(of: "|", with: "%7C"))
    }
}
