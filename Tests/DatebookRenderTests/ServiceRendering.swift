import Foundation

@testable import DatebookRender

/// A small model of how each chat service renders a payload: what a reader sees as a live link
/// (its text and target) and which text is formatted (bold, italic, struck, code, heading,
/// quote, spoiler). It follows each service's documented rules:
///
/// - Slack: `plain_text` objects show their text as is; `mrkdwn` objects (and the top-level
///   `text` unless `"mrkdwn": false`) turn `<url|text>` and `<url>` into links and `*b*`, `_i_`,
///   `~s~`, `` `c` `` into formatting when the marks stand at word boundaries.
/// - Discord: embed titles, descriptions, field names and values and `content` are Markdown
///   with masked links `[t](u)`, plus `||spoiler||`.
/// - Mattermost: `text` is Markdown after the server's Slack-compatibility rewrite of
///   `<url|text>` into `[text](url)`.
/// - Teams: TextBlock `text` and FactSet titles and values are Markdown.
/// - ntfy: `message` is Markdown (the payloads set `"markdown": true`); the title is plain.
///
/// CommonMark (cmark-gfm with strikethrough) stands in for each service's Markdown: it reads
/// at least every link and mark those services read. A bare URL is left out: it shows its own
/// target, so it cannot pass for something else.
enum ServiceRendering {
    struct Link: Equatable, CustomStringConvertible {
        var text: String
        var target: String
        var description: String { "[\(text)](\(target))" }
    }

    /// What a reader sees of one text: links and formatted runs (the formatted text, tag first).
    struct Seen: Equatable {
        var links: [Link] = []
        var formatted: [String] = []
        static func + (lhs: Seen, rhs: Seen) -> Seen {
            Seen(links: lhs.links + rhs.links, formatted: lhs.formatted + rhs.formatted)
        }
    }

    enum Markup { case plain, slackMrkdwn, markdown, mattermost }

    /// Every text leaf of `body` that `service` renders, with how it renders it.
    static func texts(service: String, body: Data) throws -> [(path: String, text: String, markup: Markup)] {
        let json = try JSONSerialization.jsonObject(with: body)
        var found: [(String, String, Markup)] = []
        func walk(_ value: Any, _ path: String, _ parent: [String: Any]?, _ key: String?) {
            switch value {
            case let array as [Any]:
                for (index, item) in array.enumerated() { walk(item, "\(path)[\(index)]", parent, key) }
            case let object as [String: Any]:
                for (name, item) in object { walk(item, path.isEmpty ? name : "\(path).\(name)", object, name) }
            case let text as String:
                guard let markup = markup(service: service, key: key, in: parent, path: path) else { return }
                found.append((path, text, markup))
            default:
                return
            }
        }
        walk(json, "", nil, nil)
        return found
    }

    /// How `service` renders the string under `key` of `object` (nil: not shown as text).
    static func markup(service: String, key: String?, in object: [String: Any]?, path: String) -> Markup? {
        let type = object?["type"] as? String
        switch service {
        case "slack":
            if key == "text" && type == "plain_text" { return .plain }
            if key == "text" && type == "mrkdwn" { return .slackMrkdwn }
            if path == "text" { return (object?["mrkdwn"] as? Bool) == false ? .plain : .slackMrkdwn }
            return nil
        case "discord":
            guard let key, ["title", "description", "name", "value", "content"].contains(key), path != "username" else { return nil }
            return .markdown
        case "mattermost":
            return path == "text" ? .mattermost : nil
        case "teams":
            if key == "text" && type == "TextBlock" { return .markdown }
            if (key == "title" || key == "value") && path.contains(".facts[") { return .markdown }
            return nil
        case "ntfy":
            return path == "message" ? .markdown : nil
        default:
            return nil
        }
    }

    /// What a reader of `service` sees in every text of `body`.
    static func seen(service: String, body: Data) throws -> Seen {
        try texts(service: service, body: body).reduce(Seen()) { $0 + seen($1.text, as: $1.markup) }
    }

    static func seen(_ text: String, as markup: Markup) -> Seen {
        switch markup {
        case .plain: return Seen()
        case .slackMrkdwn: return slackMrkdwn(text)
        case .markdown: return markdown(text)
        case .mattermost: return markdown(mattermostRewrite(text))
        }
    }

    // MARK: Slack mrkdwn

    static func slackMrkdwn(_ text: String) -> Seen {
        var seen = Seen()
        for match in matches("<([^<>|\\n]+)(?:\\|([^<>\\n]*))?>", in: text) {
            let target = match[1]
            seen.links.append(Link(text: decodeSlack(match[2].isEmpty ? target : match[2]), target: target))
        }
        let before = "(?:^|[\\s(\\[{\"'])", after = "(?=$|[\\s.,!?;:)\\]}\"'])"
        for mark in ["\\*", "_", "~"] {
            for match in matches("\(before)\(mark)([^\\s\(mark)][^\(mark)\\n]*?)\(mark)\(after)", in: text) {
                seen.formatted.append(decodeSlack(match[1]))
            }
        }
        for match in matches("`([^`\\n]+)`", in: text) { seen.formatted.append(decodeSlack(match[1])) }
        return seen
    }

    static func decodeSlack(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: Markdown (Discord, Teams, Mattermost, ntfy)

    /// Mattermost's incoming-webhook rewrite (`<url|text>` → `[text](url)`), as its server does
    /// it before the client reads the Markdown.
    static func mattermostRewrite(_ text: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: "<([^\\n<\\|>]+)\\|([^\\n>]+)>") else { return text }
        return regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "[$2]($1)")
    }

    static func markdown(_ text: String) -> Seen {
        guard let html = try? Markdown.html(from: text) else { return Seen(links: [], formatted: ["(unparseable) " + text]) }
        var seen = Seen()
        for match in matches("<a href=\"([^\"]*)\"[^>]*>(.*?)</a>", in: html) {
            seen.links.append(Link(text: plain(match[2]), target: plain(match[1])))
        }
        for tag in ["strong", "em", "del", "code", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"] {
            for match in matches("<\(tag)>(.*?)</\(tag)>", in: html) { seen.formatted.append(tag + ": " + plain(match[1])) }
        }
        // Discord's spoiler marks, read where the source has them unescaped.
        let unescaped = text.replacingOccurrences(of: "\\\\.", with: "", options: .regularExpression)
        for match in matches("\\|\\|([^|]+)\\|\\|", in: unescaped) { seen.formatted.append("spoiler: " + match[1]) }
        return seen
    }

    /// HTML's text: tags dropped, the entities cmark writes decoded.
    static func plain(_ html: String) -> String {
        html.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Each match of `pattern` in `text` as its groups (0 = whole match; "" for a group that did not take part).
    static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { result in
            (0..<result.numberOfRanges).map { index in
                Range(result.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }
}
