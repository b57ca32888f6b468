/// A parsed Mustache template: parse once, render many times.
///
/// Supports the whole Mustache spec except lambdas, plus template inheritance
/// (`{{<parent}}`, `{{$block}}`) and dynamic partial names (`{{>*name}}`).
public struct MustacheTemplate: Sendable {
    /// The name used in error messages and for partial lookups (`digest.html.mustache`).
    public let name: String
    let nodes: [MustacheNode]

    /// Parses `source`; throws a `MustacheError` that points at the offending tag.
    public init(source: String, name: String = "template") throws {
        self.name = name
        var parser = MustacheParser(bytes: Array(source.utf8), templateName: name)
        self.nodes = try parser.parseTemplate()
    }

    init(name: String, nodes: [MustacheNode]) {
        self.name = name
        self.nodes = nodes
    }

    /// Renders against `value`, taking partials and parents from `partials`.
    ///
    /// A name missing from `partials` is handled by `options.missingPartial`.
    public func render(
        _ value: MustacheValue,
        partials: [String: MustacheTemplate] = [:],
        options: MustacheRenderOptions = MustacheRenderOptions()
    ) throws -> String {
        try render(value, options: options) { partials[$0] }
    }

    func render(
        _ value: MustacheValue,
        options: MustacheRenderOptions,
        resolve: @escaping (String) throws -> MustacheTemplate?
    ) throws -> String {
        var renderer = MustacheRenderer(
            root: self, context: value, options: options, resolve: resolve
        )
        try renderer.render(nodes)
        return renderer.output
    }
}

/// How a render treats escaping and missing partials.
public struct MustacheRenderOptions: Sendable {
    /// What `{{>name}}` or `{{<name}}` does when no template has that name.
    public enum MissingPartial: Sendable, Equatable {
        /// Render nothing, as the Mustache spec says.
        case empty
        /// Throw `MustacheError.Kind.missingTemplate`, so typos show up.
        case error
    }

    public var missingPartial: MissingPartial
    /// Applied to `{{name}}` output; `{{{name}}}` and `{{&name}}` bypass it.
    public var escape: @Sendable (String) -> String

    public init(
        missingPartial: MissingPartial = .error,
        escape: @escaping @Sendable (String) -> String = MustacheEscaper.html
    ) {
        self.missingPartial = missingPartial
        self.escape = escape
    }
}

/// A dotted name such as `event.title`; no components means the implicit iterator `.`.
struct MustacheName: Sendable, Equatable {
    let components: [String]

    init(_ text: String) {
        components = text == "." ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

/// Where a tag starts, for render-time errors.
struct MustachePosition: Sendable, Equatable {
    let templateName: String
    let line: Int
    let column: Int
}

/// A partial or parent name, fixed in the template or read from the context (`*name`).
enum MustachePartialName: Sendable {
    case fixed(String)
    case dynamic(MustacheName)

    init(_ text: String) {
        if text.hasPrefix("*") {
            let rest = text.dropFirst().trimmingMustacheWhitespace()
            self = .dynamic(MustacheName(rest))
        } else {
            self = .fixed(text)
        }
    }
}

/// The parsed tree; standalone lines are already removed from the text.
indirect enum MustacheNode: Sendable {
    case text(String)
    case variable(MustacheName, escaped: Bool)
    case section(MustacheName, [MustacheNode])
    case invertedSection(MustacheName, [MustacheNode])
    /// `indent` is set only when the tag stands alone on its line.
    case partial(MustachePartialName, indent: String?, MustachePosition)
    case parent(MustachePartialName, indent: String?, blocks: [String: [MustacheNode]], MustachePosition)
    case block(String, indent: String?, [MustacheNode])
}

extension StringProtocol {
    /// Trims spaces, tabs and line breaks, the only whitespace allowed around tag names.
    func trimmingMustacheWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
