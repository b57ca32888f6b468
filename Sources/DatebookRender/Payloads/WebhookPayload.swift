import DatebookCore
import DatebookDelivery
import Foundation

/// Generic JSON webhook, schema `datebook.v1`:
///
///     {"schema":"datebook.v1","kind":"alert|digest|test","idempotencyKey":"…",
///      "title":"…","text":"…","markdown":"…","html":"…"|null,"url":"…"|null,
///      "event":{"id","title","start","end"|null,"allDay","timeZone","symbol",
///               "colorName","colorHex","notes","openTasks"}|null}
///
/// Keys are always present (null when absent); new keys may be added, none renamed.
/// Headers: `Idempotency-Key`, and with a secret `X-Datebook-Signature: sha256=<hex>`,
/// the HMAC-SHA256 of the exact body bytes.
public enum WebhookPayload {
    public struct Options: Sendable, Equatable {
        public var url: Secret
        public var secret: Secret?
        public init(url: Secret, secret: Secret? = nil) {
            self.url = url
            self.secret = secret
        }
    }

    public static let schema = "datebook.v1"

    public static func requests(for message: OutgoingMessage, options: Options) -> [HTTPRequest] {
        let body = document(message).data
        var headers: [HTTPRequest.Header] = [.init("Idempotency-Key", message.idempotencyKey.strippingLineBreaks)]
        var redactions: [String] = []
        if let secret = options.secret {
            let mac = HMACSHA256.authenticationCode(key: Data(secret.value.utf8), message: body)
            headers.append(.init("X-Datebook-Signature", "sha256=" + mac.hexString))
            redactions.append(secret.value)
        }
        return [
            HTTPRequest(
                method: "POST", url: options.url.value,
                headers: [.init("Content-Type", "application/json; charset=utf-8")] + headers,
                body: body, redactions: redactions)
        ]
    }

    static func document(_ message: OutgoingMessage) -> JSONValue {
        var event: JSONValue = .null
        if let value = message.event {
            event = [
                "id": .string(value.id), "title": .string(value.title), "start": .string(value.start),
                "end": .optional(value.end), "allDay": .bool(value.allDay), "timeZone": .string(value.timeZone),
                "symbol": .string(value.symbol), "colorName": .string(value.colorName),
                "colorHex": .string(value.colorHex), "notes": .string(value.notes), "openTasks": .int(value.openTasks),
                "location": value.location.isEmpty ? .null : .string(value.location), "url": .optional(value.url),
            ]
        }
        return [
            "schema": .string(schema), "kind": .string(message.kind.rawValue),
            "idempotencyKey": .string(message.idempotencyKey), "title": .string(message.title),
            "text": .string(message.text), "markdown": .string(message.markdown),
            "html": .optional(message.html), "url": .optional(message.url), "event": event,
        ]
    }
}
