/// Edits JSON5 config text in place, keeping every comment and the user's layout: a member is
/// added at the end of an object, a value at the end of an array (`datebook config add-channel`).
///
/// The containers are found through ``JSONParser`` (which records where each value starts); the
/// end of one is found by scanning its bytes, skipping strings and comments.
public struct ConfigText: Sendable, Equatable {
    public private(set) var bytes: [UInt8]

    public init(_ text: String) { bytes = Array(text.utf8) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public enum EditError: Error, Equatable, CustomStringConvertible {
        case notAnObject(String)
        case notAnArray(String)

        public var description: String {
            switch self {
            case .notAnObject(let path): "\(path.isEmpty ? "the config" : path) is not an object {…}"
            case .notAnArray(let path): "\(path) is not an array […]"
            }
        }
    }

    /// The node at `path` (keys from the top), nil when a key is missing.
    public func node(_ path: [String]) throws -> JSONNode? {
        var node = try JSONParser.parse(bytes)
        for key in path {
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }

    /// Adds `key: value` (value as JSON5 text) at the end of the object at `path`.
    public mutating func addMember(_ key: String, _ value: String, in path: [String]) throws {
        guard let object = try node(path), case .object = object.value else {
            throw EditError.notAnObject(path.joined(separator: "."))
        }
        try append(key + ": " + value, to: object)
    }

    /// Adds `value` (JSON5 text) at the end of the array at `path`.
    public mutating func addElement(_ value: String, in path: [String]) throws {
        guard let array = try node(path), case .array = array.value else {
            throw EditError.notAnArray(path.joined(separator: "."))
        }
        try append(value, to: array)
    }

    private mutating func append(_ item: String, to container: JSONNode) throws {
        let open = offset(line: container.line, column: container.column)
        guard let (close, last) = closing(from: open) else { throw EditError.notAnObject("") }
        let lineStart = (bytes[..<close].lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        let before = bytes[lineStart..<close]
        let ownLine = before.allSatisfy { $0 == 0x20 || $0 == 0x09 }
        let needsComma = last != open && bytes[last] != UInt8(ascii: ",")
        var edited = bytes
        if ownLine {
            // The closing bracket on its own line: the item goes on a new line above it.
            let indent = String(decoding: before, as: UTF8.self) + "  "
            edited.insert(contentsOf: Array((indent + item + ",\n").utf8), at: lineStart)
        } else {
            let spaced = last == open ? item : " " + item
            edited.insert(contentsOf: Array(spaced.utf8), at: close)
        }
        if needsComma { edited.insert(UInt8(ascii: ","), at: last + 1) }
        bytes = edited
    }

    /// Byte offset of a 1-based line and byte column.
    private func offset(line: Int, column: Int) -> Int {
        var current = 1, index = 0
        while current < line, index < bytes.count {
            if bytes[index] == 0x0A { current += 1 }
            index += 1
        }
        return index + column - 1
    }

    /// The offset of the bracket that closes the one at `open`, and of the last byte before it
    /// that is neither white space nor in a comment (`open` itself when the container is empty).
    private func closing(from open: Int) -> (Int, Int)? {
        var depth = 0, index = open, last = open
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index += 1
                while index < bytes.count, bytes[index] != byte {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    index += 1
                }
                last = index
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if index != open { last = index }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return (index, last) }
                last = index
            case 0x20, 0x09, 0x0A, 0x0D:
                break
            default:
                last = index
            }
            index += 1
        }
        return nil
    }

    /// `"text"` with JSON escapes.
    public static func quoted(_ text: String) -> String { JSONText.quote(text) }
}
