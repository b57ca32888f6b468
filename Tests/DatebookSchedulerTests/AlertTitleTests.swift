import DatebookCore
import DatebookDelivery
@testable import DatebookRender
@testable import DatebookScheduler
import Foundation
import Testing

/// An alert's title carries the event's emoji exactly once, whichever channel shows it.
struct AlertTitleTests {
    static let event = Event(id: "aaaa000000000001", title: "Emoji test", start: .instant(utc("2026-12-01T18:00:00Z")),
                             timeZone: "Europe/Berlin", symbol: .gift, color: .yellow)

    static func message(lead: LeadTime?) -> OutgoingMessage {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
        return AlertMessage.make(Occurrence(event: event, calendar: calendar), lead: lead, channel: "team", calendar: calendar)
    }

    /// The title field of each service's payload (the email subject decoded from RFC 2047).
    static func titles(_ message: OutgoingMessage) throws -> [String: String] {
        func json(_ request: HTTPRequest?) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: request?.body ?? Data()) as? [String: Any] ?? [:]
        }
        let url = Secret("https://chat.example.org/hook")
        let slack = try json(SlackPayload.requests(for: message, options: .init(url: url)).first)
        let discord = try json(DiscordPayload.requests(for: message, options: .init(url: url)).first)
        let teams = try json(TeamsPayload.requests(for: message, options: .init(url: url)).first)
        let mattermost = try json(MattermostPayload.requests(for: message, options: .init(url: url)).first)
        let ntfy = try json(NtfyPayload.requests(for: message, options: .init(server: "https://ntfy.example.org",
                                                                               topic: Secret("topic"))).first)
        let email = EmailMessage(message, from: EmailAddress(address: "me@example.org"), to: [EmailAddress(address: "me@example.org")],
                                 date: utc("2026-12-01T17:30:00Z"), host: "example.org")
        let card = ((teams["attachments"] as? [[String: Any]])?.first?["content"] as? [String: Any])?["body"] as? [[String: Any]]
        let header = (slack["blocks"] as? [[String: Any]])?.first?["text"] as? [String: Any]
        return [
            "slack": header?["text"] as? String ?? "",
            "discord": ((discord["embeds"] as? [[String: Any]])?.first?["title"] as? String) ?? "",
            "teams": card?.first?["text"] as? String ?? "",
            "mattermost": String((mattermost["text"] as? String ?? "").split(separator: "\n").first ?? "")
                .replacingOccurrences(of: "#### ", with: ""),
            "ntfy": ntfy["title"] as? String ?? "",
            "email": email.subject,
        ]
    }

    @Test(arguments: [
        (LeadTime(seconds: 1800), "🎁 in 30 minutes: Emoji test"),
        (nil, "🎁 Emoji test"),
    ])
    func alertTitleShowsTheEmojiOnceOnEveryChannel(lead: LeadTime?, expected: String) throws {
        let message = Self.message(lead: lead)
        #expect(message.displayTitle == expected)
        let titles = try Self.titles(message)
        #expect(titles.count == 6)
        for (service, title) in titles {
            #expect(title == expected, "\(service): \(title)")
        }
        let argv = CommandRunner.expand(["notify-send", "{{title}}"], with: message)
        #expect(argv.last == expected)
        #expect(CommandRunner.environment(for: message)["DATEBOOK_TITLE"] == expected)
    }
}
