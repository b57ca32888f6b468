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
        // Measured as sent: the cut is made on the encoded card, never on the text before escaping.
        let text = PayloadText.longestFitting(PayloadText.bodyMarkdown(message), note: "\n\n… (truncated: too long for Teams)") {
            card(message, text: $0).data.count <= byteLimit
        }
        return [PayloadText.jsonRequest(url: options.url.value, body: card(message, text: text))]
    }

    static func card(_ message: OutgoingMessage, text: String) -> JSONValue {
        var items: [JSONValue] = [
            ["type": "TextBlock", "text": .string(ServiceMarkup.teams(PayloadText.decoratedTitle(message))), "size": "Large", "weight": "Bolder", "wrap": true],
            ["type": "TextBlock", "text": .string(text), "wrap": true],
        ]
        if let event = message.event {
            var facts: [JSONValue] = []
            if PayloadText.showsStart(message) {
                facts.append(["title": .string(message.labels.starts), "value": .string(ServiceMarkup.teams(event.start))])
            }
            if let end = event.end, PayloadText.showsStart(message) { facts.append(["title": .string(message.labels.ends), "value": .string(ServiceMarkup.teams(end))]) }
            if !event.location.isEmpty { facts.append(["title": .string(message.labels.location), "value": .string(ServiceMarkup.teams(event.location))]) }
            if event.openTasks > 0 { facts.append(["title": .string(message.labels.openTasks), "value": .string(String(event.openTasks))]) }
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
