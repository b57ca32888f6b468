/// HTML escaping of text, shared by templates (Render) and the plain-text fallback of emails (Delivery).
public enum HTMLText {
    /// Replaces `&`, `"`, `<` and `>` with entities (what the Mustache spec requires of `{{name}}`);
    /// copies runs of plain bytes in one go, and returns the text itself when nothing needs escaping.
    public static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard text.hasByte(where: { $0 == 0x26 || $0 == 0x22 || $0 == 0x3C || $0 == 0x3E }) else { return text }
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
