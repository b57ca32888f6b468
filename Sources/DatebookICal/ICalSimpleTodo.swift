import Foundation

/// Reads the common, plain VTODO (UID, SUMMARY, STATUS, RELATED-TO, PRIORITY, DTSTAMP; no parameters, no
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

    private static let names = ICalBytes.Words(Name.allCases.map { ($0.rawValue, $0) })
    private static let vtodo = Array("VTODO".utf8)

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, chunk: ICalChunk) -> ICalTodo? {
        var uid: String?, summary: String?, status: String?, related: String?, priority = 0
        var lineStart = chunk.range.lowerBound
        let end = chunk.range.upperBound
        while lineStart < end {
            let lineEnd = ICalBytes.first(0x0A, in: bytes, from: lineStart, to: end)
            var contentEnd = lineEnd
            if contentEnd > lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { lineStart = lineEnd + 1 }
            guard contentEnd > lineStart else { continue }
            let first = bytes[lineStart]
            if first == 0x20 || first == 0x09 { return nil }  // folded: let libical unfold
            let colon = ICalBytes.first(UInt8(ascii: ":"), in: bytes, from: lineStart, to: contentEnd)
            // No value, parameters (`;`) or any other property: libical's path.
            guard colon < contentEnd,
                  let name = names.match(UnsafeBufferPointer(rebasing: bytes[lineStart..<colon])) else { return nil }
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<contentEnd])
            switch name {
            case .begin, .end: if !ICalBytes.equalsIgnoringCase(valueBytes, vtodo) { return nil }
            case .uid, .summary, .status, .relatedTo:
                guard let value = ICalBytes.text(valueBytes) else { return nil }
                // An escaped UID or RELATED-TO keeps libical's exact unescaping (and its warnings).
                let escaped = ICalBytes.first(UInt8(ascii: "\\"), in: valueBytes, from: 0, to: valueBytes.count) < valueBytes.count
                switch name {
                case .uid: if escaped { return nil } else { uid = value }
                case .summary: summary = escaped ? ICalBytes.unescape(value) : value
                case .status: status = ICalTaskStatus.capitals(value)
                default: if escaped { return nil } else { related = value }
                }
            case .priority:
                // libical's reading of anything but plain digits is left to libical.
                guard let text = ICalBytes.text(valueBytes), !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                      let value = Int(text) else { return nil }
                priority = ICalTodo.priority(value)
            default:
                // Read past, but a value that is not UTF-8 goes to libical like everything odd.
                guard ICalBytes.isUTF8(valueBytes) else { return nil }
            }
        }
        // Missing values keep libical's exact behaviour (and its warnings).
        guard let uid, !uid.isEmpty,
              related.map({ !$0.isEmpty }) ?? true,
              summary.map({ !$0.isEmpty }) ?? true, status.map({ !$0.isEmpty }) ?? true else { return nil }
        return ICalTodo(uid: uid, summary: summary, status: ICalTaskStatus(icalStatus: status), rawStatus: status,
                        relatedTo: related, due: nil, priority: priority, sourceLine: chunk.line)
    }
}
