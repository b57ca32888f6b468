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

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let priority = min(5, max(1, options.priority ?? (message.kind == .alert ? 4 : 3)))
        var body: [String: JSONValue] = [
            "topic": .string(options.topic.value),
            "title": .string(PayloadText.decoratedTitle(message)),
            "message": .string(PayloadText.truncate(message.markdown, bytes: messageBytes, note: "\n… (truncated)")),
            "priority": .int(priority),
            "tags": .array(options.tags.map(JSONValue.string)),
            "markdown": true,
        ]
        if let url = message.url, url.lowercased().hasPrefix("http") { body["click"] = .string(url) }
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
