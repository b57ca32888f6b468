import Foundation

/// One HTTP request as the server received it: a plain value, so routes and tests need no socket.
public struct WebRequest: Sendable, Equatable {
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Query parameters, decoded; a name given twice keeps the last value.
    public var query: [String: String]
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The peer's address is loopback (127.0.0.0/8 or ::1).
    public var fromLoopback: Bool
    /// The peer's address as text (`127.0.0.1`): whose failed logins count together.
    public var client = ""

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], fromLoopback: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers.keys.allSatisfy { $0 == HeaderText.lowercased($0) } ? headers
            : Dictionary(headers.map { (HeaderText.lowercased($0.key), $0.value) }) { _, last in last }
        self.body = body
        self.fromLoopback = fromLoopback
    }

    public func header(_ name: String) -> String? { headers[HeaderText.lowercased(name)] }

    /// The body as an `application/x-www-form-urlencoded` form (empty for other content types).
    public var form: [String: String] {
        guard let type = header("content-type"), type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return [:] }
        return Self.decodeForm(String(decoding: body, as: UTF8.self))
    }

    /// Cookies by name.
    public var cookies: [String: String] {
        guard let text = header("cookie") else { return [:] }
        var cookies: [String: String] = [:]
        for part in text.split(separator: ";") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            cookies[HeaderText.trimmed(part[..<eq])] = HeaderText.trimmed(part[part.index(after: eq)...])
        }
        return cookies
    }

    /// Decodes `a=1&b=two+words` (plus is a space, `%XX` a byte); malformed escapes are kept as text.
    public static func decodeForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(parts[0]).replacingOccurrences(of: "+", with: " "))
            let value = parts.count > 1 ? percentDecode(String(parts[1]).replacingOccurrences(of: "+", with: " ")) : ""
            fields[name] = value
        }
        return fields
    }

    static func percentDecode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
