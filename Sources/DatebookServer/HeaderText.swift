/// Header and address text trimmed and searched byte by byte, without Foundation.
///
/// `trimmingCharacters(in: .whitespaces)` and `String.contains("%")` go through NSString on Linux;
/// on the feed's 304 path (the `Host`, the `If-None-Match` value, the peer's address, every header
/// value) they were a tenth of the server's CPU per 304 under load (`perf`, bench/results-serve.md). HTTP's
/// optional whitespace is only spaces and tabs (RFC 9110 section 5.6.3), which is all this trims;
/// `HeaderTextTests` compares it with the Foundation calls on such text.
enum HeaderText {
    /// `text` without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 }),
              let last = bytes.lastIndex(where: { $0 != 32 && $0 != 9 }) else { return "" }
        return String(text[first...last])
    }

    static func trimmed(_ text: String) -> String { trimmed(text[...]) }

    /// True when `text` holds the ASCII byte `byte`.
    static func contains<Text: StringProtocol>(_ text: Text, _ byte: UInt8) -> Bool {
        text.utf8.contains(byte)
    }

    /// How many times `text` holds the ASCII byte `byte`.
    static func count<Text: StringProtocol>(_ text: Text, _ byte: UInt8) -> Int {
        text.utf8.reduce(0) { $0 + ($1 == byte ? 1 : 0) }
    }
}
