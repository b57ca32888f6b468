import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// An alert's action links as each service expects them (golden `*-alert-links.N.json`); the
/// `*-alert` golden files of `PayloadTests` are the same alert without links.
@Suite struct ActionLinkPayloadTests {
    static let message = Fixtures.alertWithLinks
    static func url(_ name: String) -> String { message.actionURL(name) ?? "" }

    static func json(_ service: String) throws -> [String: Any] {
        let builder = try #require(allBuilders.first { $0.name == service })
        let requests = builder.build(message)
        #expect(requests.count == 1)
        for (index, request) in requests.enumerated() { expectSnapshot(request.body, named: "\(service)-alert-links.\(index).json") }
        let first = try #require(requests.first)
        let object = try JSONSerialization.jsonObject(with: first.body)
        return try #require(object as? [String: Any])
    }

    @Test func slackHasAButtonWithTheURLOfEachLink() throws {
        let blocks = try #require(try Self.json("slack")["blocks"] as? [[String: Any]])
        let actions = try #require(blocks.last { $0["type"] as? String == "actions" }?["elements"] as? [[String: Any]])
        #expect(actions.map { $0["url"] as? String } == Self.message.actions.map(\.url))
        #expect(actions.map { ($0["text"] as? [String: Any])?["text"] as? String } == ["Done", "Snooze 1 h", "Tomorrow 9:00", "Open"])
        #expect(actions.allSatisfy { $0["type"] as? String == "button" })
    }

    @Test func ntfyHasThreeViewActionsAndOpensTheEventOnClick() throws {
        let body = try Self.json("ntfy")
        let actions = try #require(body["actions"] as? [[String: Any]])
        #expect(actions.map { $0["action"] as? String } == ["view", "view", "view"])
        #expect(actions.map { $0["url"] as? String } == [Self.url("done"), Self.url("snooze"), Self.url("tomorrow")])
        #expect(body["click"] as? String == Self.url("event"))
    }

    @Test func teamsHasAnOpenURLActionForEachLink() throws {
        let attachments = try #require(try Self.json("teams")["attachments"] as? [[String: Any]])
        let content = try #require(attachments.first?["content"] as? [String: Any])
        let actions = try #require(content["actions"] as? [[String: Any]])
        #expect(actions.map { $0["type"] as? String } == Array(repeating: "Action.OpenUrl", count: 4))
        #expect(actions.map { $0["url"] as? String } == Self.message.actions.map(\.url))
    }

    @Test func discordAndMattermostHaveTheLinksInTheText() throws {
        let line = "[Done](\(Self.url("done"))) · [Snooze 1 h](\(Self.url("snooze"))) · [Tomorrow 9:00](\(Self.url("tomorrow"))) · "
            + "[Open](\(Self.url("event")))"
        let embeds = try #require(try Self.json("discord")["embeds"] as? [[String: Any]])
        #expect((embeds.last?["description"] as? String)?.hasSuffix("\n\n" + line) == true)
        #expect((try Self.json("mattermost")["text"] as? String)?.hasSuffix("\n\n" + line) == true)
    }

    @Test func theWebhookListsTheLinksUnderActions() throws {
        let body = try Self.json("webhook")
        #expect(body["schema"] as? String == "datebook.v1")
        let actions = try #require(body["actions"] as? [[String: String]])
        #expect(actions.map { $0["action"] } == ["done", "snooze", "tomorrow", "event"])
        #expect(actions.map { $0["url"] } == Self.message.actions.map(\.url))
    }

    @Test func aMarkdownLinkCannotBeEndedByItsURL() {
        #expect(PayloadText.markdownURL("https://x.example/a b(c)[d]<e>") == "https://x.example/a%20b%28c%29%5Bd%5D%3Ce%3E")
    }
}
