import DatebookCore
import Foundation
import DatebookTestSupport
import Testing

import DatebookCore
import DatebookDelivery
@testable import DatebookRender

/// Compares `actual` with `Snapshots/<name>`; `DATEBOOK_UPDATE_SNAPSHOTS=1` rewrites it.
func expectSnapshot(_ actual: Data, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    snapshots.expect(String(decoding: actual, as: UTF8.self), named: name, sourceLocation: sourceLocation)
}

let slack = SlackPayload.Options(url: Secret("https://hooks.slack.com/services/T0/B0/SLACKSECRET"))
let discord = DiscordPayload.Options(url: Secret("https://discord.com/api/webhooks/1/DISCORDSECRET"), username: "datebook")
let teams = TeamsPayload.Options(url: Secret("https://prod.westeurope.logic.azure.com/workflows/TEAMSSECRET"))
let mattermost = MattermostPayload.Options(url: Secret("https://chat.example.org/hooks/MMSECRET"), username: "datebook")
let ntfy = NtfyPayload.Options(server: "https://ntfy.example.org/", topic: Secret("NTFYSECRETTOPIC"), token: Secret("tk_NTFYTOKEN"))
let webhook = WebhookPayload.Options(url: Secret("https://example.org/hook/HOOKPATH"), secret: Secret("HOOKSECRET"))

/// Every builder, for table-driven tests.
let allBuilders: [(name: String, build: @Sendable (OutgoingMessage) -> [HTTPRequest])] = [
    ("slack", { SlackPayload.requests(for: $0, options: slack) }),
    ("discord", { DiscordPayload.requests(for: $0, options: discord) }),
    ("teams", { TeamsPayload.requests(for: $0, options: teams) }),
    ("mattermost", { MattermostPayload.requests(for: $0, options: mattermost) }),
    ("ntfy", { NtfyPayload.requests(for: $0, options: ntfy) }),
    ("webhook", { WebhookPayload.requests(for: $0, options: webhook) }),
]

@Suite struct PayloadTests {
    @Test(arguments: allBuilders.map(\.name))
    func alertPayloadMatchesGolden(service: String) throws {
        let builder = try #require(allBuilders.first { $0.name == service })
        let requests = builder.build(Fixtures.alert)
        #expect(requests.count == 1)
        for (index, request) in requests.enumerated() {
            #expect(request.method == "POST")
            #expect(request.header("Content-Type") == "application/json; charset=utf-8")
            #expect(try JSONSerialization.jsonObject(with: request.body) is [String: Any])
            expectSnapshot(request.body, named: "\(service)-alert.\(index).json")
        }
    }

    @Test(arguments: allBuilders.map(\.name))
    func noLiveMentionFromInjectedText(service: String) throws {
        let builder = try #require(allBuilders.first { $0.name == service })
        for request in builder.build(Fixtures.canary) {
            let body = String(decoding: request.body, as: UTF8.self)
            expectSnapshot(request.body, named: "\(service)-canary.json")
            switch service {
            case "slack":
                #expect(!body.contains("<!channel>"))
                #expect(!body.contains("<http://evil"))
                #expect(body.contains("&lt;!channel&gt;"))
            case "discord":
                let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                let mentions = try #require(json["allowed_mentions"] as? [String: Any])
                #expect((mentions["parse"] as? [Any])?.isEmpty == true)
                #expect(json["content"] == nil)
            case "mattermost":
                for word in ["@everyone", "@here", "@channel", "@all", "<!channel>"] { #expect(!body.contains(word)) }
                #expect(body.contains("@\u{200B}everyone"))
                #expect(body.contains("<\u{200B}!channel>"))
            default:
                break  // teams, ntfy, webhook have no text-triggered mentions; goldens pin them
            }
        }
    }

    /// Hostile text in every field of the message (and the Mattermost username) reaches no string
    /// of any payload as a live mention, whichever field the payload builds it from.
    @Test(arguments: allBuilders.map(\.name), Array(Fixtures.hostileFields.keys).sorted())
    func noLiveMentionInAnyFieldOfAnyPayload(service: String, field: String) throws {
        let message = try #require(Fixtures.hostileFields[field])
        let requests: [HTTPRequest]
        if service == "mattermost" {
            var options = mattermost
            options.username = Fixtures.canaryTitle
            requests = MattermostPayload.requests(for: message, options: options)
        } else {
            requests = try #require(allBuilders.first { $0.name == service }).build(message)
        }
        for request in requests {
            let json = try JSONSerialization.jsonObject(with: request.body)
            for (path, text) in Self.strings(in: json, path: "") {
                switch service {
                case "slack":
                    #expect(!text.contains("<!") && !text.contains("<@") && !text.contains("<http://evil"), "slack \(path): \(text)")
                case "mattermost":
                    #expect(!text.contains("<!") && !text.contains("<@"), "mattermost \(path): \(text)")
                    #expect(text.range(of: "@(channel|here|all|everyone)\\b", options: [.regularExpression, .caseInsensitive]) == nil,
                            "mattermost \(path): \(text)")
                default:
                    break  // discord: allowed_mentions below; teams, ntfy, webhook have no text-triggered mentions
                }
            }
            if service == "discord" {
                let mentions = (json as? [String: Any])?["allowed_mentions"] as? [String: Any]
                #expect(mentions?.count == 1 && (mentions?["parse"] as? [Any])?.isEmpty == true)
            }
        }
    }

    /// Every string leaf of a JSON value with its path (`blocks[0].text.text`).
    static func strings(in json: Any, path: String) -> [(String, String)] {
        switch json {
        case let text as String: return [(path, text)]
        case let array as [Any]: return array.enumerated().flatMap { strings(in: $1, path: "\(path)[\($0)]") }
        case let object as [String: Any]: return object.flatMap { strings(in: $1, path: path.isEmpty ? $0 : "\(path).\($0)") }
        default: return []
        }
    }

    @Test func slackHeaderLimitHoldsAfterEscaping() throws {
        var message = Fixtures.alert
        message.title = String(repeating: "<&>", count: 100)
        let body = try #require(SlackPayload.requests(for: message, options: slack).first?.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let header = try #require(((json["blocks"] as? [[String: Any]])?.first?["text"] as? [String: Any])?["text"] as? String)
        #expect(header.utf16.count <= 150)
        #expect(header.hasSuffix("…"))
        #expect(!header.contains("<") && !header.contains(">"))
        #expect(!header.replacingOccurrences(of: "&amp;", with: "").replacingOccurrences(of: "&lt;", with: "")
            .replacingOccurrences(of: "&gt;", with: "").contains("&"))  // no entity cut in half
    }

    @Test(arguments: ["@channel", "@Here", "@ALL", "@everyone"])
    func mattermostNeutralisesEveryBroadcastMention(word: String) {
        #expect(!PayloadText.neutraliseMentions("hi \(word)!").contains(word))
        #expect(PayloadText.neutraliseMentions("mail me@allison.example") == "mail me@allison.example")
    }

    @Test func discordColorComesFromHex() throws {
        let body = try #require(DiscordPayload.requests(for: Fixtures.alert, options: discord).first?.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let embed = try #require((json["embeds"] as? [[String: Any]])?.first)
        #expect(embed["color"] as? Int == 0xFF3B30)
    }

    /// Slack takes 50 blocks a message: a longer one goes as several, in order, nothing lost; the
    /// header opens the first, the facts and the link close the last.
    @Test func slackSplitsAMessageOverFiftyBlocksIntoOrderedMessages() throws {
        var long = Fixtures.alert
        long.text = (1...9000).map { "line \($0) of a long body & more" }.joined(separator: "\n")
        let requests = SlackPayload.requests(for: long, options: slack)
        #expect(requests.count == 3)
        var sections = ""
        for (index, request) in requests.enumerated() {
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            let blocks = try #require(json["blocks"] as? [[String: Any]])
            #expect(blocks.count <= 50)
            #expect(blocks.contains { $0["type"] as? String == "header" } == (index == 0))
            #expect(blocks.contains { $0["type"] as? String == "context" } == (index == requests.count - 1))
            #expect((json["text"] as? String)?.isEmpty == false)
            if index > 0 { #expect((json["text"] as? String)?.hasSuffix("(\(index + 1)/3)") == true) }
            for block in blocks where block["type"] as? String == "section" {
                let text = block["text"] as? [String: Any]
                if text?["type"] as? String == "plain_text" { sections += text?["text"] as? String ?? "" }
            }
        }
        #expect(sections == ServiceMarkup.slack(long.text))
    }

    @Test func discordSplitsLongDigestIntoOrderedMessagesWithinLimits() throws {
        let requests = DiscordPayload.requests(for: Fixtures.longDigest, options: discord)
        #expect(requests.count > 1)
        var rebuilt = ""
        for request in requests {
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            let embeds = try #require(json["embeds"] as? [[String: Any]])
            #expect(embeds.count <= 10)
            var total = 0
            for embed in embeds {
                let description = embed["description"] as? String ?? ""
                let title = embed["title"] as? String ?? ""
                #expect(description.utf16.count <= 4096)
                #expect(title.utf16.count <= 256)
                total += description.utf16.count + title.utf16.count
                rebuilt += description
            }
            #expect(total <= 6000)
            #expect((json["allowed_mentions"] as? [String: Any]) != nil)
        }
        #expect(rebuilt == Fixtures.longDigest.markdown)
        for (index, request) in requests.enumerated() { expectSnapshot(request.body, named: "discord-digest.\(index).json") }
    }

    @Test func teamsCardStaysUnder28KB() throws {
        var message = Fixtures.longDigest
        message.markdown = String(repeating: Fixtures.longDigest.markdown, count: 3)
        let request = try #require(TeamsPayload.requests(for: message, options: teams).first)
        #expect(request.body.count <= 28_000)
        #expect(String(decoding: request.body, as: UTF8.self).contains("truncated"))
    }

    /// Text whose every character JSON escapes (quotes, backslashes, control characters: up to
    /// six bytes each) is cut as encoded: the card stays under 28 KB and keeps as much of the
    /// text as fits, never only the note.
    @Test func anEscapingHeavyDigestFillsTheTeamsCardInsteadOfEmptyingIt() throws {
        var message = Fixtures.longDigest
        message.markdown = String(repeating: "\"\\\u{1}x", count: 20_000)
        let request = try #require(TeamsPayload.requests(for: message, options: teams).first)
        #expect(request.body.count <= 28_000)
        #expect(request.body.count > 27_000, "the card is filled up to the limit: \(request.body.count) bytes")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        let content = try #require((json["attachments"] as? [[String: Any]])?.first?["content"] as? [String: Any])
        let text = try #require((content["body"] as? [[String: Any]])?[1]["text"] as? String)
        #expect(text.hasSuffix("… (truncated: too long for Teams)"))
        #expect(text.count > 2_000, "\(text.count) characters of content")
    }

    /// ntfy refuses a body over 8,192 bytes: a message whose escaping more than doubles it is cut
    /// again as encoded, and keeps its content up to there.
    @Test func anEscapingHeavyNtfyMessageStaysUnderTheServersBodyCap() throws {
        var message = Fixtures.alertWithLinks
        message.markdown = String(repeating: "\u{1}", count: 3_000)
        let request = try #require(NtfyPayload.requests(for: message, options: ntfy).first)
        #expect(request.body.count <= 8_192)
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        let text = try #require(json["message"] as? String)
        #expect(text.hasSuffix("… (truncated)") && text.count > 500, "\(text.count)")
        #expect((json["actions"] as? [Any])?.count == 3)
    }

    /// An alert with both the event's own link and its page on `serve`: two targets, two labels;
    /// the event's link is labelled by its host, "Open" is the event page.
    @Test func theEventsLinkAndTheEventPageNeverShareALabel() throws {
        var message = Fixtures.alertWithLinks
        message.url = "https://www.example.org/events/evt-42"
        let teamsBody = try #require(TeamsPayload.requests(for: message, options: teams).first?.body)
        let card = try #require(((try JSONSerialization.jsonObject(with: teamsBody) as? [String: Any])?["attachments"] as? [[String: Any]])?
            .first?["content"] as? [String: Any])
        let teamsLabels = (card["actions"] as? [[String: Any]] ?? []).map { ($0["title"] as? String ?? "", $0["url"] as? String ?? "") }
        let mattermostBody = try #require(MattermostPayload.requests(for: message, options: mattermost).first?.body)
        let mattermostLinks = try ServiceRendering.seen(service: "mattermost", body: mattermostBody).links.map { ($0.text, $0.target) }
        let slackBody = try #require(SlackPayload.requests(for: message, options: slack).first?.body)
        let slackLinks = try ServiceRendering.seen(service: "slack", body: slackBody).links.map { ($0.text, $0.target) }
            + (((try JSONSerialization.jsonObject(with: slackBody) as? [String: Any])?["blocks"] as? [[String: Any]])?
                .last?["elements"] as? [[String: Any]] ?? []).map { (($0["text"] as? [String: Any])?["text"] as? String ?? "", $0["url"] as? String ?? "") }
        for (service, links) in [("teams", teamsLabels), ("mattermost", mattermostLinks), ("slack", slackLinks)] {
            #expect(links.contains { $0.0 == "example.org" && $0.1 == message.url }, "\(service): \(links)")
            #expect(links.contains { $0.0 == "Open" && $0.1 == message.actionURL("event") }, "\(service): \(links)")
            #expect(Set(links.map(\.0)).count == Set(links.map(\.1)).count, "\(service): one label per target: \(links)")
        }
    }

    @Test func ntfyPublishesJSONToServerBaseWithoutTextHeaders() throws {
        let request = try #require(NtfyPayload.requests(for: Fixtures.alert, options: ntfy).first)
        #expect(request.url == "https://ntfy.example.org")
        #expect(request.header("Title") == nil)
        #expect(request.header("Authorization") == "Bearer tk_NTFYTOKEN")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["topic"] as? String == "NTFYSECRETTOPIC")
        #expect(json["markdown"] as? Bool == true)
        #expect(json["priority"] as? Int == 4)
    }

    @Test func webhookIsSignedWithHMACOfExactBody() throws {
        let request = try #require(WebhookPayload.requests(for: Fixtures.alert, options: webhook).first)
        #expect(request.header("Idempotency-Key") == Fixtures.alert.idempotencyKey)
        let expected = HMACSHA256.authenticationCode(key: Data("HOOKSECRET".utf8), message: request.body).hexString
        #expect(request.header("X-Datebook-Signature") == "sha256=\(expected)")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["schema"] as? String == "datebook.v1")
    }

    @Test func jsonIsDeterministicWithSortedKeysAndUnescapedSlashes() {
        let value: JSONValue = ["b": 1, "a": ["url": "https://x/y", "z": .null, "q": "\"\n\u{1}é"]]
        #expect(value.serialized == #"{"a":{"q":"\"\n\u0001é","url":"https://x/y","z":null},"b":1}"#)
    }
}
