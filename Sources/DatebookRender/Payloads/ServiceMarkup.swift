import Foundation

/// The one escaping rule per chat service: how a piece of calendar text (a title, a place, a
/// time) is written so that the service shows it as the literal text it is, never as a link,
/// a mention or formatting the user did not write. Every payload builder takes its service's
/// rule from here, for every field it fills from data.
///
/// - Slack: data goes only into `plain_text` objects (header, sections, context) and the
///   top-level fallback `text` is sent with `"mrkdwn": false`; `&`, `<`, `>` are entities, as
///   Slack reads them in every text object. `mrkdwn` objects carry only datebook's own words.
/// - Discord, Teams: CommonMark backslash escapes (`Markdown.escape`), in descriptions, embed
///   titles and field values (Discord renders masked links there) and TextBlock and Fact text.
/// - Mattermost: the same, with `<` and `>` as entities, because Mattermost rewrites
///   `<url|text>` into `[text](url)` before it reads the Markdown.
enum ServiceMarkup {
    /// Slack text object content (`plain_text`, or `mrkdwn` datebook wrote): `&`, `<`, `>` as entities.
    static func slack(_ text: String) -> String {
        slackAtoms(text).joined()
    }

    /// `slack(text)` as unbreakable pieces (a character or one entity), for cutting to a limit.
    static func slackAtoms(_ text: String) -> [String] {
        text.map { character -> String in
            switch character {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            default: return String(character)
            }
        }
    }

    /// Discord embed titles, descriptions and field values: literal under Discord's Markdown.
    static func discord(_ text: String) -> String {
        Markdown.escape(text)
    }

    /// Teams TextBlock and Fact text: literal under Adaptive Card Markdown.
    static func teams(_ text: String) -> String {
        Markdown.escape(text)
    }

    /// Mattermost message text: literal under Mattermost's Markdown and its `<url|text>` rewrite.
    static func mattermost(_ text: String) -> String {
        Markdown.escape(text).replacingOccurrences(of: "\\<", with: "&lt;").replacingOccurrences(of: "\\>", with: "&gt;")
    }

    /// A whole Mattermost message (the title line, the body's Markdown, the links): every escaped
    /// `\<` and `\>` (the body's escaped text) as an entity, and any `<…|…>` left (from a
    /// template's own Markdown) without its `<`, so Mattermost's Slack-link rewrite finds nothing.
    static func mattermostMessage(_ text: String) -> String {
        let entities = text.replacingOccurrences(of: "\\<", with: "&lt;").replacingOccurrences(of: "\\>", with: "&gt;")
        guard entities.contains("|"), let regex = try? NSRegularExpression(pattern: "<(?=[^\\n<|>]+\\|[^\\n>]+>)") else { return entities }
        return regex.stringByReplacingMatches(in: entities, range: NSRange(entities.startIndex..., in: entities), withTemplate: "&lt;")
    }
}
