/// What an SMTP server answered in one transaction, as libcurl saw it (it hands every reply line
/// to the header callback): the reply to each recipient, and the server's own words for an error
/// (libcurl's own message for many SMTP errors is only "Weird server reply").
struct SMTPReplies: Equatable {
    /// Final reply lines in order (`250 OK`, `550 5.1.1 no such user`); `250-…` continuations and
    /// the closing `221` dropped.
    var finals: [String]

    init(lines: [String]) {
        finals = lines.filter { line in
            let code = line.prefix(3)
            return code.count == 3 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber)
                && (line.count == 3 || line.dropFirst(3).first == " ")
        }
        // The answer to the QUIT libcurl sends after a failure says nothing about the message.
        if finals.count > 1, finals.last?.hasPrefix("221") == true { finals.removeLast() }
    }

    /// The reply to each of `count` RCPT commands, in order; nil when the replies do not line up
    /// with them (MAIL FROM refused, the connection lost before every RCPT was answered).
    ///
    /// The RCPT replies are the `count` finals before DATA's `354`; without one, libcurl's error
    /// says where the transaction stopped: at the recipients (`RCPT failed`: they are the last
    /// finals) or at the DATA command (`DATA failed`: they come just before its refusal).
    func recipients(_ count: Int, curlError: String? = nil) -> [String]? {
        guard count > 0 else { return [] }
        let end: Int
        if let data = finals.lastIndex(where: { $0.hasPrefix("354") }) {
            end = data
        } else if curlError?.contains("RCPT failed") == true {
            end = finals.count
        } else if curlError?.contains("DATA failed") == true {
            end = finals.count - 1
        } else {
            return nil
        }
        guard end - count - 1 >= 0, finals[end - count - 1].hasPrefix("2") else { return nil }
        return Array(finals[(end - count)..<end])
    }

    /// The server's last reply, as it wrote it (control characters dropped, at most 200 characters).
    var last: String? {
        finals.last.map { String(String($0.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }).prefix(200)) }
    }
}

/// Each recipient of an email and what the server said to it.
struct RecipientReplies: Sendable, Equatable {
    struct Refusal: Sendable, Equatable {
        var address: String
        /// The server's reply, e.g. `550 5.1.1 no such user`.
        var reply: String
    }

    var accepted: [String]
    var refused: [Refusal]

    /// `refused reject@example.org (550 5.1.1 no such user); delivered to jm@example.org`.
    var summary: String {
        var text = "refused " + refused.map { "\($0.address) (\($0.reply))" }.joined(separator: ", ")
        if !accepted.isEmpty { text += "; delivered to " + accepted.joined(separator: ", ") }
        return text
    }

    /// Any refusal for now (4xx): worth retrying; all 5xx: not.
    var anyTemporary: Bool { refused.contains { $0.reply.hasPrefix("4") } }
}
