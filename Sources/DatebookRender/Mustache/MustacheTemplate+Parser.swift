/// Builds the node tree from scanned tags, checking that sections nest properly.
struct MustacheParser {
    private let scanner: MustacheScanner
    private let delimiters: MustacheDelimiters
    private var tags: [MustacheTag] = []
    private var index = 0
    /// Where the next text node starts, in bytes.
    private var cursor = 0

    init(bytes: [UInt8], templateName: String, delimiters: MustacheDelimiters = .standard) {
        self.scanner = MustacheScanner(bytes: bytes, templateName: templateName)
        self.delimiters = delimiters
    }

    private init(scanner: MustacheScanner, delimiters: MustacheDelimiters) {
        self.scanner = scanner
        self.delimiters = delimiters
    }

    mutating func parseTemplate() throws -> [MustacheNode] {
        tags = try scanner.scan(delimiters: delimiters)
        scanner.markStandalone(&tags)
        index = 0
        cursor = 0
        return try parseNodes(inside: nil).nodes
    }

    /// Sections nested deeper than this are refused: each level is a stack frame here and in the renderer.
    static let maximumNesting = 100
    private var nesting = 0
    private var positions = MustacheScanner.PositionCursor()

    /// Parses until the close tag of `open` (or the end of the template when `open` is nil).
    private mutating func parseNodes(inside open: MustacheTag?) throws -> (nodes: [MustacheNode], close: MustacheTag?) {
        if let open {
            guard nesting < Self.maximumNesting else {
                throw scanner.error(.nestedTooDeep(open.content, limit: Self.maximumNesting), at: open.start)
            }
            nesting += 1
        }
        defer { if open != nil { nesting -= 1 } }
        var nodes: [MustacheNode] = []
        while index < tags.count {
            let tag = tags[index]
            index += 1
            appendText(to: &nodes, upTo: tag.trimStart)
            cursor = max(cursor, tag.trimEnd)
            switch tag.kind {
            case .comment, .setDelimiter:
                continue
            case .variable:
                nodes.append(.variable(MustacheName(tag.content), escaped: true))
            case .unescaped:
                nodes.append(.variable(MustacheName(tag.content), escaped: false))
            case .section:
                let children = try parseNodes(inside: tag).nodes
                nodes.append(.section(MustacheName(tag.content), children))
            case .inverted:
                let children = try parseNodes(inside: tag).nodes
                nodes.append(.invertedSection(MustacheName(tag.content), children))
            case .partial:
                nodes.append(.partial(MustachePartialName(tag.content), indent: tag.indent, scanner.position(of: tag.start, after: &positions)))
            case .parent:
                let position = scanner.position(of: tag.start, after: &positions)
                let children = try parseNodes(inside: tag).nodes
                nodes.append(.parent(
                    MustachePartialName(tag.content), indent: tag.indent,
                    blocks: Self.blocks(in: children), position
                ))
            case .block:
                let (children, close) = try parseNodes(inside: tag)
                nodes.append(blockNode(open: tag, close: close, children: children))
            case .close:
                guard let open else {
                    throw scanner.error(.unexpectedClose(tag.content), at: tag.start)
                }
                guard open.content == tag.content else {
                    throw scanner.error(.mismatchedClose(open: open.content, closed: tag.content), at: tag.start)
                }
                return (nodes, tag)
            }
        }
        if let open {
            throw scanner.error(.unclosedSection(open.content), at: open.start)
        }
        appendText(to: &nodes, upTo: scanner.bytes.count)
        return (nodes, nil)
    }

    private mutating func appendText(to nodes: inout [MustacheNode], upTo end: Int) {
        guard cursor < end else { return }
        nodes.append(.text(String(decoding: scanner.bytes[cursor..<end], as: UTF8.self)))
        cursor = end
    }

    /// The `{{$name}}` arguments of a parent; other content inside a parent is ignored.
    private static func blocks(in children: [MustacheNode]) -> [String: [MustacheNode]] {
        var blocks: [String: [MustacheNode]] = [:]
        for case .block(let name, _, let content) in children where blocks[name] == nil {
            blocks[name] = content
        }
        return blocks
    }

    /// A standalone block is "reindented": the indentation common to its lines is removed
    /// here and the expansion site's indentation is added when rendering.
    private func blockNode(open: MustacheTag, close: MustacheTag?, children: [MustacheNode]) -> MustacheNode {
        guard open.standalone, let close, open.trimEnd <= close.trimStart else {
            return .block(open.content, indent: nil, children)
        }
        let inside = Array(scanner.bytes[open.trimEnd..<close.trimStart])
        let margin = Self.commonMargin(of: inside)
        guard !margin.isEmpty else {
            return .block(open.content, indent: open.indent ?? "", children)
        }
        let origin = scanner.position(of: open.trimEnd)
        var bodyScanner = MustacheScanner(bytes: Self.dedent(inside, by: margin.count), templateName: scanner.templateName)
        bodyScanner.lineOffset = origin.line - 1
        bodyScanner.columnOffset = origin.column - 1 + margin.count
        var parser = MustacheParser(scanner: bodyScanner, delimiters: open.delimiters)
        // The dedented text differs from checked source only in leading whitespace, so
        // this cannot fail; keep the undedented children if it somehow does.
        let dedented = (try? parser.parseTemplate()) ?? children
        return .block(open.content, indent: String(decoding: margin, as: UTF8.self), dedented)
    }

    private static func isIndentByte(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The leading spaces and tabs shared by all non-blank lines.
    static func commonMargin(of text: [UInt8]) -> [UInt8] {
        var margin: [UInt8]?
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let indent = line.prefix(while: isIndentByte)
            guard indent.count < line.count, !(indent.count == line.count - 1 && line.last == 0x0D) else { continue }
            guard let current = margin else {
                margin = Array(indent)
                continue
            }
            let shared = zip(current, indent).prefix(while: { $0 == $1 }).count
            margin = Array(current.prefix(shared))
        }
        return margin ?? []
    }

    static func dedent(_ text: [UInt8], by width: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            if number > 0 { result.append(0x0A) }
            if line.allSatisfy(isIndentByte) { continue }
            result.append(contentsOf: line.dropFirst(min(width, line.prefix(while: isIndentByte).count)))
        }
        return result
    }
}
