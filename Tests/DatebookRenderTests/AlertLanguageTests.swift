import DatebookCore
import DatebookDelivery
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// An alert in each built-in language: its text bodies, a Slack and a Discord payload, and the
/// desktop notification, as golden files.
struct AlertLanguageTests {
    static let zone = DigestFixtures.zone
    static var calendar: Calendar { DigestFixtures.calendar }

    /// Pagliacci in 1 h 30 min, with one task in progress, one to do and one done.
    static func alert(_ locale: String) throws -> OutgoingMessage {
        let start = try #require(ISOInstant.parse("2026-12-01T19:00:00Z"))
        var event = Event(id: "3f0c9a6e-2b1d-4c8e-9a77-5d2f1e0b6c41", title: "Pagliacci", start: .instant(start), timeZone: zone.identifier,
                          symbol: .theatermasks, color: .purple,
                          tasks: [EventTask(id: "t1", text: "Get tickets"), EventTask(id: "t2", text: "Iron the shirt"),
                                  EventTask(id: "t3", text: "Buy new tux")])
        event.tasks[0].status = .doing
        event.tasks[2].status = .done
        let words = try MessageCatalog.load(locale: locale, overrideDirectory: nil)
        return AlertMessage.make(Occurrence(event: event, calendar: calendar), lead: LeadTime(seconds: 5400), channel: "team",
                                 calendar: calendar, words: words)
    }

    @Test(arguments: ["en_US", "de_DE", "ja_JP"])
    func alertTextMatchesGoldenFile(locale: String) throws {
        let message = try Self.alert(locale)
        let desktop = DesktopNotification(message, options: DesktopOptions(icon: "appointment-soon"))
        let text = [message.displayTitle, "── text", message.text, "── markdown", message.markdown, "── html", message.html ?? "",
                    "── desktop", desktop.summary, desktop.body, desktop.actions.joined(separator: " | ")].joined(separator: "\n")
        snapshots.expect(text + "\n", named: "alert-\(locale).txt")
    }

    @Test(arguments: ["en_US", "de_DE", "ja_JP"])
    func chatPayloadsMatchGoldenFiles(locale: String) throws {
        let message = try Self.alert(locale)
        expectSnapshot(try #require(SlackPayload.requests(for: message, options: slack).first).body, named: "slack-alert-\(locale).json")
        expectSnapshot(try #require(DiscordPayload.requests(for: message, options: discord).first).body, named: "discord-alert-\(locale).json")
    }

    @Test(arguments: [
        ("en_US", 86_400 + 7200, "in 1 day 2 hours: Pagliacci", "in 1 d 2 h"),
        ("de_DE", 86_400, "in 1 Tag: Pagliacci", "in 1 T."),
        ("de_DE", 2 * 86_400 + 60, "in 2 Tagen 1 Minute: Pagliacci", "in 2 T. 1 Min."),
        ("ja_JP", 3600 + 600, "1時間10分後: Pagliacci", "1時間10分後"),
        ("en_US", 0, "now: Pagliacci", "now"),
    ])
    func leadTimesReadInTheLanguage(locale: String, seconds: Int, title: String, relative: String) throws {
        let words = try MessageCatalog.load(locale: locale, overrideDirectory: nil)
        let lead = LeadTime(days: seconds / 86_400, seconds: seconds % 86_400)
        #expect(AlertMessage.alertTitle("Pagliacci", lead: lead, words: words) == title)
        #expect(AlertMessage.relativePhrase(lead, words: words) == relative)
    }

    /// The lead phrase is what is true when the alert is sent: on time it is the lead; deferred
    /// (quiet hours) or late it is the time left, `now`, or how long ago the event started.
    @Test(arguments: [
        ("en_US", -3570, "in 1 hour: Pagliacci", "in 1 h"),
        ("en_US", -600, "in 10 minutes: Pagliacci", "in 10 min"),
        ("en_US", 0, "now: Pagliacci", "now"),
        ("en_US", 9000, "started 2 hours 30 minutes ago: Pagliacci", "started 2 h 30 min ago"),
        ("en_US", 86_400 + 3600, "started 1 day 1 hour ago: Pagliacci", "started 1 d 1 h ago"),
        ("de_DE", 9000, "begann vor 2 Stunden 30 Minuten: Pagliacci", "begann vor 2 Std. 30 Min."),
        ("ja_JP", 600, "10分前に開始: Pagliacci", "10分前に開始"),
    ])
    func theLeadPhraseIsComputedWhenTheAlertIsSent(locale: String, sentAfterStart: Int, title: String, relative: String) throws {
        let start = try #require(ISOInstant.parse("2026-12-01T19:00:00Z"))
        let event = Event(id: "e1", title: "Pagliacci", start: .instant(start), timeZone: Self.zone.identifier, symbol: .theatermasks, color: .purple)
        let words = try MessageCatalog.load(locale: locale, overrideDirectory: nil)
        let message = AlertMessage.make(Occurrence(event: event, calendar: Self.calendar), lead: LeadTime(seconds: 3600), channel: "team",
                                        calendar: Self.calendar, words: words, now: start.addingTimeInterval(TimeInterval(sentAfterStart)))
        #expect(message.title == title)
        #expect(message.event?.relativeWhen == relative)
        #expect(message.idempotencyKey.hasSuffix(":1h:team"), "the key stays the lead's")
    }
}
