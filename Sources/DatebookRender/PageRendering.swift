import Foundation

extension DigestRenderer {
    /// Renders a page of `datebook serve` (a built-in `web-*.mustache` or the user's override of it)
    /// with `value`, every `{{name}}` HTML-escaped (`escaped: false` for the style sheet).
    public func renderPage(_ name: String, _ value: MustacheValue, escaped: Bool = true) throws -> String {
        try library.render(name: name, context: value, escape: escaped ? MustacheEscaper.html : MustacheEscaper.none)
    }
}
