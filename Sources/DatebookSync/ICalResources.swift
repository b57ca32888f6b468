import Foundation

/// Line-level work on the iCalendar text of CalDAV resources (one VCALENDAR per resource).
public enum ICalResources {
    /// One VCALENDAR holding the components of every text (their VEVENTs, VTODOs and VTIMEZONEs),
    /// so the iCalendar room reads a calendar's resources as one file: VTODOs then find their
    /// RELATED-TO event in another resource, and lone ones share one "Tasks" event.
    public static func combine(_ texts: [String]) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(texts.reduce(128) { $0 + $1.utf8.count })
        out += "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//CalDAV//EN\r\n".utf8
        for text in texts {
            var depth = 0
            var keeping = false
            eachLine(of: text) { line in
                if line[line.startIndex] == 0x20 || line[line.startIndex] == 0x09 {
                    if keeping { append(line, to: &out) }
                    return true
                }
                if hasPrefix(line, "BEGIN:") { depth += 1 }
                keeping = depth >= 2
                if hasPrefix(line, "END:") { depth -= 1 }
                if keeping { append(line, to: &out) }
                return true
            }
        }
        out += "END:VCALENDAR\r\n".utf8
        return Data(out)
    }

    /// The UID of the first component that has one (unfolded), or nil.
    public static func uid(of text: String) -> String? {
        var found: [UInt8]?
        eachLine(of: text) { line in
            let start = line.startIndex
            if found != nil {
                guard line[start] == 0x20 || line[start] == 0x09 else { return false }
                found? += line.dropFirst()
            } else if hasPrefix(line, "UID:") {
                found = Array(line.dropFirst(4))
            } else if hasPrefix(line, "UID;"), let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                found = Array(line[(colon + 1)...])
            }
            return true
        }
        return found.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with each non-empty line of `text` (its UTF-8 bytes, without the CR LF or LF
    /// that ends it) until it returns false: byte work, where `lines` compares Characters.
    static func eachLine(of text: String, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Bool) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                var stop = start
                while stop < bytes.count, bytes[stop] != 0x0A { stop += 1 }
                var end = stop
                if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                if end > start, !body(bytes[start..<end]) { return }
                start = stop + 1
            }
        }
    }

    /// `line` and a CR LF at the end of `out`.
    static func append(_ line: Slice<UnsafeBufferPointer<UInt8>>, to out: inout [UInt8]) {
        out.append(contentsOf: line)
        out.append(0x0D)
        out.append(0x0A)
    }

    /// Whether `line` starts with `prefix` (ASCII), letters in either case.
    static func hasPrefix(_ line: Slice<UnsafeBufferPointer<UInt8>>, _ prefix: StaticString) -> Bool {
        guard line.count >= prefix.utf8CodeUnitCount else { return false }
        var index = line.startIndex
        for expected in UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount) {
            let byte = line[index]
            let folded = (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
            guard folded == expected else { return false }
            index += 1
        }
        return true
    }

    /// The text's lines without their CR LF (or LF).
    static func lines(_ text: String) -> [Substring] {
        // "\r\n" is one Character in Swift: split on it as well as on a bare "\n".
        text.split(omittingEmptySubsequences: true) { $0 == "\r\n" || $0 == "\n" }
    }
}
