import Foundation

/// One HTTP response: status, headers and body, built by a route and sent by the server.
public struct WebResponse: Sendable, Equatable {
    public var status: Int
    /// Header name → value, in the order given.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: WebResponse, rhs: WebResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map { $0.name + ":" + $0.value } == rhs.headers.map { $0.name + ":" + $0.value }
    }

    public func header(_ name: String) -> String? {
        headers.last { HeaderText.sameName($0.name, name) }?.value
    }

    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { HeaderText.sameName($0.name, name) }
        headers.append((name, value))
    }

    public static func text(_ status: Int, _ text: String) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    public static func html(_ status: Int, _ html: String) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8))
    }

    public static func json(_ status: Int, _ json: String) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    /// `303 See Other` to `location`: what a form POST answers, so a reload does not post again.
    public static func seeOther(_ location: String) -> WebResponse {
        WebResponse(status: 303, headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
                    body: Array("See \(location)\n".utf8))
    }

    /// Sent on every response, whatever route made it: no script but our own files, no framing,
    /// no MIME sniffing, no Referer (a page URL may carry a feed token).
    public static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// `securityHeaders`' names in lower case, made once (a `Set` made per response was 1.5 % of a 304's CPU).
    private static let securityHeaderNames = Set(securityHeaders.map { $0.name.lowercased() })

    /// The response with the security headers set (a route's own value of one of them is replaced).
    public func secured() -> WebResponse {
        var response = self
        let own = Self.securityHeaderNames
        if headers.contains(where: { own.contains(HeaderText.lowercased($0.name)) }) {
            response.headers.removeAll { own.contains(HeaderText.lowercased($0.name)) }
        }
        response.headers += Self.securityHeaders
        return response
    }
}
