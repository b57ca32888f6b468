import DatebookCore
import DatebookDelivery
import Foundation

/// Microsoft Teams Workflows webhook payload: one Adaptive Card 1.4 in a `message`
/// attachment, kept under 28 KB (as encoded) by cutting the body text with a note.
public enum TeamsPayload {
    public struct Options: Sendable, Equatable {
        public var url: Secret
        public init(url: Secret) { self.url = url }
    }

    static let byteLimit = 28_000

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        if let outline = message.outline, !outline.sections.isEmpty {
            return [PayloadText.jsonRequest(url: options.url.value, body: digestCard(message, outline))]
        }
        // Measured as sent: the cut is made on the encoded card, never on the text before escaping.
        let text = PayloadText.longestFitting(PayloadText.withoutLinkLine(PayloadText.bodyMarkdown(message), message), note: "\n\n… (truncated: too long for Teams)") {
            card(message, text: $0).data.count <= byteLimit
        }
        return [PayloadText.jsonRequest(url: options.url.value, body: card(message, text: text))]
    }

    static func card(_ message: OutgoingMessage, text: String) -> JSONValue {
        let items: [JSONValue] = [
            ["type": "TextBlock", "text": .string(ServiceMarkup.teams(PayloadText.decoratedTitle(message))), "size": "Large", "weight": "Bolder", "wrap": true],
            ["type": "TextBlock", "text": .string(text), "wrap": true],
        ]
        return envelope(message, items: items, withFacts: true)
    }

    static let truncatedNote = "… (truncated: too long for Teams)"

    /// A digest built from Adaptive Card elements, which have no Markdown headings, rules or
    /// nested lists: the title and summary (not again when the title ends with it), then a
    /// Container per period with a bolder heading, each event as a TextBlock with its details
    /// under it and each task as its own `☐`/`☑` TextBlock. Sized as encoded: events are left out from the end until the card fits, with
    /// a note, and the title and summary always stay.
    static func digestCard(_ message: OutgoingMessage, _ outline: DigestOutline) -> JSONValue {
        let total = outline.sections.reduce(0) { $0 + $1.events.count }
        func card(keeping kept: Int) -> JSONValue {
            var items: [JSONValue] = [textBlock(PayloadText.decoratedTitle(message), ["size": "Large", "weight": "Bolder"])]
            let summary = PayloadText.summaryBesideTitle(message, outline)
            if !summary.isEmpty { items.append(textBlock(summary, ["isSubtle": true, "spacing": "None"])) }
            var left = kept
            for section in outline.sections where left > 0 {
                var rows: [JSONValue] = [textBlock(section.heading, ["size": "Medium", "weight": "Bolder"])]
                for entry in section.events.prefix(left) {
                    rows.append(textBlock(entry.heading, ["spacing": "Small"]))
                    if !entry.details.isEmpty { rows.append(textBlock(entry.details, ["isSubtle": true, "spacing": "None"])) }
                    rows += entry.tasks.map { textBlock($0.line, ["spacing": "None"]) }
                }
                if section.events.count <= left, !section.more.isEmpty { rows.append(textBlock("… " + section.more, ["isSubtle": true])) }
                left -= min(left, section.events.count)
                items.append(["type": "Container", "separator": true, "spacing": "Medium", "items": .array(rows)])
            }
            if kept < total { items.append(textBlock(truncatedNote, ["isSubtle": true])) }
            return envelope(message, items: items, withFacts: false)
        }
        // The most events that fit as encoded (binary search; zero always fits a sane title).
        var low = 0, high = total + 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if card(keeping: middle).data.count <= byteLimit { low = middle } else { high = middle }
        }
        return card(keeping: low)
    }

    /// A wrapping TextBlock of `text`, escaped so it shows literally.
    static func textBlock(_ text: String, _ style: [String: JSONValue] = [:]) -> JSONValue {
        let block: [String: JSONValue] = ["type": "TextBlock", "text": .string(ServiceMarkup.teams(text)), "wrap": true]
        return .object(block.merging(style) { $1 })
    }

    static func envelope(_ message: OutgoingMessage, items: [JSONValue], withFacts: Bool) -> JSONValue {
        var items = items
        if withFacts, let event = message.event {
            var facts: [JSONValue] = []
            if PayloadText.showsStart(message) {
                facts.append(["title": .string(message.labels.starts), "value": .string(ServiceMarkup.teams(event.start))])
            }
            if let end = event.end, PayloadText.showsStart(message) { facts.append(["title": .string(message.labels.ends), "value": .string(ServiceMarkup.teams(end))]) }
            if PayloadText.showsLocation(message) { facts.append(["title": .string(message.labels.location), "value": .string(ServiceMarkup.teams(event.location))]) }
            // No "Open tasks" fact: the body counts them once, in the line above them.
            if !facts.isEmpty { items.append(["type": "FactSet", "facts": .array(facts)]) }
        }
        var content: [String: JSONValue] = [
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "type": "AdaptiveCard", "version": "1.4", "body": .array(items),
            "msteams": ["width": "Full"],
        ]
        var actions: [JSONValue] = []
        if let url = message.url, url.lowercased().hasPrefix("http") {
            actions.append(["type": "Action.OpenUrl", "title": .string(PayloadText.linkLabel(url)), "url": .string(url)])
        }
        for action in message.actions {
            actions.append(["type": "Action.OpenUrl", "title": .string(action.label), "url": .string(action.url)])
        }
        if !actions.isEmpty { content["actions"] = .array(actions) }
        return [
            "type": "message",
            "attachments": [["contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": .null, "content": .object(content)]],
        ]
    }
}
