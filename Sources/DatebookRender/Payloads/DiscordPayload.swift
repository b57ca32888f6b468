import DatebookCore
import DatebookDelivery
import Foundation

/// Discord webhook payload: embeds coloured from the event's `colorHex`, always with
/// `"allowed_mentions":{"parse":[]}` so no text can ping anyone. Long digests are split
/// into several messages, in order, within Discord's limits.
public enum DiscordPayload {
    public typealias Options = NamedWebhookOptions

    static let titleLimit = 256
    static let descriptionLimit = 4096
    static let maxEmbeds = 10
    static let messageLimit = 6000
    static let fieldLimit = 1024

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let title = PayloadText.escaped(PayloadText.decoratedTitle(message), limit: titleLimit, by: ServiceMarkup.discord)
        // Field values are Markdown on Discord (masked links included): each one escaped, then cut.
        var fields: [(name: String, value: String)] = []
        if let event = message.event {
            if PayloadText.showsStart(message) {
                fields.append((message.labels.starts, PayloadText.escaped(event.start, limit: fieldLimit, by: ServiceMarkup.discord)))
            }
            // No "Open tasks" field: the description counts them once, in the line above them.
            if PayloadText.showsLocation(message) {
                fields.append((message.labels.location, PayloadText.escaped(event.location, limit: fieldLimit, by: ServiceMarkup.discord)))
            }
        }
        let fieldValues: [JSONValue] = fields.map { ["name": .string($0.name), "value": .string($0.value), "inline": true] }
        // Names and values of the fields, as Discord counts them toward the message's limit.
        let fieldChars = fields.reduce(0) { $0 + PayloadText.length($1.name) + PayloadText.length($1.value) }
        let chunkLimit = min(descriptionLimit, messageLimit - PayloadText.length(title) - fieldChars)
        let links = PayloadText.markdownLinks(message)
        let chunks = PayloadText.split(PayloadText.bodyMarkdown(message) + (links.isEmpty ? "" : "\n\n" + links), limit: chunkLimit)
        var embeds: [(embed: JSONValue, size: Int)] = []
        for (index, chunk) in chunks.enumerated() {
            var embed: [String: JSONValue] = ["description": .string(chunk)]
            var size = PayloadText.length(chunk)
            if index == 0 {
                embed["title"] = .string(title)
                size += PayloadText.length(title)
                if let url = message.url, url.lowercased().hasPrefix("http") { embed["url"] = .string(url) }
            }
            if index == chunks.count - 1, !fieldValues.isEmpty {
                embed["fields"] = .array(fieldValues)
                size += fieldChars
            }
            if let color = message.colorValue { embed["color"] = .int(color) }
            embeds.append((.object(embed), size))
        }
        var groups: [[JSONValue]] = []
        var current: [JSONValue] = []
        var currentSize = 0
        for (embed, size) in embeds {
            if !current.isEmpty && (current.count == maxEmbeds || currentSize + size > messageLimit) {
                groups.append(current)
                current = []
                currentSize = 0
            }
            current.append(embed)
            currentSize += size
        }
        if !current.isEmpty { groups.append(current) }
        return groups.map { group in
            var body: [String: JSONValue] = ["allowed_mentions": ["parse": []], "embeds": .array(group)]
            if let username = options.username { body["username"] = .string(PayloadText.truncate(username, limit: 80)) }
            return PayloadText.jsonRequest(url: waitURL(options.url.value), body: .object(body))
        }
    }

    /// Adds `wait=true` so Discord confirms the message (200 + JSON) instead of 204 on enqueue.
    static func waitURL(_ url: String) -> String {
        guard !url.contains("wait=") else { return url }
        return url + (url.contains("?") ? "&" : "?") + "wait=true"
    }
}
