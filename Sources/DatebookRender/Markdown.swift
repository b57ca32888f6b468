import CCmark
import Glibc

/// Markdown helpers: an escaper for `{{name}}` tags in Markdown templates, and CommonMark +
/// GFM rendering to HTML through cmark-gfm.
public enum Markdown {
    /// Backslash-escapes the ASCII punctuation CommonMark could read as inline syntax (and
    /// block markers at the start),
    /// so `*not bold*` and `[x](javascript:…)` render as their literal text; line breaks
    /// become spaces so text cannot start a new block.
    public static let escape: @Sendable (String) -> String = { text in
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        var leadingDigits = true
        for (index, scalar) in text.unicodeScalars.enumerated() {
            switch scalar {
            case "\\", "`", "*", "_", "{", "}", "[", "]", "(", ")", "<", ">", "!", "|", "~", "&":
                out.unicodeScalars.append("\\")
                out.unicodeScalars.append(scalar)
            case "#" where index == 0, "-" where index == 0, "+" where index == 0, "=" where index == 0,
                 "." where leadingDigits && index > 0:
                out.unicodeScalars.append("\\")
                out.unicodeScalars.append(scalar)
            case "\n", "\r", "\t":
                out.unicodeScalars.append(" ")
            default:
                out.unicodeScalars.append(scalar)
            }
            leadingDigits = leadingDigits && ("0"..."9").contains(scalar)
        }
        return out
    }

    /// Renders CommonMark with the GFM task-list, table and strikethrough extensions to an HTML
    /// fragment. Safe mode: raw HTML is dropped and `javascript:` links are emptied.
    public static func html(from markdown: String) throws -> String {
        cmark_gfm_core_extensions_ensure_registered()
        guard let parser = cmark_parser_new(datebook_cmark_opt_default()) else {
            throw DigestError.markdown("cmark-gfm could not create a parser")
        }
        defer { cmark_parser_free(parser) }
        for name in ["tasklist", "table", "strikethrough"] {
            if let extensionHandle = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, extensionHandle)
            }
        }
        let bytes = Array(markdown.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { cmark_parser_feed(parser, $0, buffer.count) }
            }
        }
        guard let document = cmark_parser_finish(parser) else { throw DigestError.markdown("cmark-gfm could not parse the digest") }
        defer { cmark_node_free(document) }
        guard let rendered = cmark_render_html(document, datebook_cmark_opt_default(), cmark_parser_get_syntax_extensions(parser)) else {
            throw DigestError.markdown("cmark-gfm could not render HTML")
        }
        defer { free(rendered) }
        return String(cString: rendered)
    }
}
