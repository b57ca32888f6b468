import Synchronization

/// A set of named templates that render each other as partials and parents.
///
/// Built-in templates are parsed once, in `init`. Other names go through `lookup`, which is
/// asked first, so a caller can layer user overrides over the built-ins; whatever it returns
/// is parsed once and cached for the life of the library (copies share the cache).
public struct MustacheLibrary: Sendable {
    /// Returns the source of a template by name, or nil if it has none.
    public typealias Lookup = @Sendable (String) throws -> String?

    public var options: MustacheRenderOptions
    private let builtIns: [String: MustacheTemplate]
    private let lookup: Lookup?
    private let cache = MustacheTemplateCache()

    /// Parses every template in `templates` (name → source); throws the first `MustacheError`.
    public init(
        templates: [String: String] = [:],
        missingPartial: MustacheRenderOptions.MissingPartial = .error,
        escape: @escaping @Sendable (String) -> String = MustacheEscaper.html,
        lookup: Lookup? = nil
    ) throws {
        var parsed: [String: MustacheTemplate] = [:]
        for (name, source) in templates.sorted(by: { $0.key < $1.key }) {
            parsed[name] = try MustacheTemplate(source: source, name: name)
        }
        self.builtIns = parsed
        self.lookup = lookup
        self.options = MustacheRenderOptions(missingPartial: missingPartial, escape: escape)
    }

    /// The template called `name`: from `lookup` first, then the built-ins; nil if neither has it.
    public func template(named name: String) throws -> MustacheTemplate? {
        guard let lookup else { return builtIns[name] }
        if let cached = cache.template(named: name) { return cached }
        let template: MustacheTemplate
        if let source = try lookup(name) {
            template = try MustacheTemplate(source: source, name: name)
        } else if let builtIn = builtIns[name] {
            template = builtIn
        } else {
            return nil
        }
        cache.store(template)
        return template
    }

    /// Renders the template called `name` with `context`.
    ///
    /// - Parameter escape: overrides the library's escaper for this render, e.g.
    ///   `MustacheEscaper.none` for the plain-text part of an e-mail.
    public func render(
        name: String,
        context: MustacheValue,
        escape: (@Sendable (String) -> String)? = nil
    ) throws -> String {
        guard let template = try template(named: name) else {
            throw MustacheError(templateName: "", line: 0, column: 0, kind: .missingTemplate(name))
        }
        var renderOptions = options
        if let escape { renderOptions.escape = escape }
        return try template.render(context, options: renderOptions) { try self.template(named: $0) }
    }
}

/// Templates fetched through a library's lookup, shared by copies of the library.
private final class MustacheTemplateCache: Sendable {
    private let templates = Mutex<[String: MustacheTemplate]>([:])

    func template(named name: String) -> MustacheTemplate? {
        templates.withLock { $0[name] }
    }

    func store(_ template: MustacheTemplate) {
        templates.withLock { $0[template.name] = template }
    }
}
