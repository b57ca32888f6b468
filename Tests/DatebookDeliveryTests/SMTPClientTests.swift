import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

@Suite struct SMTPClientTests {
    static let international = EmailMessage(
        from: EmailAddress(name: "datebook Über", address: "me@example.org"),
        to: [EmailAddress(name: "Jörg Straße", address: "jm@example.org"), EmailAddress(address: "b@example.org")],
        subject: "Geburtstag: Grüße aus Köln, Straße 日本語の予定 🎂 " + String(repeating: "long ", count: 12),
        text: "Hallo Jörg,\nüber die Straße. 日本語 🎉\n.leading dot line\nEnd",
        html: "<p>Hallo J&ouml;rg, über die Straße. 日本語 🎉</p>",
        date: Date(timeIntervalSince1970: 1_796_010_420),
        messageID: EmailMessage.messageID(idempotencyKey: "evt-42|1h|mail", host: "example.org"))

    @Test func plainSMTPDeliversBothPartsWithEncodedHeaders() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        let reply = try client.send(Self.international).get()
        #expect(reply == 250)
        let record = try #require(try sink.records().first)
        #expect(record["mail_from"] as? String == "me@example.org")
        #expect(record["rcpt_tos"] as? [String] == ["jm@example.org", "b@example.org"])
        #expect(record["subject"] as? String == Self.international.subject)
        #expect((record["from"] as? String)?.contains("datebook Über") == true)
        #expect((record["to"] as? String)?.contains("Jörg Straße") == true)
        #expect(record["date"] as? String == "Mon, 30 Nov 2026 03:47:00 +0000")
        #expect(record["message_id"] as? String == Self.international.messageID)
        #expect(record["content_type"] as? String == "multipart/alternative")
        #expect((record["defects"] as? [String])?.isEmpty == true)
        let parts = try #require(record["parts"] as? [[String: Any]])
        #expect(parts.map { $0["content_type"] as? String } == ["text/plain", "text/html"])
        let plain = parts[0]["content"] as? String ?? ""
        #expect(plain.replacingOccurrences(of: "\r\n", with: "\n") == Self.international.text)
        #expect((parts[1]["content"] as? String)?.contains("über die Straße. 日本語 🎉") == true)
    }

    @Test(arguments: [("reject@example.org", TransportError.Kind.rejected, "SMTP 550"), ("later@example.org", .deferred, "SMTP 451")])
    func recipientRefusalIsClassified(address: String, kind: TransportError.Kind, code: String) throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = Self.international
        message.to = [EmailAddress(address: address)]
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        guard case .failure(let error) = client.send(message) else {
            Issue.record("\(address) must be refused")
            return
        }
        #expect(error.kind == kind)
        #expect(error.description.contains("refused \(address) (\(code.dropFirst(5))"), "\(error)")
        #expect(!error.description.contains("delivered to"))
        #expect(try sink.records().isEmpty)
    }

    /// A server that answers the message's end after 2 s, and a client whose own timeout is 1 s:
    /// the final dot waits as RFC 5321 says (10 minutes), so the message goes once and succeeds.
    @Test func aSlowAnswerToTheMessageEndIsAwaitedWhateverTheTimeout() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = Self.international
        message.to = [EmailAddress(address: "slow2@example.org")]
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false, timeout: 1))
        #expect(try client.send(message).get() == 250)
        #expect(try sink.records().count == 1)
    }

    /// No answer to the message's end within the data timeout: `unanswered` (the server has the
    /// message here), which the retry policy does not retry; no "(redirected from …)".
    @Test func anUnansweredMessageEndIsUncertainNotATimeoutToRetry() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = Self.international
        message.to = [EmailAddress(address: "slow5@example.org")]
        var configuration = SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false, timeout: 1)
        configuration.dataTimeout = 1
        guard case .failure(let error) = SMTPClient(configuration: configuration).send(message) else {
            Issue.record("the answer comes after the data timeout")
            return
        }
        #expect(error.kind == .unanswered)
        #expect(error.description.hasPrefix("smtp://127.0.0.1:\(sink.port)/: sent, but the server did not answer"))
        #expect(!error.description.contains("redirected from"))
        #expect(try sink.records().count == 1)
        let decision = RetryPolicy().decide(attempt: 1, outcome: .transport(error), firstAttempt: Date(), now: Date(), random: { 0.5 })
        #expect(decision == .uncertain(reason: error.description))
    }

    /// One refused recipient blocks no other: the message goes to those the server accepted, and
    /// the error names each refused address with the server's reply (any 4xx: retried; all 5xx: not).
    @Test(arguments: [(["ok@example.org", "reject@example.org", "b@example.org"], TransportError.Kind.rejected),
                      (["ok@example.org", "reject@example.org", "later@example.org"], .deferred)])
    func theAcceptedRecipientsGetTheMessageAndEachRefusedOneIsNamed(addresses: [String], kind: TransportError.Kind) throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = Self.international
        message.to = addresses.map { EmailAddress(address: $0) }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        guard case .failure(let error) = client.send(message) else {
            Issue.record("a refused recipient must be reported")
            return
        }
        #expect(error.kind == kind)
        let accepted = addresses.filter { !$0.hasPrefix("reject") && !$0.hasPrefix("later") }
        var expected = "refused reject@example.org (550 5.1.1 no such user)"
        if kind == .deferred { expected += ", later@example.org (451 4.3.0 try again later)" }
        #expect(error.detail == expected + "; delivered to " + accepted.joined(separator: ", "))
        let records = try sink.records()
        #expect(records.count == 1)
        #expect(records.first?["rcpt_tos"] as? [String] == accepted)
        #expect((records.first?["to"] as? String)?.contains("reject@example.org") == true, "the To header is the message's own")
    }

    /// libcurl says only "Weird server reply" when the server refuses the message at its end:
    /// the error carries the server's own reply instead.
    @Test func aRefusedMessageShowsTheServersOwnReply() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        var message = Self.international
        message.to = [EmailAddress(address: "spam@example.org")]
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: false))
        guard case .failure(let error) = client.send(message) else {
            Issue.record("the message must be refused")
            return
        }
        #expect(error.kind == .rejected)
        #expect(error.detail == "the server replied 554 5.7.1 Message refused: looks like spam", "\(error)")
        #expect(!error.description.contains("Weird"))
        #expect(try sink.records().isEmpty)
    }

    @Test func repliesLineUpWithTheirRecipients() {
        let greeting = ["220 localhost", "250-localhost", "250 HELP", "250 OK"]
        #expect(SMTPReplies(lines: greeting + ["250 OK", "550 no", "354 go", "250 accepted"]).recipients(2) == ["250 OK", "550 no"])
        #expect(SMTPReplies(lines: greeting + ["550 no", "451 later", "221 Bye"]).recipients(2, curlError: "RCPT failed: 451") == ["550 no", "451 later"])
        #expect(SMTPReplies(lines: greeting + ["250 OK", "554 no data"]).recipients(1, curlError: "DATA failed: 554") == ["250 OK"])
        #expect(SMTPReplies(lines: ["220 localhost", "250 HELP", "550 sender refused"]).recipients(1, curlError: "MAIL failed: 550") == nil)
        #expect(SMTPReplies(lines: ["250-a", "250 b\u{7}"]).last == "250 b")
    }

    @Test func wrongPortIsAConnectionFailureWithoutPassword() {
        let client = SMTPClient(configuration: SMTPConfiguration(
            url: "smtp://127.0.0.1:1", username: "me", password: Secret("SMTPCANARY"), requireTLS: false, connectTimeout: 2))
        guard case .failure(let error) = client.send(Self.international) else {
            Issue.record("port 1 must fail")
            return
        }
        #expect(error.kind == .connectionFailed)
        #expect(!error.description.contains("SMTPCANARY"))
    }

    @Test func starttlsWithAuthAndTrustedSelfSignedCert() throws {
        let directory = URL(fileURLWithPath: makeScratchFolder("cert"))
        defer { removeScratchFolder(directory.path) }
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try makeCertificate(in: directory)
        let sink = try TestServer(script: "smtp_sink.py", arguments: ["--mode", "starttls", "--cert", pem.cert, "--key", pem.key, "--auth", "me:s3cret"])
        defer { sink.stop() }
        var config = SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", username: "me", password: Secret("s3cret"), caInfo: pem.cert)
        #expect(try SMTPClient(configuration: config).send(Self.international).get() == 250)
        let record = try #require(try sink.records().first)
        #expect(record["tls"] as? Bool == true)
        #expect(record["authenticated"] as? Bool == true)

        config.caInfo = nil  // untrusted self-signed certificate must be refused
        guard case .failure(let error) = SMTPClient(configuration: config).send(Self.international) else {
            Issue.record("unverified certificate must fail")
            return
        }
        #expect(error.kind == .tlsFailed)

        config.caInfo = pem.cert
        config.password = Secret("WRONGCANARY")
        guard case .failure(let denied) = SMTPClient(configuration: config).send(Self.international) else {
            Issue.record("wrong password must fail")
            return
        }
        #expect(denied.kind == .loginDenied)
        #expect(!denied.description.contains("WRONGCANARY"))
    }

    @Test func requireTLSRefusesServerWithoutStarttls() throws {
        let sink = try TestServer(script: "smtp_sink.py")
        defer { sink.stop() }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtp://127.0.0.1:\(sink.port)", requireTLS: true))
        guard case .failure(let error) = client.send(Self.international) else {
            Issue.record("plain server must be refused when TLS is required")
            return
        }
        #expect(error.kind == .tlsFailed)
        #expect(try sink.records().isEmpty)
    }

    @Test func implicitTLSSmtps() throws {
        let directory = URL(fileURLWithPath: makeScratchFolder("cert"))
        defer { removeScratchFolder(directory.path) }
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try makeCertificate(in: directory)
        let sink = try TestServer(script: "smtp_sink.py", arguments: ["--mode", "smtps", "--cert", pem.cert, "--key", pem.key])
        defer { sink.stop() }
        let client = SMTPClient(configuration: SMTPConfiguration(url: "smtps://127.0.0.1:\(sink.port)", caInfo: pem.cert))
        #expect(try client.send(Self.international).get() == 250)
        #expect(try sink.records().first?["tls"] as? Bool == true)
    }
}
