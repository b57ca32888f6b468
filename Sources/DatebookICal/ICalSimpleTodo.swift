import Foundation

/// Reads the common, plain VTODO (UID, SUMMARY, STATUS, RELATED-TO, DTSTAMP; no parameters, no
/// folded lines, no nested components) without libical.
///
/// Exported task lists are mostly such VTODOs, and handing each to libical's parser costs about a
/// quarter of a 100k-event import. Anything else returns nil and takes the libical path, so the
/// result (and every warning) is the same either way; `ICalSimpleTodoTests` checks that.
enum ICalSimpleTodo {
    static let plain: Set<String> = ["UID", "SUMMARY", "STATUS", "RELATED-TO", "DTSTAMP", "CREATED",
                                     "LAST-MODIFIED", "SEQUENCE", "PRIORITY"]

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, chunk: ICalChunk) -> ICalTodo? {
        var uid: String?, summary: String?, status: String?, related: String?
        var lineStart = chunk.range.lowerBound
        let end = chunk.range.upperBound
        while lineStart < end {
            var lineEnd = lineStart
            while lineEnd < end, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            var contentEnd = lineEnd
            if contentEnd > lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { lineStart = lineEnd + 1 }
            guard contentEnd > lineStart else { continue }
            let first = bytes[lineStart]
            if first == 0x20 || first == 0x09 { return nil }  // folded: let libical unfold
            guard let colon = (lineStart..<contentEnd).first(where: { bytes[$0] == UInt8(ascii: ":") }) else { return nil }
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[lineStart..<colon])
            if nameBytes.contains(UInt8(ascii: ";")) { return nil }  // parameters
            let name = String(decoding: nameBytes, as: UTF8.self).uppercased()
            guard let value = String(validating: UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<contentEnd]), as: UTF8.self)
            else { return nil }
            switch name {
            case "BEGIN", "END": if value.uppercased() != "VTODO" { return nil }
            case "UID": uid = value
            case "SUMMARY": summary = unescape(value)
            case "STATUS": status = value.uppercased()
            case "RELATED-TO": related = value
            default: if !plain.contains(name) { return nil }
            }
        }
        // Missing or escaped values keep libical's exact behaviour (and its warnings).
        let backslash = UInt8(ascii: "\\")
        guard let uid, !uid.isEmpty, !uid.utf8.contains(backslash),
              related.map({ !$0.utf8.contains(backslash) && !$0.isEmpty }) ?? true,
              summary.map({ !$0.isEmpty }) ?? true, status.map({ !$0.isEmpty }) ?? true else { return nil }
        return ICalTodo(uid: uid, summary: summary, status: ICalTaskStatus(icalStatus: status), rawStatus: status,
                        relatedTo: related, due: nil, sourceLine: chunk.line)
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
