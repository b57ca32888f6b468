import DatebookCore
import DatebookDelivery
import Foundation

/// Mattermost incoming-webhook payload (Slack-compatible `text`, Markdown allowed): the title
/// escaped by `ServiceMarkup.mattermost`, no `<url|text>` left for Mattermost to rewrite into a
/// link, and `@channel`, `@here`, `@all` and `@everyone` neutralised by a zero-width space.
public enum MattermostPayload {
    public typealias Options = NamedWebhookOptions

    static let textLimit = 16_000

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        var text = "#### \(ServiceMarkup.mattermost(PayloadText.decoratedTitle(message)))\n\n\(PayloadText.withoutLinkLine(PayloadText.bodyMarkdown(message), message))"
        if let url = message.url, url.lowercased().hasPrefix("http") { text += "\n\n[\(ServiceMarkup.mattermost(PayloadText.linkLabel(url)))](\(PayloadText.markdownURL(url)))" }
        let links = PayloadText.markdownLinks(message)
        if !links.isEmpty { text += "\n\n" + links }
        let safe = PayloadText.neutraliseMentions(ServiceMarkup.mattermostMessage(text))
        return PayloadText.split(safe, limit: textLimit).map { piece in
            var body: [String: JSONValue] = ["text": .string(piece)]
            if let username = options.username { body["username"] = .string(PayloadText.neutraliseMentions(username)) }
            return PayloadText.jsonRequest(url: options.url.value, body: .object(body))
        }
    }
}
