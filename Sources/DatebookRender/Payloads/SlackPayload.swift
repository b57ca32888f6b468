import DatebookCore
import DatebookDelivery
import Foundation

/// Slack incoming-webhook payload: Block Kit (header + sections + context) with a `text`
/// fallback. Event text goes only into `plain_text` objects with `&`, `<`, `>` escaped, and the
/// fallback is sent with `"mrkdwn": false` (`ServiceMarkup.slack`), so no mention, channel ping,
/// spoofed link or formatting can be formed from data.
public enum SlackPayload {
    public struct Options: Sendable, Equatable {
        public var url: Secret
        public init(url: Secret) { self.url = url }
    }

    static let headerLimit = 150
    static let sectionLimit = 3000
    /// Sections in one message: with the header and the closing blocks (facts, link, buttons,
    /// at most 4) within Slack's 50 blocks.
    static let maxSections = 45
    /// Messages one delivery is split into at most; the rest is cut with a note.
    static let maxMessages = 10

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let title = PayloadText.decoratedTitle(message)
        // Escape first, then cut on whole atoms so the limit holds and no entity is split.
        let titleAtoms = ServiceMarkup.slackAtoms(title)
        var header = PayloadText.split(atoms: titleAtoms, limit: headerLimit - 1).first ?? ""
        if header.utf16.count < titleAtoms.joined().utf16.count { header += "…" }
        let headerBlock: JSONValue = ["type": "header", "text": ["type": "plain_text", "text": .string(header), "emoji": true]]
        let shownBody = PayloadText.withoutLinkLine(PayloadText.bodyText(message), message)
        var sections = PayloadText.split(atoms: ServiceMarkup.slackAtoms(shownBody), limit: sectionLimit)
            .filter { !$0.isEmpty }.map { JSONValue.object(["type": "section", "text": ["type": "plain_text", "text": .string($0), "emoji": true]]) }
        // An empty digest keeps its body: the outline has no sections to say "Nothing planned".
        if let outline = message.outline, !outline.sections.isEmpty { sections = digestSections(outline) }
        // What follows the sections, in the last message.
        var closing: [JSONValue] = []
        if sections.count > maxSections * maxMessages {
            sections = Array(sections.prefix(maxSections * maxMessages))
            closing.append(["type": "context", "elements": [["type": "mrkdwn", "text": .string("_" + ServiceMarkup.slack(message.labels.truncated) + "_")]]])
        }
        if let event = message.event {
            var facts = PayloadText.showsStart(message) ? ["\(message.labels.starts) \(event.start)"] : []
            // The open tasks are counted once, in the body's line above them (`2 open tasks:`).
            if PayloadText.showsLocation(message) { facts.append("\(message.labels.location): \(event.location)") }
            if !facts.isEmpty {
                closing.append(["type": "context", "elements": [["type": "plain_text", "text": .string(ServiceMarkup.slack(facts.joined(separator: " · "))), "emoji": true]]])
            }
        }
        if let url = message.url, let link = slackLink(url) {
            closing.append(["type": "section", "text": ["type": "mrkdwn", "text": .string("<\(link)|\(ServiceMarkup.slack(PayloadText.linkLabel(url)))>")]])
        }
        let buttons: [JSONValue] = message.actions.filter { slackLink($0.url) != nil }.map { action in
            ["type": "button", "action_id": .string(action.name), "url": .string(action.url),
             "text": ["type": "plain_text", "text": .string(action.label)]]
        }
        if !buttons.isEmpty { closing.append(["type": "actions", "elements": .array(buttons)]) }
        // Slack takes 50 blocks a message: a longer message goes as several, in order, each of
        // them its own step for the ledger (a retry sends only the ones not yet accepted).
        let parts = stride(from: 0, to: max(sections.count, 1), by: maxSections).map { Array(sections.dropFirst($0).prefix(maxSections)) }
        let fallbackBody = message.outline.flatMap { $0.sections.isEmpty ? nil : PayloadText.summaryBesideTitle(message, $0) }
            ?? PayloadText.bodyText(message)
        return parts.enumerated().map { index, part in
            let blocks = (index == 0 ? [headerBlock] : []) + part + (index == parts.count - 1 ? closing : [])
            // The fallback is what a notification shows: the title and summary first, then which part.
            let fallback = index == 0 ? PayloadText.truncate(fallbackBody.isEmpty ? title : "\(title)\n\(fallbackBody)", limit: 3000)
                : PayloadText.truncate(title, limit: 2900) + " (\(index + 1)/\(parts.count))"
            let body: JSONValue = ["text": .string(ServiceMarkup.slack(fallback)), "mrkdwn": false, "blocks": .array(blocks)]
            return PayloadText.jsonRequest(url: options.url.value, body: body)
        }
    }

    /// A digest as Slack shows it well in its proportional font: per period a bold heading
    /// (datebook's own words, `mrkdwn`), then the period's events one a line with their tasks
    /// indented under them, in `plain_text` sections (event text never formats; Slack's `mrkdwn`
    /// has no escape for `*`, `_`, `~` or backticks). No month grid: it needs a monospace font.
    static func digestSections(_ outline: DigestOutline) -> [JSONValue] {
        var blocks: [JSONValue] = []
        for section in outline.sections {
            blocks.append(["type": "section", "text": ["type": "mrkdwn", "text": .string("*" + ServiceMarkup.slack(section.heading) + "*")]])
            var lines: [String] = []
            for entry in section.events {
                lines.append("• " + entry.heading + (entry.details.isEmpty ? "" : " — " + entry.details))
                lines += entry.tasks.map { "      " + $0.line }
            }
            if !section.more.isEmpty { lines.append("… " + section.more) }
            for piece in PayloadText.split(atoms: ServiceMarkup.slackAtoms(lines.joined(separator: "\n")), limit: sectionLimit)
            where !piece.isEmpty {
                blocks.append(["type": "section", "text": ["type": "plain_text", "text": .string(piece), "emoji": true]])
            }
        }
        return blocks
    }

    /// An http(s) URL made safe inside `<…|…>`: escaped, with `|` percent-encoded.
    static func slackLink(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        return ServiceMarkup.slack(url.replacingOccurrences(of: "|", with: "%7C"))
    }
}
