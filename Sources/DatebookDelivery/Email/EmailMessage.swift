import DatebookCore
import Foundation

/// A mailbox: optional display name and an ASCII address.
public struct EmailAddress: Sendable, Equatable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }

    /// Parses `Name <addr@host>` or `addr@host`.
    public init(parsing text: String) {
        if let open = text.lastIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close {
            let name = text[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            self.init(name: name.isEmpty ? nil : name, address: String(text[text.index(after: open)..<close]))
        } else {
            self.init(address: text.trimmingCharacters(in: .whitespaces))
        }
    }

    /// The address with anything that could break out of `<…>` or a header removed.
    public var cleanAddress: String {
        String(MIMEEncoding.clean(address).unicodeScalars.filter { !"<>,;\"\\ ".unicodeScalars.contains($0) })
    }

    /// The part after `@` (`example.org`), nil when there is none.
    public var domain: String? {
        guard let at = cleanAddress.lastIndex(of: "@") else { return nil }
        let domain = cleanAddress[cleanAddress.index(after: at)...]
        return domain.isEmpty ? nil : String(domain)
    }

    var headerValue: String {
        guard let name, !name.isEmpty else { return "<\(cleanAddress)>" }
        return "\(MIMEEncoding.encodeDisplayName(name)) <\(cleanAddress)>"
    }
}

/// An email ready to be rendered to MIME bytes: `multipart/alternative` with a
/// quoted-printable UTF-8 text part and HTML part, CRLF line ends, `Date` and `Message-ID`
/// (libcurl adds neither), RFC 2047 for non-ASCII headers, CR/LF stripped from header values.
public struct EmailMessage: Sendable, Equatable {
    public var from: EmailAddress
    public var to: [EmailAddress]
    /// Whom the server is asked to deliver to (RCPT TO) when not everyone in `to`: a retry's
    /// recipients that have not accepted the message yet.
    public var envelope: [EmailAddress]?
    public var subject: String
    public var text: String
    /// HTML part; when nil the text is escaped into `<pre>`.
    public var html: String?
    public var date: Date
    public var timeZone: TimeZone
    /// Including the angle brackets.
    public var messageID: String

    public init(
        from: EmailAddress, to: [EmailAddress], subject: String, text: String, html: String? = nil,
        date: Date, timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current, messageID: String
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.timeZone = timeZone
        self.messageID = messageID
    }

    /// Builds the email for an outgoing message. The Message-ID derives from the
    /// idempotency key, so a retried send keeps the same Message-ID; its host is the sender's
    /// domain (`host`, the machine's name, only when the sender has none).
    /// An alert's action links follow the text in both parts.
    public init(_ message: OutgoingMessage, from: EmailAddress, to: [EmailAddress], date: Date, host: String) {
        var text = message.text, html = message.html
        if !message.actions.isEmpty {
            text += "\n\n" + message.actionLines
            html = html.map { $0 + Self.actionParagraph(message.actions) }
        }
        self.init(
            from: from, to: to, subject: message.displayTitle, text: text,
            html: html, date: date,
            messageID: Self.messageID(idempotencyKey: message.idempotencyKey, host: from.domain ?? host))
    }

    /// `<p><a href="…">Done</a> · <a href="…">Snooze 1 h</a> · …</p>`.
    static func actionParagraph(_ actions: [OutgoingMessage.Action]) -> String {
        "<p>" + actions.map { "<a href=\"" + HTMLText.escape($0.url) + "\">" + HTMLText.escape($0.label) + "</a>" }
            .joined(separator: " · ") + "</p>"
    }

    /// `<32 hex chars of SHA-256(key)@host>`, or a random id when the key is empty.
    public static func messageID(idempotencyKey: String, host: String) -> String {
        let cleanHost = String(host.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-" })
        let domain = cleanHost.isEmpty ? "datebook" : cleanHost
        guard !idempotencyKey.isEmpty else { return "<\(UUID().uuidString.lowercased())@\(domain)>" }
        return "<\(SHA256.hash(Data(idempotencyKey.utf8)).hexString.prefix(32))@\(domain)>"
    }

    /// The envelope's recipients: `envelope`, or everyone in `to`.
    public var recipients: [EmailAddress] { envelope ?? to }

    /// The complete message as sent in SMTP DATA.
    public func render() -> Data {
        let htmlBody = html ?? "<!DOCTYPE html>\n<html><body><pre>\(HTMLText.escape(text))</pre></body></html>"
        let plain = MIMEEncoding.quotedPrintable(text)
        let rich = MIMEEncoding.quotedPrintable(htmlBody)
        let boundary = "datebook-" + SHA256.hash(Data((plain + rich + messageID).utf8)).hexString.prefix(24)
        let idValue = MIMEEncoding.clean(messageID)
        var lines = [
            "From: \(from.headerValue)",
            "To: \(to.map(\.headerValue).joined(separator: ",\r\n "))",
            "Subject: \(MIMEEncoding.encodeUnstructured(subject, prefixLength: 9))",
            "Date: \(MIMEEncoding.rfc5322Date(date, timeZone: timeZone))",
            "Message-ID: \(idValue)",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", plain), ("text/html", rich)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: quoted-printable",
                "",
                body,
            ]
        }
        lines += ["--\(boundary)--", ""]
        return Data(lines.joined(separator: "\r\n").utf8)
    }
}
