/// A digest that cannot be rendered as asked; the CLI reports these as usage or data errors.
public enum DigestError: Error, Equatable, CustomStringConvertible {
    case unknownLocale(String, suggestion: String?)
    case unknownFormat(String, suggestion: String?)
    case unknownTemplate(String, suggestion: String?)
    case unreadableTemplate(path: String, reason: String)
    case markdown(String)

    public var description: String {
        func hint(_ suggestion: String?) -> String { suggestion.map { " (did you mean '\($0)'?)" } ?? "" }
        switch self {
        case .unknownLocale(let id, let suggestion):
            return "unknown locale '\(id)'\(hint(suggestion)); use an identifier like en_US, de_DE or ja_JP"
        case .unknownFormat(let name, let suggestion):
            return "unknown format '\(name)'\(hint(suggestion)); expected text, markdown or html"
        case .unknownTemplate(let name, let suggestion):
            return "no template named '\(name)'\(hint(suggestion)); run 'datebook templates' to list them, or give a path"
        case .unreadableTemplate(let path, let reason):
            return "\(path): cannot read template: \(reason)"
        case .markdown(let reason):
            return "cannot render Markdown to HTML: \(reason)"
        }
    }

    /// Usage mistakes (exit 64) as opposed to bad files (exit 65).
    public var isUsage: Bool {
        switch self {
        case .unknownLocale, .unknownFormat, .unknownTemplate: true
        case .unreadableTemplate, .markdown: false
        }
    }
}
