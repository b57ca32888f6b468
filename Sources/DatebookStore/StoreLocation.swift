/// A store string's printable form (its kind: `SQLDialect.of(location:)`).
///
/// A store string may hold a password (`postgresql://ann:secret@db/team`, `?password=…`, libpq's
/// keyword form `host=db password=secret`), and it reaches messages when it is wrong: a password
/// with `#`, `/`, `?` or `@` in it, a port that is not a number. So the printable form is found by
/// the grammar of each form, never by a URL parser that may fail (and then hand back the input):
/// whatever could be a password becomes `****`, erring towards hiding too much.
public enum StoreLocation {
    /// Whether `text` is libpq's keyword form (`host=db dbname=team …`), which datebook does not take
    /// as a store (it would otherwise become a SQLite file of that name).
    public static func isKeywordForm(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count, bytes[at] == space || bytes[at] == tab { at += 1 }
        let keyStart = at
        while at < bytes.count, isKeyByte(bytes[at]) { at += 1 }
        guard libpqKeys.contains(String(decoding: bytes[keyStart..<at], as: UTF8.self)) else { return false }
        while at < bytes.count, bytes[at] == space || bytes[at] == tab { at += 1 }
        return at < bytes.count && bytes[at] == equals
    }

    /// libpq's connection keywords a keyword-form string starts with (a file named `notes=old` is a file).
    static let libpqKeys: Set<String> = ["host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service",
                                         "sslmode", "sslpassword", "connect_timeout", "options", "application_name",
                                         "target_session_attrs", "requiressl", "gssencmode", "krbsrvname"]

    /// `text` with every password replaced by `****`: a file path comes back as it is.
    public static func redacted(_ text: String) -> String {
        if !SQLDialect.of(location: text).hasFile { return redactedURL(text) }
        // A file path has no password; one that says so anyway is read as keywords (or hidden whole).
        if isKeywordForm(text) || text.contains("password") { return redactedKeywords(text) }
        return text
    }

    /// libpq's parameters whose values are secrets.
    static let secretKeys: Set<String> = ["password", "sslpassword"]

    private static let (space, tab, equals, quote, backslash, ampersand) =
        (UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "="), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "&"))
    private static let hidden = Array("****".utf8)

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57) || byte == 95
    }

    /// `postgresql://[user[:password]@]host[:port][,…][/database][?key=value&…]`: the query's secret
    /// values (each up to the next `&key=`), everything between the first `:` of the user part and the
    /// last `@` (a password may hold `@`, `/`, `?`, `#`), and a port that is not a number (a password
    /// whose `@` was forgotten) become `****`.
    static func redactedURL(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return text }
        var start = colon + 1
        while start < bytes.count, bytes[start] == UInt8(ascii: "/"), start < colon + 3 { start += 1 }
        bytes = redactedQuery(bytes, from: start)
        var hostStart = start
        if let at = bytes[start...].lastIndex(of: UInt8(ascii: "@")) {
            if let separator = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")) {
                bytes.replaceSubrange((separator + 1)..<at, with: hidden)
                hostStart = separator + 1 + hidden.count + 1
            } else {
                hostStart = at + 1
            }
        }
        bytes = redactedPorts(bytes, from: hostStart)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Each `?key=` or `&key=` with a secret key: its value, up to the next `&name=` or the end, is `****`.
    private static func redactedQuery(_ input: [UInt8], from start: Int) -> [UInt8] {
        var bytes = input
        var at = start
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "?") || bytes[at] == ampersand else { at += 1; continue }
            var keyEnd = at + 1
            while keyEnd < bytes.count, isKeyByte(bytes[keyEnd]) { keyEnd += 1 }
            let key = String(decoding: bytes[(at + 1)..<keyEnd], as: UTF8.self)
            guard keyEnd < bytes.count, bytes[keyEnd] == equals, secretKeys.contains(key) else { at += 1; continue }
            var valueEnd = keyEnd + 1
            while valueEnd < bytes.count, !isParameterStart(bytes, valueEnd) { valueEnd += 1 }
            bytes.replaceSubrange((keyEnd + 1)..<valueEnd, with: hidden)
            at = keyEnd + 1 + hidden.count
        }
        return bytes
    }

    /// `&name=` starts at `at`.
    private static func isParameterStart(_ bytes: [UInt8], _ at: Int) -> Bool {
        guard bytes[at] == ampersand else { return false }
        var end = at + 1
        while end < bytes.count, isKeyByte(bytes[end]) { end += 1 }
        return end > at + 1 && end < bytes.count && bytes[end] == equals
    }

    /// In `host[:port][,host[:port]…]` (up to the first `/` or `?`), a port that is not all digits is `****`.
    private static func redactedPorts(_ input: [UInt8], from start: Int) -> [UInt8] {
        var bytes = input
        var at = start
        var inBrackets = false
        while at < bytes.count, bytes[at] != UInt8(ascii: "/"), bytes[at] != UInt8(ascii: "?") {
            switch bytes[at] {
            case UInt8(ascii: "["): inBrackets = true
            case UInt8(ascii: "]"): inBrackets = false
            case UInt8(ascii: ":") where !inBrackets:
                var end = at + 1
                while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: ",")].contains(bytes[end]) { end += 1 }
                let port = bytes[(at + 1)..<end]
                if !port.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                    bytes.replaceSubrange((at + 1)..<end, with: hidden)
                    at += hidden.count
                }
            default: break
            }
            at += 1
        }
        return bytes
    }

    /// `key = value` pairs, a value bare (backslash escapes) or in single quotes (`\'`, `\\`): a
    /// secret key's value is `****`; from a place the grammar does not allow on, the rest is `****`.
    static func redactedKeywords(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var at = 0
        func skipSpace() { while at < bytes.count, bytes[at] == space || bytes[at] == tab || bytes[at] == 10 || bytes[at] == 13 { at += 1 } }
        while true {
            let pairStart = at
            skipSpace()
            if at == bytes.count { output += bytes[pairStart..<at]; break }
            let keyStart = at
            while at < bytes.count, isKeyByte(bytes[at]) { at += 1 }
            let key = String(decoding: bytes[keyStart..<at], as: UTF8.self)
            skipSpace()
            guard at > keyStart, at < bytes.count, bytes[at] == equals else { output += bytes[pairStart..<keyStart] + hidden; break }
            at += 1
            skipSpace()
            let valueStart = at
            var closed = true
            if at < bytes.count, bytes[at] == quote {
                closed = false
                at += 1
                while at < bytes.count {
                    if bytes[at] == backslash { at += 2; continue }
                    if bytes[at] == quote { at += 1; closed = true; break }
                    at += 1
                }
            } else {
                while at < bytes.count, ![space, tab, 10, 13].contains(bytes[at]) { at += bytes[at] == backslash ? 2 : 1 }
            }
            at = min(at, bytes.count)
            output += bytes[pairStart..<valueStart]
            guard closed else { output += hidden; break }
            output += secretKeys.contains(key) ? hidden : Array(bytes[valueStart..<at])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
