import Foundation

/// A signed, expiring, single-use action in an alert (Done, Snooze 1 h, Tomorrow 9:00): what the
/// link's token says, once its signature has been checked.
///
/// The token is base64url (no padding) of
/// `version · action · expiry (s) · occurrence start (ms) · event id · channel · HMAC-SHA256`,
/// integers big-endian 64-bit, the two texts each after a one-byte length, the MAC over every
/// byte before it under the store's 256-bit action-link key. Nothing in it is secret (the event
/// id and channel name are readable); the MAC makes it unforgeable, and its hex (`id`) is what
/// the store records when the link is used, so it works once.
public struct ActionLink: Sendable, Equatable {
    public enum Action: UInt8, Sendable, Equatable, CaseIterable {
        case done = 1, snooze = 2, tomorrow = 3

        /// `done`, `snooze`, `tomorrow` (template names: `{{doneURL}}` …, webhook `actions[].action`).
        public var name: String {
            switch self {
            case .done: "done"
            case .snooze: "snooze"
            case .tomorrow: "tomorrow"
            }
        }
    }

    /// Why a link is not acted on; `description` is the sentence the page shows.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a token at all (cut short, not base64url, unknown version).
        case malformed
        /// The signature does not match: altered, or signed by another datebook's key.
        case forged
        case expired(Date)
        case used
        /// The event it is about is no longer in the planner.
        case eventGone

        public var description: String {
            switch self {
            case .malformed: "This is not a datebook action link (it may have been cut short when copied)."
            case .forged: "This link was not signed by this planner: it was altered, or it comes from another datebook."
            case .expired(let date): "This link expired on \(ISOInstant.format(date)); use the links of a newer alert."
            case .used: "This link was used already; each action link works once."
            case .eventGone: "The event this link is about is no longer in the planner."
            }
        }
    }

    /// How long a link works after the alert that carries it was made.
    public static let defaultLifetime: TimeInterval = 7 * 86_400
    static let version: UInt8 = 1
    static let macLength = 32
    /// Keeps one key from ever meaning anything else (made per use: a `static let Data` is a heap
    /// object LeakSanitizer reports at exit, which the `action-link` fuzz target found).
    static let domain: StaticString = "datebook action link\0"

    public var action: Action
    public var eventID: String
    /// As in the ledger: milliseconds since 1970 (whole, rounded down).
    public var occurrenceStart: Date
    public var channel: String
    /// Whole seconds; refused from this moment on.
    public var expires: Date

    public init(action: Action, eventID: String, occurrenceStart: Date, channel: String, expires: Date) {
        self.action = action
        self.eventID = eventID
        self.occurrenceStart = Date(timeIntervalSince1970: (occurrenceStart.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        self.channel = channel
        self.expires = Date(timeIntervalSince1970: expires.timeIntervalSince1970.rounded(.down))
    }

    /// The signed token, or nil when the event id or channel name is longer than 255 bytes.
    public func token(key: Data) -> String? {
        guard let payload = payload() else { return nil }
        return Base64URL.encode(payload + Self.mac(payload, key: key))
    }

    /// The link `token` names, when it is well formed, signed with `key` and not expired at `now`.
    /// Use of a link once is the store's part (`id` of the token).
    public static func verify(_ token: String, key: Data, now: Date) throws(Refusal) -> ActionLink {
        guard let bytes = Base64URL.decode(token), bytes.count > macLength else { throw .malformed }
        let payload = bytes.prefix(bytes.count - macLength), signature = bytes.suffix(macLength)
        guard let link = parse(Data(payload)) else { throw .malformed }
        guard constantTimeEqual(mac(Data(payload), key: key), Data(signature)) else { throw .forged }
        guard now < link.expires else { throw .expired(link.expires) }
        return link
    }

    /// What the store records when the link is used: the hex of its MAC (unique to its contents).
    public static func id(of token: String) -> String? {
        guard let bytes = Base64URL.decode(token), bytes.count > macLength else { return nil }
        return Data(bytes.suffix(macLength)).hexString
    }

    func payload() -> Data? {
        let event = Data(eventID.utf8), channel = Data(channel.utf8)
        guard event.count <= 255, channel.count <= 255 else { return nil }
        var bytes = Data([Self.version, action.rawValue])
        Self.append(Int64(expires.timeIntervalSince1970), to: &bytes)
        Self.append(Int64((occurrenceStart.timeIntervalSince1970 * 1000).rounded(.down)), to: &bytes)
        bytes.append(UInt8(event.count))
        bytes.append(event)
        bytes.append(UInt8(channel.count))
        bytes.append(channel)
        return bytes
    }

    static func parse(_ payload: Data) -> ActionLink? {
        let bytes = [UInt8](payload)
        guard bytes.count >= 20, bytes[0] == version, let action = Action(rawValue: bytes[1]) else { return nil }
        let expires = integer(bytes[2..<10]), occurrence = integer(bytes[10..<18])
        var index = 18
        func text() -> String? {
            guard index < bytes.count else { return nil }
            let length = Int(bytes[index])
            guard index + 1 + length <= bytes.count else { return nil }
            defer { index += 1 + length }
            return String(validating: bytes[(index + 1)..<(index + 1 + length)], as: UTF8.self)
        }
        guard let eventID = text(), !eventID.isEmpty, let channel = text(), index == bytes.count else { return nil }
        return ActionLink(action: action, eventID: eventID, occurrenceStart: Date(timeIntervalSince1970: Double(occurrence) / 1000),
                          channel: channel, expires: Date(timeIntervalSince1970: Double(expires)))
    }

    static func mac(_ payload: Data, key: Data) -> Data {
        HMACSHA256.authenticationCode(key: key, message: domain.withUTF8Buffer { Data($0) } + payload)
    }

    static func append(_ value: Int64, to bytes: inout Data) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> Int64(shift))) }
    }

    static func integer(_ bytes: ArraySlice<UInt8>) -> Int64 {
        bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// Compares every byte whatever the first difference, so the time taken tells nothing.
    public static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Base64 with the URL- and filename-safe alphabet (RFC 4648 §5), without padding.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Nil for anything outside the alphabet (padding, `+`, `/`, whitespace included) and for a
    /// non-canonical spelling (unused low bits set), so each byte string has exactly one text.
    public static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ isAlphabet($0) }), text.utf8.count % 4 != 1 else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let data = Data(base64Encoded: standard), encode(data) == text else { return nil }
        return data
    }

    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
