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

    /// `text.lowercased()`: ASCII text byte by byte (itself when it has no capital), other text
    /// through `lowercased()`. Header names were lowered about 50 times per 304 (each response
    /// header against each name asked for), 2 % of its CPU with the allocations.
    static func lowercased(_ text: String) -> String {
        var capitals = false
        for byte in text.utf8 {
            if byte >= 0x80 { return text.lowercased() }
            if byte &- 65 < 26 { capitals = true }
        }
        guard capitals else { return text }
        return String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            var count = 0
            for byte in text.utf8 {
                buffer[count] = byte &- 65 < 26 ? byte | 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// Whether two header names are the same name: equal but for the case of ASCII letters (a
    /// name is an ASCII token, RFC 9110 section 5.1; other bytes must be equal).
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) &- 97 < 26)
        }
    }
}
