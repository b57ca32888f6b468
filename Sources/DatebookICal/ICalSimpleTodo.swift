import Foundation

/// Reads the common, plain VTODO (UID, SUMMARY, STATUS, RELATED-TO, DTSTAMP; no parameters, no
/// folded lines, no nested components) without libical.
///
/// Exported task lists are mostly such VTODOs, and handing each to libical's parser costs about a
/// quarter of a 100k-event import. Anything else returns nil and takes the libical path, so the
/// result (and every warning) is the same either way; `ICalSimpleTodoTests` checks that.
enum ICalSimpleTodo {
    /// The properties a plain VTODO may have; the last ones are read past.
    private enum Name: String, CaseIterable {
        case begin = "BEGIN", end = "END", uid = "UID", summary = "SUMMARY", status = "STATUS", relatedTo = "RELATED-TO"
        case dtstamp = "DTSTAMP", created = "CREATED", lastModified = "LAST-MODIFIED", sequence = "SEQUENCE", priority = "PRIORITY"
    }

    private static let names: [(bytes: [UInt8], name: Name)] = Name.allCases.map { (Array($0.rawValue.utf8), $0) }
    private static let vtodo = Array("VTODO".utf8)

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, chunk: ICalChunk) -> ICalTodo? {
        var uid: String?, summary: String?, status: String?, related: String?
        var lineStart = chunk.range.lowerBound
        let end = chunk.range.upperBound
        guard let base = bytes.baseAddress else { return nil }
        while lineStart < end {
            let lineEnd = memchr(base + lineStart, 0x0A, end - lineStart).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? end
            var contentEnd = lineEnd
            if contentEnd > lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { lineStart = lineEnd + 1 }
            guard contentEnd > lineStart else { continue }
            let first = bytes[lineStart]
            if first == 0x20 || first == 0x09 { return nil }  // folded: let libical unfold
            guard let colon = memchr(base + lineStart, Int32(UInt8(ascii: ":")), contentEnd - lineStart)
                .map({ UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }) else { return nil }
            // Parameters (`;`) or any other property: libical's path.
            guard let name = name(UnsafeBufferPointer(rebasing: bytes[lineStart..<colon])) else { return nil }
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<contentEnd])
            switch name {
            case .begin, .end: if !equalsIgnoringCase(valueBytes, vtodo) { return nil }
            case .uid, .summary, .status, .relatedTo:
                guard let value = text(valueBytes) else { return nil }
                // An escaped UID or RELATED-TO keeps libical's exact unescaping (and its warnings).
                let escaped = valueBytes.contains(UInt8(ascii: "\\"))
                switch name {
                case .uid: if escaped { return nil } else { uid = value }
                case .summary: summary = escaped ? unescape(value) : value
                case .status: status = value.uppercased()
                default: if escaped { return nil } else { related = value }
                }
            default:
                // Read past, but a value that is not UTF-8 goes to libical like everything odd.
                guard valueBytes.allSatisfy({ $0 < 0x80 }) || String(validating: valueBytes, as: UTF8.self) != nil else { return nil }
            }
        }
        // Missing values keep libical's exact behaviour (and its warnings).
        guard let uid, !uid.isEmpty,
              related.map({ !$0.isEmpty }) ?? true,
              summary.map({ !$0.isEmpty }) ?? true, status.map({ !$0.isEmpty }) ?? true else { return nil }
        return ICalTodo(uid: uid, summary: summary, status: ICalTaskStatus(icalStatus: status), rawStatus: status,
                        relatedTo: related, due: nil, sourceLine: chunk.line)
    }

    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        names.first { $0.bytes.count == bytes.count && equalsIgnoringCase(bytes, $0.bytes) }?.name
    }

    /// ASCII case-insensitive equality with `upper`, an upper-case ASCII word (also used by
    /// ``ICalSimpleEvent``).
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ upper: [UInt8]) -> Bool {
        bytes.count == upper.count && zip(bytes, upper).allSatisfy { ($0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0) == $1 }
    }

    /// The bytes as a String, or nil when they are not UTF-8; ASCII (nearly every value) skips the
    /// slower validating initialiser.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        bytes.allSatisfy({ $0 < 0x80 }) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// TEXT unescaping (RFC 5545 3.3.11).
    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n", "N": out.append("\n")
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        if escaped { out.append("\\") }
        return out
    }
}
