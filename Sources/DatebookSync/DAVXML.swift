import Foundation

/// One element of a WebDAV response: namespace URI, local name, attributes, child elements and text.
///
/// WebDAV answers are small trees of namespaced elements; this reader is all datebook needs of XML
/// (no libxml2 to link or load at start-up). It refuses DOCTYPE declarations, so no entity tricks.
public struct DAVElement: Sendable, Equatable {
    public var namespace: String
    public var name: String
    /// By local name (prefixes dropped; WebDAV attributes are unqualified).
    public var attributes: [String: String]
    public var children: [DAVElement]
    /// The element's own character data (CDATA included), children's text excluded.
    public var text: String

    public init(namespace: String, name: String, attributes: [String: String] = [:], children: [DAVElement] = [], text: String = "") {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    public func first(_ namespace: String, _ name: String) -> DAVElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    public func all(_ namespace: String, _ name: String) -> [DAVElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// The element at the end of `path` (each step a child), if every step exists.
    public func at(_ path: (String, String)...) -> DAVElement? {
        var element = self
        for (namespace, name) in path {
            guard let next = element.first(namespace, name) else { return nil }
            element = next
        }
        return element
    }
}

/// XML that could not be read, with the line it stopped at.
public struct DAVXMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

/// Namespaces WebDAV and CalDAV use.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"
}

public enum DAVXML {
    /// Reads a whole document; throws `DAVXMLError` on anything that is not well-formed.
    public static func parse(_ data: Data) throws -> DAVElement {
        var reader = Reader(bytes: Array(data))
        return try reader.document()
    }

    /// `text` with `& < > " '` escaped, for element content and attribute values.
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        static let maxDepth = 200

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ message: String) -> DAVXMLError { DAVXMLError(line: line, message: message) }

        func starts(with text: String) -> Bool {
            let utf8 = Array(text.utf8)
            return index + utf8.count <= bytes.count && bytes[index..<(index + utf8.count)].elementsEqual(utf8)
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }

        /// Skips to just after `terminator`; throws when the input ends first.
        mutating func skip(past terminator: String, what: String) throws -> ArraySlice<UInt8> {
            let start = index
            while index < bytes.count {
                if starts(with: terminator) {
                    let content = bytes[start..<index]
                    advance(terminator.utf8.count)
                    return content
                }
                advance()
            }
            throw fail("unterminated \(what)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { advance() }
        }

        /// Whitespace, the XML declaration, processing instructions and comments.
        mutating func skipMisc() throws {
            while true {
                skipSpace()
                if starts(with: "<?") {
                    _ = try skip(past: "?>", what: "processing instruction")
                } else if starts(with: "<!--") {
                    _ = try skip(past: "-->", what: "comment")
                } else if starts(with: "<!") {
                    throw fail("DOCTYPE and other declarations are not accepted")
                } else {
                    return
                }
            }
        }

        mutating func document() throws -> DAVElement {
            if starts(with: "\u{FEFF}") { advance(3) }
            try skipMisc()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else {
                throw fail(index < bytes.count ? "expected an element, got text" : "empty document")
            }
            let root = try element(scope: ["xml": "http://www.w3.org/XML/1998/namespace"], depth: 0)
            try skipMisc()
            guard index == bytes.count else { throw fail("content after the root element") }
            return root
        }

        mutating func name() throws -> String {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="),
                    UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(byte) { break }
                advance()
            }
            guard index > start else { throw fail("expected a name") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Character data with entity and character references replaced.
        func decode(_ raw: ArraySlice<UInt8>) throws -> String {
            guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
            var result = ""
            var rest = Substring(String(decoding: raw, as: UTF8.self))
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { throw fail("'&' without ';'") }
                let entity = rest[rest.index(after: ampersand)..<semicolon]
                switch entity {
                case "lt": result += "<"
                case "gt": result += ">"
                case "amp": result += "&"
                case "quot": result += "\""
                case "apos": result += "'"
                default:
                    let hex = entity.hasPrefix("#x") || entity.hasPrefix("#X")
                    guard entity.hasPrefix("#"), let code = UInt32(entity.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                        let scalar = Unicode.Scalar(code)
                    else { throw fail("unknown entity '&\(entity);'") }
                    result.unicodeScalars.append(scalar)
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }

        mutating func element(scope outer: [String: String], depth: Int) throws -> DAVElement {
            guard depth < Self.maxDepth else { throw fail("elements nested more than \(Self.maxDepth) deep") }
            advance()  // <
            let qualified = try name()
            var raw: [(String, String)] = []
            var empty = false
            while true {
                skipSpace()
                guard index < bytes.count else { throw fail("unterminated <\(qualified)>") }
                if starts(with: "/>") {
                    advance(2)
                    empty = true
                    break
                }
                if bytes[index] == UInt8(ascii: ">") {
                    advance()
                    break
                }
                let attribute = try name()
                skipSpace()
                guard starts(with: "=") else { throw fail("attribute '\(attribute)' without a value") }
                advance()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw fail("attribute '\(attribute)' value not quoted")
                }
                let quote = String(UnicodeScalar(bytes[index]))
                advance()
                raw.append((attribute, try decode(try skip(past: quote, what: "attribute value"))))
            }
            var scope = outer
            var attributes: [String: String] = [:]
            for (key, value) in raw {
                if key == "xmlns" {
                    scope[""] = value
                } else if key.hasPrefix("xmlns:") {
                    scope[String(key.dropFirst(6))] = value
                } else {
                    attributes[String(key.split(separator: ":").last ?? Substring(key))] = value
                }
            }
            let parts = qualified.split(separator: ":", maxSplits: 1).map(String.init)
            let prefix = parts.count == 2 ? parts[0] : ""
            guard let namespace = scope[prefix] ?? (prefix.isEmpty ? "" : nil) else {
                throw fail("undeclared namespace prefix '\(prefix)' in <\(qualified)>")
            }
            var element = DAVElement(namespace: namespace, name: parts.count == 2 ? parts[1] : qualified, attributes: attributes)
            if empty { return element }
            while true {
                guard index < bytes.count else { throw fail("<\(qualified)> is not closed") }
                if starts(with: "</") {
                    advance(2)
                    let closing = try name()
                    guard closing == qualified else { throw fail("</\(closing)> closes <\(qualified)>") }
                    skipSpace()
                    guard starts(with: ">") else { throw fail("</\(closing)> is not closed") }
                    advance()
                    return element
                } else if starts(with: "<!--") {
                    _ = try skip(past: "-->", what: "comment")
                } else if starts(with: "<![CDATA[") {
                    advance(9)
                    element.text += String(decoding: try skip(past: "]]>", what: "CDATA section"), as: UTF8.self)
                } else if starts(with: "<?") {
                    _ = try skip(past: "?>", what: "processing instruction")
                } else if starts(with: "<!") {
                    throw fail("declarations are not accepted inside elements")
                } else if bytes[index] == UInt8(ascii: "<") {
                    element.children.append(try self.element(scope: scope, depth: depth + 1))
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { advance() }
                    element.text += try decode(bytes[start..<index])
                }
            }
        }
    }
}
