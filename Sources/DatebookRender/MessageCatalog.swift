import DatebookCore
import DatebookDelivery
import DatebookTemplates
import Foundation

/// The words datebook writes for a reader in one language: section titles, counts, badges, alert
/// phrases. Built-in catalogues are `templates/locales/LANG.json`; a user's file of the same name
/// in the templates folder's `locales/` replaces messages one by one. A key a catalogue lacks falls
/// back to English.
///
/// A message is a string, or `{"one": …, "other": …}` for a count (CLDR's two cases, enough for
/// English and German; Japanese writes one string). `{name}` is a placeholder; each message takes
/// exactly the placeholders of its English original.
public struct MessageCatalog: Sendable {
    /// A message's forms: `other` always, `one` for a language that says "1 task" / "2 tasks".
    struct Message: Sendable, Equatable {
        var one: String?
        var other: String
    }

    public let language: String
    let messages: [String: Message]
    /// What every alert of this language shares, made once: a tick builds thousands of alerts
    /// (the labels were a fifth of an alert's cost when looked up for each).
    let alertLabels: OutgoingMessage.Labels
    /// The seven `weekdays`, Sunday first (English's when the catalogue's are not seven).
    let weekdayNames: [String]

    /// The English catalogue, the reference for keys and placeholders.
    public static let english: MessageCatalog = {
        let source = BuiltInCatalogs.source(language: "en") ?? "{}"
        // The built-in English file is checked by the tests; an empty catalogue is only a fallback.
        let messages = (try? parse(source, file: "templates/locales/en.json", reference: nil)) ?? [:]
        return MessageCatalog(language: "en", messages: messages)
    }()

    init(language: String, messages: [String: Message]) {
        self.language = language
        self.messages = messages
        func text(_ key: String) -> String { messages[key]?.other ?? key }
        var labels = OutgoingMessage.Labels()
        labels.starts = text("starts")
        labels.ends = text("ends")
        labels.openTasks = text("openTasksLabel")
        labels.open = text("openLink")
        labels.truncated = text("truncated")
        labels.done = text("done")
        labels.snooze = text("snooze")
        labels.tomorrow = text("tomorrow")
        labels.location = text("whereLabel")
        alertLabels = labels
        let names = text("weekdays").split(separator: " ").map(String.init)
        weekdayNames = names.count == 7 ? names : LocalTime.weekdayNames
    }

    /// The catalogue for `language` (`de`): the built-in one, then the user's `locales/LANG.json`
    /// in `overrideDirectory` over it, English under both.
    public static func load(language: String, overrideDirectory: String?) throws -> MessageCatalog {
        var messages = english.messages
        if language != "en", let source = BuiltInCatalogs.source(language: language) {
            messages.merge(try parse(source, file: "templates/locales/\(language).json", reference: english.messages)) { $1 }
        }
        if let overrideDirectory {
            let path = overrideDirectory + "/locales/" + language + ".json"
            if let source = try TemplateFiles.read(path) {
                messages.merge(try parse(source, file: path, reference: english.messages)) { $1 }
            }
        }
        return MessageCatalog(language: language, messages: messages)
    }

    /// The catalogue of a locale's language (`de_DE` → `de`); English for a language without one.
    public static func load(locale: String, overrideDirectory: String?) throws -> MessageCatalog {
        try load(language: DigestLocale.language(of: locale.replacingOccurrences(of: "-", with: "_")), overrideDirectory: overrideDirectory)
    }

    /// Whether `language` has a built-in catalogue (complete or not).
    public static func hasBuiltIn(language: String) -> Bool {
        BuiltInCatalogs.source(language: language) != nil
    }

    /// The keys of English a built-in catalogue does not have (they show in English).
    public static func missingKeys(language: String) throws -> [String] {
        guard let source = BuiltInCatalogs.source(language: language) else { return english.messages.keys.sorted() }
        let own = try parse(source, file: "templates/locales/\(language).json", reference: english.messages)
        return english.messages.keys.filter { own[$0] == nil }.sorted()
    }

    /// The message `key` with `{name}` placeholders filled in.
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        fill(messages[key]?.other ?? key, values)
    }

    /// `priority 1` for a to-do with a priority (RFC 5545's 1 … 9), nil without one.
    public func priority(_ task: EventTask) -> String? {
        task.priority > 0 ? text("priority", ["priority": String(task.priority)]) : nil
    }

    /// The message `key` for `count` things (`{count}` filled in; `capped` adds `+` and is never
    /// "one"), in the language's plural form.
    public func count(_ key: String, _ count: Int, capped: Bool = false, _ values: [String: String] = [:]) -> String {
        guard let message = messages[key] else { return key }
        let form = count == 1 && !capped ? message.one ?? message.other : message.other
        let number = Self.number(count, capped: capped)
        return fill(form, values.isEmpty ? ["count": number] : values.merging(["count": number]) { $1 })
    }

    /// A count as shown anywhere: `500`, or `500+` when counting stopped at a cap (a lower bound).
    /// The one rule for capped counts; `count(_:_:capped:_:)` and the plain digest use it.
    public static func number(_ count: Int, capped: Bool) -> String {
        String(count) + (capped ? "+" : "")
    }

    /// Every message that takes no placeholder, for templates: `{{words.next7}}`.
    public var words: [String: String] {
        messages.compactMapValues { Self.placeholders(in: $0.other).isEmpty && $0.one == nil ? $0.other : nil }
    }

    /// One pass over `template`: each `{name}` with a value becomes it, anything else stays as
    /// written; a filled-in value is not searched again (an event titled `{lead}` stays so).
    func fill(_ template: String, _ values: [String: String]) -> String {
        guard values.count > 0, template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var result = ""
        var rest = Substring(template)
        while let open = rest.utf8.firstIndex(of: UInt8(ascii: "{")) {
            result += rest[..<open]
            let name = rest[rest.utf8.index(after: open)...]
            if let close = name.utf8.firstIndex(of: UInt8(ascii: "}")), let value = values[String(name[..<close])] {
                result += value
                rest = name[name.utf8.index(after: close)...]
            } else {
                result += "{"
                rest = name
            }
        }
        return result + rest
    }

    /// The `{name}` placeholders of a message.
    static func placeholders(in text: String) -> Set<String> {
        var found = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }

    /// The last `"key":` written on or before `line`: where a syntax error was, as far as a
    /// translator needs to know.
    static func lastKey(in source: String, through line: Int) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).prefix(max(0, line))
        for text in lines.reversed() {
            let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "{" || $0 == "," }
            guard trimmed.hasPrefix("\""), let close = trimmed.dropFirst().firstIndex(of: "\""),
                  trimmed[trimmed.index(after: close)...].drop(while: { $0 == " " }).hasPrefix(":") else { continue }
            return String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        }
        return nil
    }

    /// Reads a catalogue file; with a `reference` (English), every key must be one of its keys
    /// and take exactly its placeholders. Errors name the file, line and key.
    static func parse(_ source: String, file: String, reference: [String: Message]?) throws -> [String: Message] {
        let root: JSONNode
        do { root = try JSONParser.parse(source) } catch let error as JSONSyntaxError {
            throw CatalogError(file: file, line: error.line, key: lastKey(in: source, through: error.line),
                               problem: error.message + " (column \(error.column))")
        }
        guard case .object(let members) = root.value else {
            throw CatalogError(file: file, line: root.line, key: nil, problem: "expected an object of messages, got \(root.kindDescription)")
        }
        var messages: [String: Message] = [:]
        for (key, node) in members {
            func fail(_ problem: String) -> CatalogError { CatalogError(file: file, line: node.line, key: key, problem: problem) }
            let message: Message
            switch node.value {
            case .string(let text): message = Message(one: nil, other: text)
            case .object:
                guard let other = node["other"], case .string(let otherText) = other.value else {
                    throw fail("a plural message needs \"other\" (and \"one\" where the language has it)")
                }
                var one: String?
                if let oneNode = node["one"] {
                    guard case .string(let text) = oneNode.value else { throw fail("\"one\" must be a string") }
                    one = text
                }
                message = Message(one: one, other: otherText)
            default:
                throw fail("expected a string or {\"one\": …, \"other\": …}, got \(node.kindDescription)")
            }
            if let reference {
                guard let original = reference[key] else {
                    throw fail("unknown key" + Suggestion.hint(for: key, in: reference.keys.sorted()))
                }
                let expected = placeholders(in: original.other)
                for form in [message.other] + (message.one.map { [$0] } ?? []) {
                    let found = placeholders(in: form)
                    if let missing = expected.subtracting(found).sorted().first { throw fail("missing placeholder {\(missing)}") }
                    if let unknown = found.subtracting(expected).sorted().first {
                        throw fail("unknown placeholder {\(unknown)}" + (expected.isEmpty ? " (it takes none)" : "; it takes "
                            + expected.sorted().map { "{\($0)}" }.joined(separator: ", ")))
                    }
                }
            }
            messages[key] = message
        }
        return messages
    }
}

/// A message catalogue that cannot be used: `file:line: key 'left': missing placeholder {count}`.
public struct CatalogError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var key: String?
    public var problem: String

    public var description: String {
        "\(file):\(line): " + (key.map { "key '\($0)': " } ?? "") + problem
    }
}
