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
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = ((days % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday
        let sign = offset < 0 ? "-" : "+"
        let offsetMinutes = abs(offset) / 60
        return "\(weekdayNames[weekday]), \(twoDigits(day)) \(monthNames[month - 1]) \(fourDigits(year)) "
            + "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) "
            + "\(sign)\(twoDigits(offsetMinutes / 60))\(twoDigits(offsetMinutes % 60))"
    }

    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    private static func fourDigits(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    /// Proleptic Gregorian year, month (1–12) and day for a day count from 1970-01-01
    /// (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSinceEpoch: Int) -> (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
