/// The current tag delimiters, as UTF-8 bytes.
struct MustacheDelimiters: Sendable, Equatable {
    var open: [UInt8]
    var close: [UInt8]

    static let standard = MustacheDelimiters(open: Array("{{".utf8), close: Array("}}".utf8))
}

/// One tag found in the source, with the byte range it occupies.
///
/// `trimStart..<trimEnd` widens `start..<end` to the whole line when the tag stands alone,
/// so the text between two tags is simply `bytes[previous.trimEnd..<next.trimStart]`.
struct MustacheTag: Sendable {
    enum Kind: Sendable, Equatable {
        case variable, unescaped, section, inverted, close, comment
        case partial, parent, block, setDelimiter

        var canStandAlone: Bool {
            switch self {
            case .variable, .unescaped: return false
            default: return true
            }
        }

        var opensSection: Bool {
            switch self {
            case .section, .inverted, .parent, .block: return true
            default: return false
            }
        }
    }

    var kind: Kind
    var content: String
    var start: Int
    var end: Int
    var trimStart: Int
    var trimEnd: Int
    /// Delimiters in effect when the tag was read.
    var delimiters: MustacheDelimiters
    /// Whether the tag (alone or paired with a neighbour) owns its whole line.
    var standalone = false
    /// The whitespace before a standalone tag: indentation for partials, parents and blocks.
    var indent: String?
    /// For a close tag, the kind of tag it closes (filled in before standalone rules run).
    var closes: Kind?
}

/// Splits source bytes into tags; knows line/column arithmetic for error messages.
struct MustacheScanner {
    let bytes: [UInt8]
    let templateName: String
    /// Where `bytes` sit in the original source, when they are a dedented block body.
    var lineOffset = 0
    var columnOffset = 0

    private static let newline: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D

    func scan(delimiters initial: MustacheDelimiters) throws -> [MustacheTag] {
        var tags: [MustacheTag] = []
        var delimiters = initial
        var cursor = 0
        while let start = find(delimiters.open, from: cursor) {
            var contentStart = start + delimiters.open.count
            guard contentStart < bytes.count else {
                throw error(.unclosedTag(expected: String(decoding: delimiters.close, as: UTF8.self)), at: start)
            }
            let (kind, terminator) = classify(bytes[contentStart], delimiters: delimiters)
            if kind != .variable { contentStart += 1 }
            guard let contentEnd = find(terminator, from: contentStart) else {
                throw error(.unclosedTag(expected: String(decoding: terminator, as: UTF8.self)), at: start)
            }
            let end = contentEnd + terminator.count
            let raw = String(decoding: bytes[contentStart..<contentEnd], as: UTF8.self)
            let content = raw.trimmingMustacheWhitespace()
            let tag = MustacheTag(
                kind: kind, content: content, start: start, end: end,
                trimStart: start, trimEnd: end, delimiters: delimiters
            )
            switch kind {
            case .comment:
                break
            case .setDelimiter:
                guard let next = Self.parseDelimiters(content) else {
                    throw error(.badSetDelimiter(raw), at: start)
                }
                delimiters = next
            default:
                let namesTemplate = kind == .partial || kind == .parent
                guard !content.isEmpty, !(namesTemplate && content == "*") else {
                    throw error(.emptyTagName, at: start)
                }
            }
            tags.append(tag)
            cursor = end
        }
        return tags
    }

    /// The tag kind from the byte after the opening delimiter, and what ends the tag.
    private func classify(_ sigil: UInt8, delimiters: MustacheDelimiters) -> (MustacheTag.Kind, [UInt8]) {
        switch sigil {
        case UInt8(ascii: "{"): return (.unescaped, [UInt8(ascii: "}")] + delimiters.close)
        case UInt8(ascii: "&"): return (.unescaped, delimiters.close)
        case UInt8(ascii: "#"): return (.section, delimiters.close)
        case UInt8(ascii: "^"): return (.inverted, delimiters.close)
        case UInt8(ascii: "/"): return (.close, delimiters.close)
        case UInt8(ascii: "!"): return (.comment, delimiters.close)
        case UInt8(ascii: ">"): return (.partial, delimiters.close)
        case UInt8(ascii: "<"): return (.parent, delimiters.close)
        case UInt8(ascii: "$"): return (.block, delimiters.close)
        case UInt8(ascii: "="): return (.setDelimiter, [UInt8(ascii: "=")] + delimiters.close)
        default: return (.variable, delimiters.close)
        }
    }

    /// `<% %>` → two delimiters; nil unless there are exactly two, free of `=`.
    private static func parseDelimiters(_ content: String) -> MustacheDelimiters? {
        let parts = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r\n" })
        guard parts.count == 2, !parts.contains(where: { $0.contains("=") }) else { return nil }
        return MustacheDelimiters(open: Array(parts[0].utf8), close: Array(parts[1].utf8))
    }

    func find(_ needle: [UInt8], from offset: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = offset
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first {
                var matched = 1
                while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    // MARK: Lines

    func lineStart(before offset: Int) -> Int {
        var index = offset
        while index > 0, bytes[index - 1] != Self.newline { index -= 1 }
        return index
    }

    /// If only spaces and tabs precede `offset` back to the line start, that start. Walks back
    /// over the blanks only: finding the line start first made a long line of tags quadratic
    /// (8,000 tags on one line: seconds).
    func blankLineStart(before offset: Int) -> Int? {
        var index = offset
        while index > 0, bytes[index - 1] == 0x20 || bytes[index - 1] == 0x09 { index -= 1 }
        return index == 0 || bytes[index - 1] == Self.newline ? index : nil
    }

    /// If only spaces and tabs follow `offset` up to the line break (or the end), the offset
    /// of the break (`newline`) and of the next line (`next`).
    func blankLineEnd(after offset: Int) -> (newline: Int, next: Int)? {
        var index = offset
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        if index == bytes.count { return (index, index) }
        if bytes[index] == Self.newline { return (index, index + 1) }
        if bytes[index] == Self.carriageReturn, index + 1 < bytes.count, bytes[index + 1] == Self.newline {
            return (index, index + 2)
        }
        return nil
    }

    func position(of offset: Int) -> MustachePosition {
        var line = 1
        for byte in bytes[..<offset] where byte == Self.newline { line += 1 }
        let start = lineStart(before: offset)
        let column = String(decoding: bytes[start..<offset], as: UTF8.self).count + 1
        return MustachePosition(templateName: templateName, line: line + lineOffset, column: column + columnOffset)
    }

    /// Where the last `position(of:after:)` stopped.
    struct PositionCursor {
        var offset = 0, line = 1, column = 1
    }

    /// `position(of:)` for offsets met in increasing order: only the bytes since the cursor are
    /// counted, so a template with thousands of partials is not read once per partial.
    func position(of offset: Int, after cursor: inout PositionCursor) -> MustachePosition {
        guard offset >= cursor.offset else { return position(of: offset) }
        let delta = bytes[cursor.offset..<offset]
        if let lastNewline = delta.lastIndex(of: Self.newline) {
            cursor.line += delta.reduce(0) { $0 + ($1 == Self.newline ? 1 : 0) }
            cursor.column = String(decoding: bytes[(lastNewline + 1)..<offset], as: UTF8.self).count + 1
        } else {
            cursor.column += String(decoding: delta, as: UTF8.self).count
        }
        cursor.offset = offset
        return MustachePosition(templateName: templateName, line: cursor.line + lineOffset, column: cursor.column + columnOffset)
    }

    func error(_ kind: MustacheError.Kind, at offset: Int) -> MustacheError {
        let position = position(of: offset)
        return MustacheError(templateName: templateName, line: position.line, column: position.column, kind: kind)
    }
}
