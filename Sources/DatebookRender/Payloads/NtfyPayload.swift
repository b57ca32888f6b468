import DatebookCore
import DatebookDelivery
import Foundation

/// ntfy JSON publish to the server's base URL (never raw `X-Title`-style headers, so
/// event text cannot inject header values). The topic and token are secrets.
public enum NtfyPayload {
    public struct Options: Sendable, Equatable {
        /// Server base URL, e.g. `https://ntfy.sh`.
        public var server: String
        public var topic: Secret
        /// 1–5; default by kind (alert 4, digest and test 3).
        public var priority: Int?
        public var tags: [String]
        /// Access token, sent as `Authorization: Bearer …`.
        public var token: Secret?

        public init(server: String, topic: Secret, priority: Int? = nil, tags: [String] = ["calendar"], token: Secret? = nil) {
            self.server = server
            self.topic = topic
            self.priority = priority
            self.tags = tags
            self.token = token
        }
    }

    static let messageBytes = 4000
    /// The server's cap on a published body.
    static let bodyBytes = 8192
    static let maxActions = 3

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let priority = min(5, max(1, options.priority ?? (message.kind == .alert ? 4 : 3)))
        var body: [String: JSONValue] = [
            "topic": .string(options.topic.value),
            "title": .string(PayloadText.decoratedTitle(message)),
            "message": .string(PayloadText.truncate(PayloadText.bodyMarkdown(message), bytes: messageBytes, note: "\n… (truncated)")),
            "priority": .int(priority),
            "tags": .array(options.tags.map(JSONValue.string)),
            "markdown": true,
        ]
        if let url = message.url, url.lowercased().hasPrefix("http") { body["click"] = .string(url) }
        if !message.actions.isEmpty {
            // ntfy shows at most three buttons; the event's page is where a tap on the notification goes.
            let views: [JSONValue] = message.actions.filter { $0.name != "event" }.prefix(maxActions).map { action in
                ["action": "view", "label": .string(action.label), "url": .string(action.url), "clear": true]
            }
            body["actions"] = .array(views)
            if body["click"] == nil, let page = message.actionURL("event") { body["click"] = .string(page) }
        }
        // ntfy refuses a body over 8,192 bytes (413): the message is cut again, measured as
        // encoded, when JSON escaping pushes the body past.
        let complete = body
        body["message"] = .string(PayloadText.longestFitting(
            PayloadText.truncate(PayloadText.bodyMarkdown(message), bytes: messageBytes, note: "\n… (truncated)"), note: "\n… (truncated)"
        ) { text in
            var candidate = complete
            candidate["message"] = .string(text)
            return JSONValue.object(candidate).data.count <= bodyBytes
        })
        var headers: [HTTPRequest.Header] = []
        var redactions = [options.topic.value]
        if let token = options.token {
            headers.append(.init("Authorization", "Bearer \(token.value)"))
            redactions.append(token.value)
        }
        var server = options.server
        while server.hasSuffix("/") { server.removeLast() }
        return [PayloadText.jsonRequest(url: server, body: .object(body), redactions: redactions, extraHeaders: headers)]
    }
}
