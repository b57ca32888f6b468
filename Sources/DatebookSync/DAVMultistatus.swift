import DatebookCore
import DatebookStore
import Foundation

/// A 207 Multi-Status answer (RFC 4918 §13): one entry per resource, with the properties the
/// server found (`propstat` 200) and the top-level `sync-token` of a `sync-collection` report.
public struct DAVMultistatus: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The resource's absolute URL.
        public var url: String
        /// The response's own status (a removed resource in a sync report: 404), if it has one.
        public var status: Int?
        /// Properties reported with status 200.
        public var properties: [DAVElement]

        public func prop(_ namespace: String, _ name: String) -> DAVElement? {
            properties.first { $0.namespace == namespace && $0.name == name }
        }

        /// The resource's iCalendar text (`calendar-data`), nil when the server sent none. XML
        /// parsers turn every line end into LF (XML 1.0 §2.11) while iCalendar's are CRLF (RFC 5545
        /// §3.1), so the CRs are put back: the text held and patched is the server's own.
        public var calendarData: String? {
            guard let text = prop(DAVNamespace.caldav, "calendar-data")?.text, !text.isEmpty else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count + text.utf8.count / 32)
            var previous: UInt8 = 0
            for byte in text.utf8 {
                if byte == 0x0A, previous != 0x0D { bytes.append(0x0D) }
                bytes.append(byte)
                previous = byte
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The absolute URL in a property that holds an `href` (`current-user-principal`, `calendar-home-set`).
        func href(_ namespace: String, _ name: String) -> String? {
            guard let text = prop(namespace, name)?.first(DAVNamespace.dav, "href")?.text.trimmed, !text.isEmpty else { return nil }
            return CalDAVClient.resolve(text, against: url)
        }

        var isCalendar: Bool { prop(DAVNamespace.dav, "resourcetype")?.first(DAVNamespace.caldav, "calendar") != nil }

        /// The calendar this entry describes (its components default to VEVENT and VTODO when not said).
        func calendar(account: String) -> CalDAVCalendar? {
            guard isCalendar else { return nil }
            let components = prop(DAVNamespace.caldav, "supported-calendar-component-set")?
                .all(DAVNamespace.caldav, "comp").compactMap { $0.attributes["name"]?.uppercased() } ?? []
            let name = prop(DAVNamespace.dav, "displayname")?.text.trimmed ?? ""
            let color = prop(DAVNamespace.apple, "calendar-color")?.text.trimmed ?? ""
            let fallbackName = url.split(separator: "/").last.map(String.init)?.removingPercentEncoding ?? url
            return CalDAVCalendar(account: account, url: url, displayName: name.isEmpty ? fallbackName : name,
                                  color: color.isEmpty ? nil : color,
                                  components: components.isEmpty ? ["VEVENT", "VTODO"] : components,
                                  syncToken: nil, ctag: prop(DAVNamespace.calendarServer, "getctag")?.text.trimmed)
        }
    }

    public var responses: [Entry]
    public var syncToken: String?

    /// Reads a response to a request sent to `base` as it streams through libxml2's reader: one
    /// `<response>` at a time, never the whole document as a tree.
    public init(xml: Data, base: String) throws {
        var responses: [Entry] = []
        var syncToken: String?
        let root = try DAVXMLReader.read(xml) { child in
            guard child.namespace == DAVNamespace.dav else { return }
            if child.name == "response" {
                responses.append(try Self.entry(child, base: base))
            } else if child.name == "sync-token" {
                syncToken = child.text.trimmed
            }
        }
        try Self.check(root)
        self.responses = responses
        self.syncToken = syncToken
    }

    /// Reads a tree `DAVXML.parse` made of a response to a request sent to `base`.
    public init(_ root: DAVElement, base: String) throws {
        try Self.check(root)
        responses = try root.all(DAVNamespace.dav, "response").map { try Self.entry($0, base: base) }
        syncToken = root.first(DAVNamespace.dav, "sync-token")?.text.trimmed
    }

    static func check(_ root: DAVElement) throws {
        guard root.namespace == DAVNamespace.dav, root.name == "multistatus" else {
            throw DAVXMLError(line: 1, message: "expected <multistatus> in DAV:, got <\(root.name)>")
        }
    }

    static func entry(_ response: DAVElement, base: String) throws -> Entry {
        guard let href = response.first(DAVNamespace.dav, "href")?.text.trimmed,
            let url = CalDAVClient.resolve(href, against: base)
        else { throw DAVXMLError(line: 1, message: "a <response> without <href>") }
        var properties: [DAVElement] = []
        for propstat in response.all(DAVNamespace.dav, "propstat") where code(propstat.first(DAVNamespace.dav, "status")?.text) == 200 {
            properties += propstat.first(DAVNamespace.dav, "prop")?.children ?? []
        }
        return Entry(url: url, status: code(response.first(DAVNamespace.dav, "status")?.text), properties: properties)
    }

    /// 200 from `HTTP/1.1 200 OK`.
    static func code(_ line: String?) -> Int? {
        guard let line else { return nil }
        let words = line.split(separator: " ")
        return words.count >= 2 ? Int(words[1]) : nil
    }
}

extension String {
    /// Without the whitespace at either end. Most texts have none (an href, an ETag): those are
    /// returned as they are without Foundation's scan.
    var trimmed: String {
        guard let first = utf8.first, let last = utf8.last, !Self.mayBeSpace(first), !Self.mayBeSpace(last) else {
            return trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return self
    }

    /// ASCII whitespace, or a byte of a non-ASCII character (which may be a Unicode space).
    private static func mayBeSpace(_ byte: UInt8) -> Bool { byte <= 0x20 || byte >= 0x7F }
}
