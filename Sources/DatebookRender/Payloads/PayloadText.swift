import DatebookCore
import DatebookDelivery
import Foundation

/// Text helpers shared by the per-service payload builders: escaping, neutralising
/// mentions, and splitting or truncating to a service's limits.
enum PayloadText {
    /// Mattermost (and any "@word" service): a zero-width space after `@` in `@channel`, `@here`,
    /// `@all`, `@everyone`, and after `<` in Slack-style `<!channel>`, `<!here>`, `<@user>` (which
    /// Mattermost's Slack compatibility turns into mentions), keeps the text readable but inert.
    static func neutraliseMentions(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "<!", with: "<\u{200B}!").replacingOccurrences(of: "<@", with: "<\u{200B}@")
        for word in ["channel", "here", "all", "everyone"] {
            let pattern = "@(?=\(word)\\b)"
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
            let range = NSRange(result.startIndex..., in: result)
            result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: "@\u{200B}")
        }
        return result
    }

    /// Length as JavaScript-based services count it (UTF-16 code units).
    static func length(_ text: String) -> Int { text.utf16.count }

    /// Splits `text` into pieces of at most `limit` UTF-16 units, preferring line breaks.
    static func split(_ text: String, limit: Int) -> [String] {
        split(atoms: text.map(String.init), limit: limit)
    }

    /// Splits a sequence of unbreakable atoms (characters or escape sequences) into pieces
    /// of at most `limit` UTF-16 units, breaking after a newline when one is in the
    /// second half of the window.
    static func split(atoms: [String], limit: Int) -> [String] {
        guard limit > 0 else { return [] }
        var pieces: [String] = []
        var start = 0
        while start < atoms.count {
            var end = start
            var used = 0
            var lastNewline: Int?
            while end < atoms.count, used + length(atoms[end]) <= limit {
                used += length(atoms[end])
                if atoms[end] == "\n" || atoms[end] == "\r\n" { lastNewline = end }
                end += 1
            }
            if end == start { end = start + 1 }  // an atom longer than the limit: emit alone
            if end < atoms.count, let newline = lastNewline, newline > start + (end - start) / 2 {
                end = newline + 1
            }
            pieces.append(atoms[start..<end].joined())
            start = end
        }
        return pieces.isEmpty ? [""] : pieces
    }

    /// `text` cut to at most `limit` UTF-16 units, ending with `…` when cut.
    static func truncate(_ text: String, limit: Int) -> String {
        TextWidth.truncate(text, to: limit, measuredBy: length)
    }

    /// `text` cut and then escaped by `escape`, at most `limit` UTF-16 units once escaped: the cut
    /// falls between characters of the original, never inside an escape.
    static func escaped(_ text: String, limit: Int, by escape: (String) -> String) -> String {
        var budget = limit
        while true {
            let candidate = escape(truncate(text, limit: budget))
            let over = length(candidate) - limit
            if over <= 0 || budget <= 1 { return candidate }
            budget = max(1, budget - over)
        }
    }

    /// `text`, or its longest cut on whole characters with `note` appended, for which `fits`
    /// holds: `fits` measures the payload as sent (after JSON escaping, which can make one
    /// character six bytes), so the cut never underestimates and keeps all the content that fits.
    static func longestFitting(_ text: String, note: String, fits: (String) -> Bool) -> String {
        if fits(text) { return text }
        let characters = Array(text)
        var low = 0, high = characters.count  // a cut at `low` is kept; one at `high` is too long
        while high - low > 1 {
            let middle = (low + high) / 2
            if fits(String(characters[..<middle]) + note) { low = middle } else { high = middle }
        }
        return String(characters[..<low]) + note
    }

    /// `text` cut to at most `limit` UTF-8 bytes (never inside a character), with `note` appended.
    static func truncate(_ text: String, bytes limit: Int, note: String) -> String {
        guard text.utf8.count > limit else { return text }
        let budget = max(0, limit - note.utf8.count)
        var result = ""
        var used = 0
        for character in text {
            let size = String(character).utf8.count
            if used + size > budget { break }
            result.append(character)
            used += size
        }
        return result + note
    }

    /// Title with the event's symbol in front, when there is one.
    static func decoratedTitle(_ message: OutgoingMessage) -> String { message.displayTitle }

    /// The alert's body without its first line when that line is the event's title, for the
    /// services that show the title on its own (Slack's header, Discord's embed title, Teams'
    /// title block, Mattermost's heading, ntfy's title): the title is said once.
    static func bodyText(_ message: OutgoingMessage) -> String {
        withoutSummaryLine(withoutTitleLine(message.text, message) { $0.trimmingCharacters(in: .whitespaces) == titleLine(message) }, message)
    }

    /// `bodyText` for the Markdown body, whose title line is `**🎭 Pagliacci**` and a hard break.
    static func bodyMarkdown(_ message: OutgoingMessage) -> String {
        withoutSummaryLine(withoutTitleLine(message.markdown, message) { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("**") && trimmed.hasSuffix("**") && trimmed.count > 4
                && String(trimmed.dropFirst(2).dropLast(2)).trimmingCharacters(in: .whitespaces)
                    == (message.event.map { $0.symbol.isEmpty ? Markdown.escape($0.title) : $0.symbol + " " + Markdown.escape($0.title) } ?? "")
        }, message)
    }

    /// A digest's body without its summary line (`4 events this week, 11 open tasks`) when the
    /// title, which these services show on its own, already ends with it.
    private static func withoutSummaryLine(_ body: String, _ message: OutgoingMessage) -> String {
        guard message.kind == .digest, let outline = message.outline, !outline.summary.isEmpty,
              summaryBesideTitle(message, outline).isEmpty else { return body }
        var lines = body.components(separatedBy: "\n")
        let forms = [outline.summary, Markdown.escape(outline.summary)]
        guard let index = lines.firstIndex(where: { forms.contains($0.trimmingCharacters(in: .whitespaces)) }) else { return body }
        lines.remove(at: index)
        // The blank line the summary stood before goes with it.
        if index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty, index > 0,
           lines[index - 1].trimmingCharacters(in: .whitespaces).isEmpty {
            lines.remove(at: index)
        }
        return lines.joined(separator: "\n")
    }

    private static func titleLine(_ message: OutgoingMessage) -> String {
        guard let event = message.event else { return "" }
        return event.symbol.isEmpty ? event.title : event.symbol + " " + event.title
    }

    private static func withoutTitleLine(_ body: String, _ message: OutgoingMessage, isTitle: (String) -> Bool) -> String {
        guard message.kind == .alert, message.event != nil, let newline = body.firstIndex(of: "\n"),
              isTitle(String(body[..<newline])) else { return body }
        return String(body[body.index(after: newline)...])
    }

    /// Where the body says when the event is (`event.when`, local time in the reader's words), a
    /// Starts field would say it again, in raw UTC: it is shown only when the body does not.
    static func showsStart(_ message: OutgoingMessage) -> Bool {
        guard let event = message.event else { return false }
        return event.when.isEmpty || !message.text.contains(event.when)
    }

    /// The body without its `🔗 URL` line, for the services that show the event's http(s) link
    /// themselves, labelled by its host (Slack's link section, Teams' action, Mattermost's link
    /// line): the link is given once.
    static func withoutLinkLine(_ body: String, _ message: OutgoingMessage) -> String {
        guard let url = message.url, url.lowercased().hasPrefix("http") else { return body }
        let lines = body.components(separatedBy: "\n")
        let kept = lines.filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed != "🔗 " + url && trimmed != "🔗 <" + url + ">"
        }
        return kept.count == lines.count ? body : kept.joined(separator: "\n")
    }

    /// A digest's summary line (`4 events this week, 11 open tasks`) where the title does not
    /// already end with it (the built-in title does: `datebook morning digest: 4 events …`);
    /// empty when it does, so the counts are said once.
    static func summaryBesideTitle(_ message: OutgoingMessage, _ outline: DigestOutline) -> String {
        message.displayTitle.hasSuffix(outline.summary) ? "" : outline.summary
    }

    /// Where the body already has the event's place (an alert's `📍` line), a Where field would
    /// say it again: it is shown only when the body does not.
    static func showsLocation(_ message: OutgoingMessage) -> Bool {
        guard let event = message.event, !event.location.isEmpty else { return false }
        return !message.text.contains("📍 " + event.location)
    }

    /// The label of the event's own link (its `url`): the host it leads to (`example.org`), or
    /// `Link`; "Open" stays the label of the event's page on `serve`, so two buttons with
    /// different targets never read the same.
    static func linkLabel(_ url: String) -> String {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "Link" }
        return host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
    }

    /// An alert's action links as one line of Markdown, `[Done](…) · [Snooze 1 h](…) · …`
    /// (Discord and Mattermost, which have no buttons for webhooks); empty without links.
    static func markdownLinks(_ message: OutgoingMessage) -> String {
        message.actions.map { "[\($0.label)](\(markdownURL($0.url)))" }.joined(separator: " · ")
    }

    /// A URL that cannot end a Markdown link early: spaces, parentheses and brackets percent-encoded.
    static func markdownURL(_ url: String) -> String {
        url.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "(", with: "%28")
            .replacingOccurrences(of: ")", with: "%29").replacingOccurrences(of: "[", with: "%5B")
            .replacingOccurrences(of: "]", with: "%5D").replacingOccurrences(of: "<", with: "%3C")
            .replacingOccurrences(of: ">", with: "%3E")
    }

    /// The standard JSON request used by all chat services.
    static func jsonRequest(url: String, body: JSONValue, redactions: [String] = [], extraHeaders: [HTTPRequest.Header] = []) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: url,
            headers: [.init("Content-Type", "application/json; charset=utf-8")] + extraHeaders,
            body: body.data, redactions: redactions)
    }
}
