/// A template that cannot be parsed or rendered, with the place to fix it.
///
/// `description` reads like a compiler diagnostic,
/// `morning.md.mustache:12:5: unclosed section 'events'`, so the CLI can print it as is.
public struct MustacheError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong; each case renders to one sentence in `message`.
    public enum Kind: Equatable, Sendable {
        /// A `{{#name}}`, `{{^name}}`, `{{<name}}` or `{{$name}}` without its `{{/name}}`.
        case unclosedSection(String)
        /// `{{/closed}}` met while `open` was the innermost open section.
        case mismatchedClose(open: String, closed: String)
        /// `{{/name}}` with no section open.
        case unexpectedClose(String)
        /// An opening delimiter whose closing delimiter never comes.
        case unclosedTag(expected: String)
        /// A tag such as `{{}}` or `{{# }}` that names nothing.
        case emptyTagName
        /// A `{{=...=}}` tag that is not two delimiters separated by whitespace.
        case badSetDelimiter(String)
        /// A partial or parent that the library cannot find.
        case missingTemplate(String)
        /// Partials that include each other without end.
        case partialsTooDeep(String, limit: Int)
        /// Sections, partials and blocks nested deeper than the limit (while parsing or rendering).
        case nestedTooDeep(String, limit: Int)
    }

    /// The template the problem is in, as registered (`digest.html.mustache`).
    public var templateName: String
    /// 1-based line; 0 when the problem has no place in a template.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int
    public var kind: Kind

    public init(templateName: String, line: Int, column: Int, kind: Kind) {
        self.templateName = templateName
        self.line = line
        self.column = column
        self.kind = kind
    }

    /// The sentence without the location prefix.
    public var message: String {
        switch kind {
        case .unclosedSection(let name):
            return "unclosed section '\(name)'"
        case .mismatchedClose(let open, let closed):
            return "section '\(open)' closed by '\(closed)'"
        case .unexpectedClose(let name):
            return "closing tag '\(name)' has no open section"
        case .unclosedTag(let expected):
            return "unclosed tag, expected '\(expected)'"
        case .emptyTagName:
            return "empty tag name"
        case .badSetDelimiter(let content):
            return "bad set-delimiter '\(content)', expected two delimiters like {{=<% %>=}}"
        case .missingTemplate(let name):
            return "no template named '\(name)'"
        case .partialsTooDeep(let name, let limit):
            return "partials nested more than \(limit) deep at '\(name)'; check for a template that includes itself"
        case .nestedTooDeep(let name, let limit):
            return "sections and partials nested more than \(limit) deep at '\(name)'; flatten the template"
        }
    }

    public var description: String {
        guard line > 0 else {
            return templateName.isEmpty ? message : "\(templateName): \(message)"
        }
        return "\(templateName):\(line):\(column): \(message)"
    }
}
