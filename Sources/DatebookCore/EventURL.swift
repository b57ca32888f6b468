import Foundation

/// The rules for an event's link and location: what `add`, `edit` and every import hold them to.
public enum EventURL {
    /// The schemes an event's link may have: pages, mail and phone calls; never `javascript:`,
    /// `file:` or `data:`, which would run or open something on the reader's side.
    public static let schemes = ["http", "https", "mailto", "tel"]

    /// Why `text` cannot be an event's link, or nil when it can.
    ///
    /// Besides the scheme, only the characters RFC 3986 allows in a URI are accepted (`%` escapes
    /// the rest): such a link is safe as a Markdown autolink, in an HTML attribute and in a Slack
    /// `<…|…>` link, and cannot break a line of an iCalendar file or a payload.
    public static func problem(_ text: String) -> String? {
        if let size = EventValidation.sizeProblem(text, limit: Limits.urlBytes) { return size }
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
              text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
              text.first?.isLetter == true
        else {
            return "expected a link with a scheme (https://…, mailto:…, tel:…), got \(JSONText.quote(TextWidth.clean(text)))"
        }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            return "the scheme '\(TextWidth.clean(scheme)):' is not allowed; use " + schemes.joined(separator: ", ")
        }
        if let bad = text.unicodeScalars.first(where: { !allowed.contains($0) }) {
            let shown = bad.properties.isWhitespace || bad.value < 0x20 || bad.value == 0x7F
                ? String(format: "U+%04X", bad.value) : "'" + String(bad) + "'"
            return "the link contains \(shown), which a URL cannot hold (percent-encode it)"
        }
        let rest = text[text.index(after: colon)...]
        if scheme == "http" || scheme == "https" {
            guard rest.hasPrefix("//"), let host = URLComponents(string: text)?.host, !host.isEmpty else {
                return "expected \(scheme)://HOST/…, got \(JSONText.quote(text))"
            }
        } else if rest.isEmpty {
            return "expected something after '\(scheme):'"
        }
        return nil
    }

    /// RFC 3986's unreserved and reserved characters, and `%`.
    private static let allowed = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")

    /// A location as one line: control characters (newlines, tabs, escapes) become spaces and the
    /// ends are trimmed, so it never breaks a row, a payload or an iCalendar line.
    public static func cleanLocation(_ text: String) -> String {
        let clean = TextWidth.clean(text)
        // Trimmed only when an end may be a space (control characters, tabs among them, are spaces
        // now): Foundation's trim costs ~1,800 instructions even for an empty text, and every event
        // of an import is checked.
        func maySpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte >= 0x80 }
        guard let first = clean.utf8.first, let last = clean.utf8.last, maySpace(first) || maySpace(last) else { return clean }
        return clean.trimmingCharacters(in: .whitespaces)
    }
}
