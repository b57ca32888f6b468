/// Ready-made escape functions for `{{name}}` tags.
///
/// Escaping is a plain `@Sendable (String) -> String` so callers can bring their own
/// (a Markdown escaper, say) without conforming to anything.
public enum MustacheEscaper {
    /// Replaces `&`, `"`, `<` and `>` with entities, exactly as the Mustache spec requires.
    public static let html: @Sendable (String) -> String = { text in
        escapeHTML(text)
    }

    /// Leaves text alone: for plain-text templates such as e-mail bodies.
    public static let none: @Sendable (String) -> String = { text in text }

    /// Copies runs of plain bytes in one go; only the four special characters are replaced.
    static func escapeHTML(_ text: String) -> String {
        let utf8 = text.utf8
        let needsEscaping = utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 == 0x26 || $0 == 0x22 || $0 == 0x3C || $0 == 0x3E }
        } ?? true
        guard needsEscaping else { return text }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 16)
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let entity: String
            switch utf8[index] {
            case 0x26: entity = "&amp;"
            case 0x22: entity = "&quot;"
            case 0x3C: entity = "&lt;"
            case 0x3E: entity = "&gt;"
            default:
                index = utf8.index(after: index)
                continue
            }
            escaped += text[runStart..<index]
            escaped += entity
            index = utf8.index(after: index)
            runStart = index
        }
        escaped += text[runStart..<utf8.endIndex]
        return escaped
    }
}
