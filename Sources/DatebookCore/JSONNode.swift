/// A parsed JSON or JSON5 value that remembers where it was written, so errors can name the line.
public struct JSONNode: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        /// The number as written (kept as text so integers round-trip exactly).
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in file order; duplicate keys are rejected by the parser.
        case object([(key: String, value: JSONNode)])

        public static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.null, .null): true
            case let (.bool(x), .bool(y)): x == y
            case let (.number(x), .number(y)): x == y
            case let (.string(x), .string(y)): x == y
            case let (.array(x), .array(y)): x == y
            case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }
    }

    public var value: Value
    public var line: Int
    public var column: Int

    public init(_ value: Value, line: Int = 0, column: Int = 0) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// A short name of the value's kind for "expected …, got …" messages.
    public var kindDescription: String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The node at a relative path such as `tasks[2].text`, or the nearest one on the way there
    /// (a field left out is reported at its object's line).
    public func at(_ path: String) -> JSONNode {
        var node = self
        for part in path.split(separator: ".") {
            let name = part.prefix { $0 != "[" }
            guard let member = node[String(name)] else { return node }
            node = member
            if let open = part.firstIndex(of: "["), let close = part.firstIndex(of: "]"),
               let index = Int(part[part.index(after: open)..<close]), case .array(let items) = node.value, items.indices.contains(index) {
                node = items[index]
            }
        }
        return node
    }
}

/// A JSON or JSON5 syntax error with its line and column.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(line):\(column): \(message)" }
}
