import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// What a reader of a chat alert sees says each thing once: the title (the service shows it on
/// its own, so the body's title line is left out), the start, in local time only, and the count
/// of open tasks.
@Suite struct SaidOnceTests {
    static func shown(_ service: String, _ body: Data) throws -> [String] {
        var texts = try ServiceRendering.texts(service: service, body: body).map(\.text)
        if service == "ntfy", let title = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["title"] as? String {
            texts.append(title)
        }
        return texts
    }

    @Test(arguments: ["slack", "discord", "teams", "mattermost", "ntfy"])
    func aChatAlertSaysItsTitleOnceAndItsStartInLocalTimeOnly(service: String) throws {
        let message = try AlertLanguageTests.alert("en_US")
        let builder = try #require(allBuilders.first { $0.name == service })
        let body = try #require(builder.build(message).first?.body)
        var texts = try Self.shown(service, body)
        if service == "slack" {
            // The fallback `text` is what a notification shows instead of the blocks: once there too.
            let fallback = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["text"] as? String)
            #expect(fallback.components(separatedBy: "Pagliacci").count - 1 == 1, "\(fallback)")
            texts.removeAll { $0 == fallback }
        }
        let all = texts.joined(separator: "\n")
        #expect(all.components(separatedBy: "Pagliacci").count - 1 == 1, "\(service): \(texts)")
        #expect(all.contains("Tue 2026-12-01 20:00 (Europe/Berlin)"), "\(service): \(texts)")
        #expect(!all.contains("2026-12-01T19:00:00Z"), "\(service): raw UTC beside the local time: \(texts)")
        // The open tasks are counted once, in the line above them: no "Open tasks" field, fact or context line too.
        #expect(all.lowercased().components(separatedBy: "open task").count - 1 == 1, "\(service): \(texts)")
        #expect(all.contains("2 open tasks:"), "\(service): \(texts)")
    }

    /// The place and the event's own link, which the alert's body has (`📍`, `🔗` lines), are not
    /// given again by a Where field, fact or context line, nor by a second link to the same page.
    @Test(arguments: ["slack", "discord", "teams", "mattermost", "ntfy"])
    func aChatAlertGivesItsPlaceAndItsLinkOnce(service: String) throws {
        let start = try #require(ISOInstant.parse("2026-12-01T19:00:00Z"))
        var event = Event(id: "3f0c9a6e-2b1d-4c8e-9a77-5d2f1e0b6c41", title: "Pagliacci", start: .instant(start),
                          timeZone: AlertLanguageTests.zone.identifier, symbol: .theatermasks, color: .purple,
                          tasks: [EventTask(id: "t1", text: "Get tickets")])
        event.location = "Teatro alla Scala, Milano"
        event.url = "https://tickets.example.org/pagliacci"
        let message = AlertMessage.make(Occurrence(event: event, calendar: AlertLanguageTests.calendar), lead: LeadTime(seconds: 5400),
                                        channel: "team", calendar: AlertLanguageTests.calendar)
        let builder = try #require(allBuilders.first { $0.name == service })
        let body = try #require(builder.build(message).first?.body)
        var texts = try Self.shown(service, body)
        if service == "slack" {
            let fallback = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["text"] as? String
            texts.removeAll { $0 == fallback }
        }
        let all = texts.joined(separator: "\n")
        #expect(all.components(separatedBy: "Teatro alla Scala").count - 1 == 1, "\(service): \(texts)")
        #expect(all.components(separatedBy: "https://tickets.example.org/pagliacci").count - 1 <= 1, "\(service): \(texts)")
        #expect(all.components(separatedBy: "open task").count - 1 == 1, "\(service): \(texts)")
    }

    /// A digest's title ends with its summary (`datebook morning digest: 4 events this week, …`),
    /// and every chat service shows the title on its own: the card, the blocks, the embeds, the
    /// post, the notification (and Slack's notification text) do not say the counts again.
    @Test(arguments: ["slack", "teams", "discord", "mattermost", "ntfy"])
    func aDigestSaysItsCountsOnce(service: String) throws {
        let message = try DigestLayoutTests.digest()
        let summary = try #require(message.outline?.summary)
        #expect(message.displayTitle.hasSuffix(summary))
        let builder = try #require(allBuilders.first { $0.name == service })
        let body = try #require(builder.build(message).first?.body)
        // Slack's fallback `text` (what a notification shows instead of the blocks) is counted on its own.
        let shown = try ServiceRendering.texts(service: service, body: body)
        var texts = shown.filter { $0.path != "text" || service != "slack" }.map(\.text)
        if service == "ntfy", let title = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["title"] as? String {
            texts.append(title)
        }
        for fallback in shown where fallback.path == "text" && service == "slack" {
            #expect(fallback.text.components(separatedBy: summary).count - 1 == 1, "\(fallback.text)")
        }
        #expect(texts.joined(separator: "\n").components(separatedBy: summary).count - 1 == 1, "\(service): \(texts.prefix(3))")
    }
}
