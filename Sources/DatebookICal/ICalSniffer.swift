import Foundation

/// Decides whether bytes are iCalendar at all, and if not, says what they look like.
enum ICalSniffer {
    /// Offset of the first byte after a UTF-8 BOM and leading blank lines.
    static func contentStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        return index
    }

    /// Throws `ICalError.notICalendar` unless the content starts with `BEGIN:VCALENDAR`.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, fileName: String) throws {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
        let head = UnsafeBufferPointer(rebasing: bytes[index..<min(bytes.count, index + 512)])
        let text = String(decoding: head, as: UTF8.self)
        if text.uppercased().hasPrefix("BEGIN:VCALENDAR") { return }
        throw ICalError.notICalendar(fileName: fileName, got: describe(head, text: text, total: bytes.count))
    }

    private static func describe(_ head: UnsafeBufferPointer<UInt8>, text: String, total: Int) -> String {
        if head.isEmpty { return total == 0 ? "the file is empty" : "only blank lines" }
        let lower = text.lowercased()
        if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.contains("<html")
            || lower.contains("<head") || lower.contains("<body") {
            return "got an HTML page"
        }
        if lower.hasPrefix("<?xml") || lower.hasPrefix("<") { return "got XML" }
        if lower.hasPrefix("{") || lower.hasPrefix("[") { return "got JSON" }
        let control = head.filter { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }.count
        if control > 0 || !isUTF8(head) { return "got binary data" }
        if lower.contains("begin:vcalendar") { return "BEGIN:VCALENDAR is not at the start" }
        // Never a word of the content: the path may be a file of secrets (`/etc/shadow`).
        return "got plain text without BEGIN:VCALENDAR"
    }
}

extension ICalSniffer {
    /// True when the bytes are valid UTF-8; up to 3 trailing bytes may be cut off
    /// (a multi-byte sequence split by the sniff window is not "binary").
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for cut in 0...min(3, bytes.count) {
            let slice = UnsafeBufferPointer(rebasing: bytes[0..<(bytes.count - cut)])
            if String(validating: slice, as: UTF8.self) != nil { return true }
        }
        return false
    }
}
