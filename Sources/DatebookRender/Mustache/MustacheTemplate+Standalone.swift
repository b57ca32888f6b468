/// The spec's standalone-line rules, applied to scanned tags before the tree is built.
///
/// A tag other than an interpolation that is alone on its line (only spaces and tabs
/// around it) takes the whole line with it, line break included. Inheritance adds pairs
/// that count as standalone together when adjacent on one line: `{{<p}}{{/p}}`,
/// `{{<p}}{{$b}}`, `{{/b}}{{/p}}`, and `{{$b}}{{/b}}` (which keeps its line break).
extension MustacheScanner {
    func markStandalone(_ tags: inout [MustacheTag]) {
        markCloses(&tags)
        var paired = [Bool](repeating: false, count: tags.count)
        if tags.count > 1 {
            for index in 0..<(tags.count - 1) where !paired[index] {
                if markPair(&tags, at: index) {
                    paired[index] = true
                    paired[index + 1] = true
                }
            }
        }
        for index in tags.indices where !paired[index] && tags[index].kind.canStandAlone {
            let tag = tags[index]
            guard let start = blankLineStart(before: tag.start), let lineEnd = blankLineEnd(after: tag.end) else { continue }
            tags[index].trimStart = start
            tags[index].trimEnd = lineEnd.next
            tags[index].standalone = true
            tags[index].indent = String(decoding: bytes[start..<tag.start], as: UTF8.self)
        }
    }

    /// Records on each close tag the kind of tag it closes; mismatches are left for the parser.
    private func markCloses(_ tags: inout [MustacheTag]) {
        var open: [MustacheTag.Kind] = []
        for index in tags.indices {
            let kind = tags[index].kind
            if kind.opensSection {
                open.append(kind)
            } else if kind == .close {
                tags[index].closes = open.popLast()
            }
        }
    }

    private func markPair(_ tags: inout [MustacheTag], at index: Int) -> Bool {
        let first = tags[index]
        let second = tags[index + 1]
        guard first.end == second.start else { return false }
        guard let start = blankLineStart(before: first.start), let lineEnd = blankLineEnd(after: second.end) else { return false }
        let indent = String(decoding: bytes[start..<first.start], as: UTF8.self)

        switch (first.kind, second.kind) {
        case (.parent, .close) where second.closes == .parent:
            tags[index].indent = indent
            tags[index + 1].trimEnd = lineEnd.next
        case (.block, .close) where second.closes == .block:
            tags[index].indent = indent
            tags[index].standalone = true
            tags[index + 1].trimEnd = lineEnd.newline
        case (.parent, .block):
            tags[index].indent = indent
            tags[index + 1].standalone = true
            tags[index + 1].indent = ""
            tags[index + 1].trimEnd = lineEnd.next
        case (.close, .close) where first.closes == .block && second.closes == .parent:
            tags[index + 1].trimEnd = lineEnd.next
        default:
            return false
        }
        tags[index].trimStart = start
        return true
    }
}
