/// Writing JSON text deterministically (stable key order, no escaped slashes) for exports and
/// payloads: the one JSON string escaper of datebook (`JSONValue` writes its strings through it).
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quote(_ text: String) -> String {
        // Most texts need no escape: checking the bytes first made a 100k-event export's quoting
        // (27% of its time, scalar by scalar) a copy.
        if !needsEscape(text) { return "\"" + text + "\"" }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal: `"`, `\` and control characters escaped, and
    /// U+2028/U+2029 (E2 80 A8/A9, line ends to JavaScript); every other byte, including the rest
    /// of non-ASCII UTF-8, copied as is.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if needsEscape(text) {
            var text = text
            text.withUTF8 { appendEscaped($0, to: &out) }
        } else {
            out.append(contentsOf: text.utf8)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// True when a byte of `text` may need escaping (0xE2 starts U+2028/U+2029).
    private static func needsEscape(_ text: String) -> Bool {
        text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 })
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let backslash = UInt8(ascii: "\\")
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), backslash:
                out.append(backslash)
                out.append(byte)
            case UInt8(ascii: "\n"):
                out.append(backslash)
                out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                out.append(backslash)
                out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"):
                out.append(backslash)
                out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(backslash)
                out.append(contentsOf: "u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            case 0xE2 where index + 2 < bytes.endIndex && bytes[index + 1] == 0x80
                && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                out.append(contentsOf: "\\u202".utf8)
                out.append(bytes[index + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                index += 2
            default: out.append(byte)
            }
            index += 1
        }
    }
}
