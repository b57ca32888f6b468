import DatebookCore
import Foundation

/// Encoders for email: quoted-printable bodies (CRLF line ends) and RFC 2047 headers.
enum MIMEEncoding {
    /// Splits text into lines on CRLF, LF or CR.
    static func lines(_ text: String) -> [Substring] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Quoted-printable (RFC 2045) with CRLF hard breaks and soft breaks at 76 columns.
    static func quotedPrintable(_ text: String) -> String {
        var output: [String] = []
        for line in lines(text) {
            let bytes = Array(line.utf8)
            var encoded: [String] = []
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != 61) || ((byte == 32 || byte == 9) && !isLast)
                encoded.append(literal ? String(UnicodeScalar(byte)) : String(format: "=%02X", byte))
            }
            var current = ""
            for token in encoded {
                if current.count + token.count > 75 {
                    output.append(current + "=")
                    current = ""
                }
                current += token
            }
            output.append(current)
        }
        return output.joined(separator: "\r\n")
    }

    /// A header value safe for one logical header: CR, LF and other controls removed.
    static func clean(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
            .strippingLineBreaks
    }

    static func isPlainASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F } && !text.contains("=?")
    }

    /// An unstructured header value (Subject): plain ASCII folded at spaces when every word
    /// fits, otherwise RFC 2047 `=?UTF-8?B?…?=` words of at most 75 characters, never
    /// splitting a character, folded with CRLF + space. `prefixLength` is the length of
    /// `Name: ` on the first line.
    static func encodeUnstructured(_ raw: String, prefixLength: Int) -> String {
        let value = clean(raw)
        let words = value.split(separator: " ", omittingEmptySubsequences: false)
        if isPlainASCII(value), words.allSatisfy({ $0.count <= 70 }) {
            // Fold before a space; a continuation line starts with that space.
            var lines: [String] = []
            var current = ""
            var limit = 78 - prefixLength
            for (index, word) in words.enumerated() {
                let piece = index == 0 ? String(word) : " " + word
                if !current.isEmpty, current.count + piece.count > limit {
                    lines.append(current)
                    current = String(word)
                    limit = 77
                } else {
                    current += piece
                }
            }
            lines.append(current)
            return lines.joined(separator: "\r\n ")
        }
        return encodedWords(value).joined(separator: "\r\n ")
    }

    /// RFC 2047 B-encoded words, each holding at most 39 bytes of whole characters.
    static func encodedWords(_ value: String) -> [String] {
        var words: [String] = []
        var chunk = Data()
        for character in value {
            let bytes = Data(String(character).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > 39 {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words
    }

    /// A display name as a quoted string, or encoded words when it is not plain ASCII.
    static func encodeDisplayName(_ raw: String) -> String {
        let name = clean(raw).trimmingCharacters(in: .whitespaces)
        if isPlainASCII(name) {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        }
        return encodedWords(name).joined(separator: " ")
    }

    /// RFC 5322 date, e.g. `Mon, 30 Nov 2026 03:47:00 +0000`, in `timeZone`'s offset at `date`.
    ///
    /// Computed with civil-calendar arithmetic rather than a `DateFormatter`, whose creation
    /// cost more than the rest of rendering an email; the output is the same as the formatter's
    /// `EEE, dd MMM yyyy HH:mm:ss Z` in `en_US_POSIX` for years 1–9999.
    static func rfc5322Date(_ date: Date, timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let local = LocalTime(date, in: timeZone)
        let sign = offset < 0 ? "-" : "+"
        let offsetMinutes = abs(offset) / 60
        return "\(LocalTime.weekdayNames[local.weekday]), \(twoDigits(local.day)) \(LocalTime.monthNames[local.month - 1]) "
            + "\(fourDigits(local.year)) \(twoDigits(local.hour)):\(twoDigits(local.minute)):\(twoDigits(local.second)) "
            + "\(sign)\(twoDigits(offsetMinutes / 60))\(twoDigits(offsetMinutes % 60))"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    private static func fourDigits(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
