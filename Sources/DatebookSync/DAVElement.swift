import DatebookCore
import Foundation

/// One element of a WebDAV response: namespace URI, local name, attributes, child elements and text.
///
/// WebDAV answers are small trees of namespaced elements; `DAVXMLReader` (libxml2's streaming
/// reader) makes them, one `<response>` at a time for a multistatus.
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

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// Namespaces WebDAV and CalDAV use.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"
}

public enum DAVXML {
    /// Reads a whole document into one tree; throws `DAVXMLError` on anything that is not
    /// well-formed, on a DOCTYPE, and where libxml2 cannot be loaded.
    public static func parse(_ data: Data) throws -> DAVElement {
        try DAVXMLReader.read(data, streaming: nil)
    }

    /// `text` with `& < > "` escaped, for element content and double-quoted attribute values
    /// (XML and HTML share these entities).
    public static func escape(_ text: String) -> String { HTMLText.escape(text) }
}
