import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookDelivery

@Suite struct EmailMessageTests {
    static let date = Date(timeIntervalSince1970: 1_796_010_420)  // 2026-11-30 03:47:00 UTC

    static func message(subject: String, text: String = "Grüße\nline two", html: String? = "<p>Grüße</p>") -> EmailMessage {
        EmailMessage(
            from: EmailAddress(name: "datebook Über", address: "me@example.org"),
            to: [EmailAddress(address: "you@example.org")], subject: subject, text: text, html: html,
            date: date, messageID: EmailMessage.messageID(idempotencyKey: "k1", host: "example.org"))
    }

    static func headers(_ data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return head.components(separatedBy: "\r\n")
    }

    @Test func headerInjectionThroughSubjectAddsNoHeader() {
        let data = Self.message(subject: "x\r\nBcc: evil@x\nX-Evil: 1").render()
        let lines = Self.headers(data)
        #expect(!lines.contains { $0.hasPrefix("Bcc:") || $0.hasPrefix("X-Evil:") })
        #expect(lines.filter { !$0.hasPrefix(" ") }.count == 8)
    }

    @Test func everyLineEndsWithCRLFAndIsShort() {
        let long = String(repeating: "日本語の長い件名 ", count: 12) + "🎉👩‍👩‍👧"
        let data = Self.message(subject: long, text: String(repeating: "ü", count: 200) + "\n" + String(repeating: "a ", count: 100)).render()
        let bytes = [UInt8](data)
        for (index, byte) in bytes.enumerated() where byte == 10 {
            #expect(index > 0 && bytes[index - 1] == 13)
        }
        for line in String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 78, "line too long: \(line)")
        }
    }

    @Test func longASCIISubjectFoldsAtSpaces() {
        let subject = (1...30).map { "word\($0)" }.joined(separator: " ")
        let lines = Self.headers(Self.message(subject: subject).render())
        let start = lines.firstIndex { $0.hasPrefix("Subject: ") } ?? 0
        let folded = lines[start...].prefix { $0.hasPrefix("Subject: ") || $0.hasPrefix(" ") }
        #expect(folded.count > 1)
        #expect(folded.allSatisfy { $0.count <= 78 })
        #expect(String(folded.joined().dropFirst("Subject: ".count)) == subject)
    }

    @Test func dateAndMessageIDAreStable() {
        let lines = Self.headers(Self.message(subject: "Hi").render())
        #expect(lines.contains("Date: Mon, 30 Nov 2026 03:47:00 +0000"))
        #expect(lines.contains("Message-ID: <\(SHA256.hash(Data("k1".utf8)).hexString.prefix(32))@example.org>"))
    }

    @Test(arguments: [
        ("Hello", "Subject: Hello"),
        ("Grüße", "Subject: =?UTF-8?B?R3LDvMOfZQ==?="),
    ])
    func subjectEncoding(subject: String, expected: String) {
        #expect(Self.headers(Self.message(subject: subject).render()).contains(expected))
    }

    @Test func quotedPrintableUsesCRLFAndSoftBreaks() {
        #expect(MIMEEncoding.quotedPrintable("a=b\nü ") == "a=3Db\r\n=C3=BC=20")
        let long = MIMEEncoding.quotedPrintable(String(repeating: "x", count: 100))
        #expect(long == String(repeating: "x", count: 75) + "=\r\n" + String(repeating: "x", count: 25))
    }

    @Test func goldenMIME() {
        let message = EmailMessage(
            Fixtures.alert, from: EmailAddress(parsing: "datebook <me@example.org>"),
            to: [EmailAddress(parsing: "Jörg Müller <jm@example.org>")], date: Self.date, host: "example.org")
        GoldenFiles().expect(String(decoding: message.render(), as: UTF8.self), named: "email-alert.eml")
    }
}

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func digestMatchesFIPSVectors(input: String, hex: String) {
        #expect(SHA256.hash(Data(input.utf8)).hexString == hex)
    }

    @Test func millionAs() {
        #expect(SHA256.hash(Data(repeating: 0x61, count: 1_000_000)).hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacMatchesRFC4231() {
        // Test case 2 and 6 (key longer than the block).
        #expect(HMACSHA256.authenticationCode(key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8)).hexString
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.authenticationCode(key: Data(repeating: 0xaa, count: 131), message: Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8)).hexString
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
