import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

/// A delivery the channel accepted in part reports that part before its outcome, and a retry
/// from that progress sends only the rest: the later parts of a split message, the email to the
/// recipients that refused it for now.
@Suite struct PartialDeliveryTests {
    /// Everything `Deliverer` reported for one step, in order.
    static func outcomes(of step: DeliveryStep, through deliverer: Deliverer = Deliverer()) -> [DeliveryOutcome] {
        var reported: [DeliveryOutcome] = []
        deliverer.deliver([step]) { _, outcome in reported.append(outcome) }
        return reported
    }

    @Test func aSplitMessageWhosePartFourFailsIsResentFromPartFour() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let parts = (1...6).map { HTTPRequest(method: "POST", url: "\(sink.baseURL)/fail-nth/4", body: Data("part \($0)".utf8)) }
        let first = Self.outcomes(of: .http(parts))
        #expect(first.dropLast() == (1...3).map { .progressed(DeliveryProgress(parts: $0)) }, "each part is reported before the next goes")
        guard case .http(let response) = first.last else { Issue.record("the failed part ends the step: \(first)"); return }
        #expect(response.status == 500)
        #expect(RetryPolicy.isTransient(first.last ?? .accepted))

        let progress = DeliveryProgress(parts: 3)
        let retry = Self.outcomes(of: DeliveryStep.http(parts).remaining(after: progress))
        #expect(retry.dropLast() == [.progressed(DeliveryProgress(parts: 1)), .progressed(DeliveryProgress(parts: 2))])
        guard case .http(let done) = retry.last else { Issue.record("the step ends with the last part's answer: \(retry)"); return }
        #expect(done.status == 204)
        #expect(progress.followed(by: DeliveryProgress(parts: 2)) == DeliveryProgress(parts: 5))

        let arrived = try sink.records().map { String(decoding: Data(base64Encoded: $0["body"] as? String ?? "") ?? Data(), as: UTF8.self) }
        // Part 4 reached the sink twice: refused (500), then taken. Parts 1-3 and 5-6 once each.
        #expect(arrived == ["part 1", "part 2", "part 3", "part 4", "part 4", "part 5", "part 6"])
    }

    @Test func aRetryOfAnEmailGoesOnlyToTheRecipientsThatRefusedIt() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = EmailMessage(
            from: EmailAddress(address: "me@example.org"),
            to: ["ok@example.org", "once@example.org", "b@example.org"].map { EmailAddress(address: $0) },
            subject: "Standup", text: "Standup at 9:00", date: Date(timeIntervalSince1970: 1_796_010_420),
            messageID: EmailMessage.messageID(idempotencyKey: "evt-42|1h|mail", host: "example.org"))
        let step = DeliveryStep.email(SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false), message)
        let first = Self.outcomes(of: step)
        #expect(first.first == .progressed(DeliveryProgress(recipients: ["ok@example.org", "b@example.org"])))
        guard first.count == 2, case .transport(let error) = first[1] else { Issue.record("a refusal must follow: \(first)"); return }
        #expect(error.kind == .deferred)
        #expect(error.detail == "refused once@example.org (451 4.3.0 try again later); delivered to ok@example.org, b@example.org")

        let retry = Self.outcomes(of: step.remaining(after: DeliveryProgress(recipients: ["ok@example.org", "b@example.org"])))
        #expect(retry == [.accepted])
        let records = try sink.records()
        #expect(records.map { $0["rcpt_tos"] as? [String] ?? [] } == [["ok@example.org", "b@example.org"], ["once@example.org"]])
        #expect(records.allSatisfy { to in ["ok@", "once@", "b@"].allSatisfy { (to["to"] as? String)?.contains($0) == true } },
                "the To header names everyone each time: \(records.map { $0["to"] ?? "" })")
        #expect(Set(records.map { $0["message_id"] as? String ?? "" }).count == 1, "one message, one Message-ID")

        // Everyone took it already (the last outcome was lost): nothing goes out, and that is a success.
        message.envelope = []
        #expect(Self.outcomes(of: .email(SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false), message)) == [.accepted])
        #expect(try sink.records().count == 2)
    }

    @Test func progressReadsBackFromTheLedgerText() {
        let progress = DeliveryProgress(parts: 3, recipients: ["ann@example.org", "o\"dd@example.org"])
        #expect(DeliveryProgress(text: progress.text) == progress)
        #expect(DeliveryProgress().text == nil)
        #expect(DeliveryProgress(text: nil) == DeliveryProgress())
        #expect(DeliveryProgress(text: "not json") == DeliveryProgress(), "unreadable: the whole delivery is sent again")
        #expect(DeliveryProgress(recipients: ["a@x.org"]).followed(by: DeliveryProgress(recipients: ["a@x.org", "b@x.org"]))
                == DeliveryProgress(recipients: ["a@x.org", "b@x.org"]))
        #expect(progress.summary == "parts 1–3 sent; accepted by ann@example.org, o\"dd@example.org")
    }
}
