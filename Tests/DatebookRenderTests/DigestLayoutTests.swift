import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// Slack and Teams lay a digest out with their own elements (`DigestOutline`), not the text
/// digest: its columns and month grid are ragged in their proportional fonts, and Adaptive Card
/// Markdown has no headings, rules or nested lists.
@Suite struct DigestLayoutTests {
    /// The demo planner's digest (2026-11-30 09:00, Europe/Berlin), with `extra` events.
    static func digest(extra: [Event] = []) throws -> OutgoingMessage {
        try DigestMessage.make(DigestFixtures.input(extra: extra), locale: "en_US", overrideDirectory: nil,
                               key: "digest:test", scheduleName: "morning")
    }

    static func hostileEvent() -> Event {
        var event = DigestFixtures.event(HostileRenderingTests.hostile, tasks: [HostileRenderingTests.hostile])
        event.location = HostileRenderingTests.hostile
        return event
    }

    /// 19 events today whose titles and five tasks each are 200 columns of characters that
    /// every service escapes (`<"&>\*_`): far over any card or section limit once encoded.
    static func heavyEvents() -> [Event] {
        let marks = String(repeating: "<\"&>\\*_", count: 28)
        return (0..<19).map { DigestFixtures.event("\($0) " + marks, tasks: Array(repeating: marks, count: 5), hour: 10) }
    }

    static func json(_ body: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    // MARK: Slack

    static func slackBlocks(_ message: OutgoingMessage) throws -> [[String: Any]] {
        let body = try #require(SlackPayload.requests(for: message, options: slack).first?.body)
        return try #require(try json(body)["blocks"] as? [[String: Any]])
    }

    @Test func theSlackDigestIsASectionPerPeriodWithTheEventsOneALineAndNoMonthGrid() throws {
        let message = try Self.digest()
        let body = try #require(SlackPayload.requests(for: message, options: slack).first?.body)
        expectSnapshot(body, named: "slack-digest.json")
        let blocks = try Self.slackBlocks(message)
        let texts = blocks.compactMap { $0["text"] as? [String: Any] }
        let headings = texts.filter { $0["type"] as? String == "mrkdwn" }.compactMap { $0["text"] as? String }
        let outline = try #require(message.outline)
        #expect(headings == outline.sections.map { "*" + $0.heading + "*" })
        #expect(headings.count >= 2, "\(headings)")
        let plain = texts.filter { $0["type"] as? String == "plain_text" }.compactMap { $0["text"] as? String }.joined(separator: "\n")
        // One line per event, its details after a dash, its tasks on their own lines below it.
        for entry in outline.sections.flatMap(\.events) {
            #expect(plain.contains("• " + ServiceMarkup.slack(entry.heading) + " — "), "\(entry.title) missing:\n\(plain)")
            for task in entry.tasks { #expect(plain.contains("\n      " + ServiceMarkup.slack(task.line))) }
        }
        // Nothing of the text digest's layout: no column padding, no month grid.
        #expect(!plain.contains("   Mo") && !plain.contains("November 2026") && !plain.contains("  2 left"), "\(plain)")
        #expect(!message.text.isEmpty && message.text.contains("November 2026"))
    }

    @Test func hostileEventTextInTheSlackDigestRendersLiterally() throws {
        let message = try Self.digest(extra: [Self.hostileEvent()])
        let body = try #require(SlackPayload.requests(for: message, options: slack).first?.body)
        #expect(String(decoding: body, as: UTF8.self).contains("xspoof"))
        HostileRenderingTests.expectNothingLive(try ServiceRendering.seen(service: "slack", body: body), "slack digest")
        let texts = try ServiceRendering.texts(service: "slack", body: body)
        #expect(texts.filter { $0.text.contains("xbold") }.allSatisfy { $0.markup == .plain }, "\(texts)")
    }

    /// With nothing planned there is no section to lay out: both show the digest's own words.
    @Test func anEmptyDigestSaysNothingIsPlannedOnSlackAndTeams() throws {
        let input = DigestInput(now: DigestFixtures.now, calendar: DigestFixtures.calendar, windows: [], eventDays: [], week: (0, 0))
        let message = try DigestMessage.make(input, locale: "en_US", overrideDirectory: nil, key: "digest:empty")
        #expect(message.outline?.sections.isEmpty == true)
        let slackTexts = try Self.slackBlocks(message).compactMap { ($0["text"] as? [String: Any])?["text"] as? String }
        #expect(slackTexts.contains { $0.contains("Nothing planned.") }, "\(slackTexts)")
        let teamsTexts = Self.textBlocks(try Self.teamsCard(message).items).compactMap { $0["text"] as? String }
        #expect(teamsTexts.contains { $0.contains("Nothing planned.") }, "\(teamsTexts)")
    }

    // MARK: Teams

    static func teamsCard(_ message: OutgoingMessage) throws -> (body: Data, items: [[String: Any]]) {
        let body = try #require(TeamsPayload.requests(for: message, options: teams).first?.body)
        let attachments = try #require(try json(body)["attachments"] as? [[String: Any]])
        let content = try #require(attachments.first?["content"] as? [String: Any])
        return (body, try #require(content["body"] as? [[String: Any]]))
    }

    /// Every TextBlock of `items`, nested in Containers or not.
    static func textBlocks(_ items: [[String: Any]]) -> [[String: Any]] {
        items.flatMap { item -> [[String: Any]] in
            if let nested = item["items"] as? [[String: Any]] { return textBlocks(nested) }
            return item["type"] as? String == "TextBlock" ? [item] : []
        }
    }

    @Test func theTeamsDigestIsAContainerPerPeriodWithABolderHeadingAndTasksAsBoxes() throws {
        var message = try Self.digest()
        let (body, items) = try Self.teamsCard(message)
        expectSnapshot(body, named: "teams-digest.json")
        let outline = try #require(message.outline)
        let containers = items.filter { $0["type"] as? String == "Container" }
        #expect(containers.count == outline.sections.count)
        for (container, section) in zip(containers, outline.sections) {
            let heading = try #require((container["items"] as? [[String: Any]])?.first)
            #expect(heading["type"] as? String == "TextBlock")
            #expect(heading["weight"] as? String == "Bolder")
            #expect(heading["text"] as? String == Markdown.escape(section.heading))
        }
        let texts = Self.textBlocks(items).compactMap { $0["text"] as? String }
        let tasks = outline.sections.flatMap(\.events).flatMap(\.tasks)
        #expect(!tasks.isEmpty)
        for task in tasks { #expect(texts.contains(Markdown.escape(task.line)), "\(task.line) is not its own TextBlock") }
        #expect(tasks.contains { $0.done } == texts.contains { $0.hasPrefix("☑ ") })
        // No Markdown heading, rule or list reaches a TextBlock: the card shows no `#` or `---`.
        for text in texts {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                #expect(!line.hasPrefix("#") && !line.hasPrefix("---") && !line.hasPrefix("- "), "\(text)")
            }
        }
        #expect(message.markdown.contains("## "), "the Markdown digest the card no longer shows has headings")
        // With no outline (a user's own template) the card shows the Markdown body as before.
        message.outline = nil
        #expect(Self.textBlocks(try Self.teamsCard(message).items).count == 2)
    }

    @Test func hostileEventTextInTheTeamsDigestRendersLiterally() throws {
        let message = try Self.digest(extra: [Self.hostileEvent()])
        let (body, _) = try Self.teamsCard(message)
        #expect(String(decoding: body, as: UTF8.self).contains("xspoof"))
        HostileRenderingTests.expectNothingLive(try ServiceRendering.seen(service: "teams", body: body), "teams digest")
    }

    /// Sized as encoded: a digest of escaping-heavy titles keeps the events that fit, says it
    /// was cut, and never becomes an empty card.
    @Test func anOversizedTeamsDigestKeepsWhatFitsAsEncodedAndSaysItWasCut() throws {
        let message = try Self.digest(extra: Self.heavyEvents())
        let (body, items) = try Self.teamsCard(message)
        #expect(body.count <= TeamsPayload.byteLimit)
        let texts = Self.textBlocks(items).compactMap { $0["text"] as? String }
        #expect(texts.last == Markdown.escape(TeamsPayload.truncatedNote))
        #expect(texts.count > 5, "\(texts)")
        #expect(texts.contains { $0.contains("0 ") && $0.contains("\\*\\_") }, "a heavy event is shown: \(texts.prefix(8))")
    }
}
