/// Bad input data (an import file, a config file): says which file, line and field, and what was expected.
public struct InputError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The key path of the offending field, e.g. `events[12].tasks[0].status`; empty for syntax errors.
    public var path: String
    public var message: String

    public init(file: String, line: Int?, path: String, message: String) {
        self.file = file
        self.line = line
        self.path = path
        self.message = message
    }

    public var description: String {
        var text = file
        if let line, line > 0 { text += ":\(line)" }
        text += ": "
        if !path.isEmpty { text += path + ": " }
        return text + message
    }
}

/// Typed, path-aware access to a `JSONNode`, producing `InputError`s that name file, line and key path.
public struct JSONReader: Sendable {
    public let file: String

    public init(file: String) { self.file = file }

    public func fail(_ node: JSONNode, _ path: String, _ message: String) -> InputError {
        InputError(file: file, line: node.line, path: path, message: message)
    }

    public func expected(_ what: String, _ node: JSONNode, _ path: String) -> InputError {
        fail(node, path, "expected \(what), got \(node.kindDescription)")
    }

    public func object(_ node: JSONNode, _ path: String, allowed keys: [String]) throws -> [(key: String, value: JSONNode)] {
        guard case .object(let members) = node.value else { throw expected("an object", node, path) }
        for member in members where !keys.contains(member.key) {
            let where_ = path.isEmpty ? member.key : path + "." + member.key
            throw fail(member.value, where_, "unknown key" + Suggestion.hint(for: member.key, in: keys))
        }
        return members
    }

    public func array(_ node: JSONNode, _ path: String) throws -> [JSONNode] {
        guard case .array(let items) = node.value else { throw expected("an array", node, path) }
        return items
    }

    public func string(_ node: JSONNode, _ path: String) throws -> String {
        guard case .string(let text) = node.value else { throw expected("a string", node, path) }
        return text
    }

    public func optionalString(_ node: JSONNode?, _ path: String) throws -> String? {
        guard let node, node.value != .null else { return nil }
        return try string(node, path)
    }

    public func bool(_ node: JSONNode, _ path: String) throws -> Bool {
        guard case .bool(let value) = node.value else { throw expected("true or false", node, path) }
        return value
    }

    public func integer(_ node: JSONNode, _ path: String) throws -> Int {
        guard case .number(let text) = node.value, let value = Int(text) else { throw expected("a whole number", node, path) }
        return value
    }

    /// A string that must be one of `choices`; the error lists them and suggests the nearest.
    public func choice(_ node: JSONNode, _ path: String, _ choices: [String]) throws -> String {
        let text = try string(node, path)
        guard choices.contains(text) else {
            let list = choices.count <= 4 ? Self.orList(choices) : "one of " + choices.prefix(6).joined(separator: ", ") + ", …"
            throw fail(node, path, "expected \(list), got \"\(text)\"" + Suggestion.hint(for: text, in: choices))
        }
        return text
    }

    /// `a, b or c`.
    public static func orList(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + (items.last ?? "")
    }
}
