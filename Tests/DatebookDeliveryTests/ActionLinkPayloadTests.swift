import DatebookCore
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookDelivery

/// An alert's action links as each channel carries them; without links nothing changes (the
/// `*-alert` golden files of `PayloadTests` and `EmailMessageTests`).
@Suite struct ActionLinkPayloadTests {
    @Test func commandTemplatesAndEnvironmentNameEachLink() throws {
        let message = Fixtures.alertWithLinks
        let argv = CommandRunner.expand(["notify", "{{doneURL}}", "{{snoozeURL}}", "{{tomorrowURL}}", "{{eventURL}}"], with: message)
        #expect(argv == ["notify"] + message.actions.map(\.url))
        let environment = CommandRunner.environment(for: message)
        #expect(environment["DATEBOOK_DONE_URL"] == message.actionURL("done"))
        #expect(environment["DATEBOOK_EVENT_PAGE_URL"] == "https://planner.example.org/events/evt-42")
        #expect(CommandRunner.expand(["{{doneURL}}"], with: Fixtures.alert) == [""])
        #expect(CommandRunner.environment(for: Fixtures.alert)["DATEBOOK_DONE_URL"] == nil)
    }

    @Test func anEmailCarriesTheLinksInBothParts() throws {
        let email = EmailMessage(Fixtures.alertWithLinks, from: EmailAddress(parsing: "datebook <me@example.org>"),
                                 to: [EmailAddress(parsing: "me@example.org")], date: EmailMessageTests.date, host: "example.org")
        let done = try #require(Fixtures.alertWithLinks.actionURL("done"))
        #expect(email.text.hasSuffix("\n\nDone: \(done)\nSnooze 1 h: \(Fixtures.alertWithLinks.actionURL("snooze") ?? "")\n"
                                     + "Tomorrow 9:00: \(Fixtures.alertWithLinks.actionURL("tomorrow") ?? "")\n"
                                     + "Open: https://planner.example.org/events/evt-42"))
        #expect(email.html?.contains("<a href=\"\(done)\">Done</a> · ") == true)
        GoldenFiles().expect(String(decoding: email.render(), as: UTF8.self), named: "email-alert-links.eml")
    }
}
