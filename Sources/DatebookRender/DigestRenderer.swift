import DatebookCore
import DatebookTemplates
import Foundation

/// The three digest formats, each with its built-in template and its escaping.
public enum DigestFormat: String, Sendable, CaseIterable {
    case text, markdown, html

    /// Accepts the format names and the usual short forms (`txt`, `md`).
    public init(name: String) throws {
        switch name.lowercased() {
        case "text", "txt", "plain": self = .text
        case "markdown", "md": self = .markdown
        case "html": self = .html
        default:
            throw DigestError.unknownFormat(name, suggestion: Suggestion.nearest(to: name, in: Self.allCases.map(\.rawValue)))
        }
    }

    public var templateName: String {
        switch self {
        case .text: "digest.txt.mustache"
        case .markdown: "digest.md.mustache"
        case .html: "digest.html.mustache"
        }
    }

    /// `{{name}}` escaping: none for text, backslashes for Markdown, entities for HTML.
    public var escape: @Sendable (String) -> String {
        switch self {
        case .text: MustacheEscaper.none
        case .markdown: Markdown.escape
        case .html: MustacheEscaper.html
        }
    }

    /// The format a template file is written in, from its name (`x.html.mustache` → html).
    public static func guess(fromTemplate name: String) -> DigestFormat? {
        let base = (name as NSString).lastPathComponent
        if base.contains(".html") { return .html }
        if base.contains(".md") || base.contains(".markdown") { return .markdown }
        if base.contains(".txt") || base.contains(".text") { return .text }
        return nil
    }
}

/// Renders digests from the built-in templates, letting a user's files of the same name in
/// `overrideDirectory` win; partials and parents resolve the same way.
public struct DigestRenderer: Sendable {
    public let overrideDirectory: String?
    let library: MustacheLibrary

    public init(overrideDirectory: String?) throws {
        self.overrideDirectory = overrideDirectory
        let directory = overrideDirectory
        library = try MustacheLibrary(
            templates: Dictionary(BuiltInTemplates.all.map { ($0.name, $0.source) }) { first, _ in first },
            missingPartial: .error,
            lookup: { name in
                guard let directory else { return nil }
                return try TemplateFiles.read(directory + "/" + name)
            }
        )
    }

    /// Where a template comes from, for `datebook templates`.
    public func origin(of name: String) -> String? {
        if let overrideDirectory, FileManager.default.fileExists(atPath: overrideDirectory + "/" + name) {
            return overrideDirectory + "/" + name
        }
        return BuiltInTemplates.source(named: name) == nil ? nil : "built-in"
    }

    /// The source of a template by name, as the digest would use it (override first).
    public func source(of name: String) throws -> String {
        if let overrideDirectory, let text = try TemplateFiles.read(overrideDirectory + "/" + name) {
            return text
        }
        guard let source = BuiltInTemplates.source(named: name) else {
            throw DigestError.unknownTemplate(name, suggestion: Suggestion.nearest(to: name, in: BuiltInTemplates.all.map(\.name)))
        }
        return source
    }

    /// Renders `context` with `template`: nil for the format's built-in, a name (built-in or
    /// override), or a path to a file (anything containing `/`).
    public func render(_ context: DigestContext, format: DigestFormat, template: String? = nil) throws -> String {
        guard let template else {
            return try library.render(name: format.templateName, context: context.value, escape: format.escape)
        }
        if template.contains("/") {
            guard let source = try TemplateFiles.read(template) else {
                throw DigestError.unreadableTemplate(path: template, reason: "no such file")
            }
            let parsed = try MustacheTemplate(source: source, name: template)
            var options = library.options
            options.escape = format.escape
            return try parsed.render(context.value, options: options) { try library.template(named: $0) }
        }
        guard try library.template(named: template) != nil else {
            let names = BuiltInTemplates.all.map(\.name)
            throw DigestError.unknownTemplate(template, suggestion: Suggestion.nearest(to: template, in: names))
        }
        return try library.render(name: template, context: context.value, escape: format.escape)
    }

    /// The Markdown digest rendered to one self-contained HTML document by cmark-gfm.
    public func renderHTMLFromMarkdown(_ context: DigestContext, template: String? = nil) throws -> String {
        let markdown = try render(context, format: .markdown, template: template)
        let body = try Markdown.html(from: markdown)
        return """
        <!DOCTYPE html>
        <html lang="\(MustacheEscaper.html(context.localeTag))">
        <head><meta charset="utf-8"><title>\(MustacheEscaper.html(context.digestTitle))</title></head>
        <body style="font-family: -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1c1c1e; max-width: 40em; margin: 0 auto; padding: 16px;">
        \(body)</body>
        </html>

        """
    }
}

extension DigestContext {
    /// The digest's title in its language (`datebook digest`).
    var digestTitle: String {
        if case .object(let root) = value, case .object(let words)? = root["words"], case .string(let title)? = words["digestTitle"] {
            return title
        }
        return "datebook digest"
    }

    /// `en-US` for the `lang` attribute.
    var localeTag: String {
        if case .object(let root) = value, case .string(let tag)? = root["lang"] { return tag }
        return "en"
    }
}

/// Reading template files, with errors that name the file.
enum TemplateFiles {
    /// The file's text, or nil when there is no such file (a missing override is not an error).
    static func read(_ path: String) throws -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return nil
        }
        guard !isDirectory.boolValue else { throw DigestError.unreadableTemplate(path: path, reason: "is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DigestError.unreadableTemplate(path: path, reason: "permission denied")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DigestError.unreadableTemplate(path: path, reason: "not UTF-8 text")
        }
        return text
    }
}
