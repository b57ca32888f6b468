/// Walks the node tree once, appending to a single output string.
///
/// Indentation for standalone partials and blocks is applied lazily: after a line break
/// from template text, the current indent is written before the next non-empty output.
/// Interpolated values are never reindented inside, as the spec requires.
struct MustacheRenderer {
    static let maximumDepth = 100
    /// Sections, partials and blocks open at once, across templates (each is a few stack frames).
    static let maximumNesting = 256
    private var nesting = 0

    private(set) var output = ""
    private var stack: [MustacheValue]
    private var indent = ""
    private var atLineStart = true
    /// Block arguments of the enclosing parents; the outermost definition wins.
    private var blockArguments: [String: [MustacheNode]] = [:]
    private var templateNames: [String]
    private let options: MustacheRenderOptions
    private let resolve: (String) throws -> MustacheTemplate?

    init(
        root: MustacheTemplate,
        context: MustacheValue,
        options: MustacheRenderOptions,
        resolve: @escaping (String) throws -> MustacheTemplate?
    ) {
        self.stack = [context]
        self.templateNames = [root.name]
        self.options = options
        self.resolve = resolve
        output.reserveCapacity(4096)
    }

    mutating func render(_ nodes: [MustacheNode]) throws {
        guard nesting < Self.maximumNesting else {
            let name = templateNames.last ?? ""
            throw MustacheError(templateName: name, line: 0, column: 0, kind: .nestedTooDeep(name, limit: Self.maximumNesting))
        }
        nesting += 1
        defer { nesting -= 1 }
        for node in nodes {
            switch node {
            case .text(let text):
                writeTemplateText(text)
            case .variable(let name, let escaped):
                guard let value = lookup(name) else { continue }
                let text = value.renderedText
                writeValue(escaped ? options.escape(text) : text)
            case .section(let name, let children):
                try renderSection(lookup(name), children)
            case .invertedSection(let name, let children):
                if !(lookup(name)?.isTruthy ?? false) {
                    try render(children)
                }
            case .partial(let name, let partialIndent, let position):
                guard let template = try template(for: name, at: position) else { continue }
                try renderIncluded(template, indent: partialIndent)
            case .parent(let name, let parentIndent, let blocks, let position):
                guard let template = try template(for: name, at: position) else { continue }
                let saved = blockArguments
                blockArguments = blocks.merging(saved) { _, outer in outer }
                defer { blockArguments = saved }
                try renderIncluded(template, indent: parentIndent)
            case .block(let name, let blockIndent, let defaultContent):
                let content = blockArguments[name] ?? defaultContent
                try withIndent(blockIndent) { try $0.render(content) }
            }
        }
    }

    private mutating func renderSection(_ value: MustacheValue?, _ children: [MustacheNode]) throws {
        guard let value, value.isTruthy else { return }
        if case .array(let items) = value {
            for item in items {
                stack.append(item)
                try render(children)
                stack.removeLast()
            }
        } else {
            stack.append(value)
            try render(children)
            stack.removeLast()
        }
    }

    private mutating func renderIncluded(_ template: MustacheTemplate, indent extra: String?) throws {
        guard templateNames.count <= Self.maximumDepth else {
            throw MustacheError(
                templateName: templateNames.last ?? template.name, line: 0, column: 0,
                kind: .partialsTooDeep(template.name, limit: Self.maximumDepth)
            )
        }
        templateNames.append(template.name)
        defer { templateNames.removeLast() }
        try withIndent(extra) { try $0.render(template.nodes) }
    }

    private mutating func withIndent(_ extra: String?, _ body: (inout MustacheRenderer) throws -> Void) throws {
        guard let extra else {
            try body(&self)
            return
        }
        let saved = indent
        indent += extra
        atLineStart = true
        defer { indent = saved }
        try body(&self)
    }

    /// The partial or parent a tag names; nil when it should render as nothing.
    private func template(for name: MustachePartialName, at position: MustachePosition) throws -> MustacheTemplate? {
        let resolvedName: String
        switch name {
        case .fixed(let fixed):
            resolvedName = fixed
        case .dynamic(let dottedName):
            // A failed dynamic lookup renders nothing, as the spec says, even in `.error` mode.
            switch lookup(dottedName) {
            case .string(let text)?: resolvedName = text
            case .int(let number)?: resolvedName = String(number)
            default: return nil
            }
        }
        if let template = try resolve(resolvedName) { return template }
        switch options.missingPartial {
        case .empty:
            return nil
        case .error:
            throw MustacheError(
                templateName: position.templateName, line: position.line, column: position.column,
                kind: .missingTemplate(resolvedName)
            )
        }
    }

    /// Spec lookup: the first name part is searched down the context stack; the rest
    /// must resolve inside the value found there, or the whole name is missing.
    private func lookup(_ name: MustacheName) -> MustacheValue? {
        guard let first = name.components.first else { return stack.last }
        var found: MustacheValue?
        for frame in stack.reversed() {
            if case .object(let fields) = frame, let value = fields[first] {
                found = value
                break
            }
        }
        guard var current = found else { return nil }
        for component in name.components.dropFirst() {
            guard case .object(let fields) = current, let value = fields[component] else { return nil }
            current = value
        }
        return current
    }

    // MARK: Output

    private mutating func writeValue(_ text: String) {
        guard !text.isEmpty else { return }
        if atLineStart, !indent.isEmpty { output += indent }
        atLineStart = false
        output += text
    }

    private mutating func writeTemplateText(_ text: String) {
        guard !indent.isEmpty else {
            output += text
            atLineStart = text.utf8.last == 0x0A
            return
        }
        let utf8 = text.utf8
        var lineStart = utf8.startIndex
        while lineStart < utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: 0x0A) ?? utf8.endIndex
            if lineStart < lineEnd {
                let isBareCarriageReturn = utf8[lineStart] == 0x0D && utf8.index(after: lineStart) == lineEnd
                if atLineStart, !isBareCarriageReturn { output += indent }
                atLineStart = false
                output += text[lineStart..<lineEnd]
            }
            guard lineEnd < utf8.endIndex else { break }
            output += "\n"
            atLineStart = true
            lineStart = utf8.index(after: lineEnd)
        }
    }
}
