import Foundation

/// What a route pattern captured: `/events/{id}` matched against `/events/ab12` gives `id` = `ab12`.
public typealias RouteParameters = [String: String]

/// A route's work: from the request and its captures to a response. Errors become 500 (logged, not shown).
public typealias RouteHandler = @Sendable (WebRequest, RouteParameters) throws -> WebResponse

/// The route table: method + path pattern → handler. Other rooms extend it with `add`.
///
/// A pattern is literal segments and `{name}` captures (one whole segment each). Matching is exact,
/// segment by segment; a path with an empty, `.` or `..` segment matches nothing (traversal never
/// reaches a handler). A path that matches with another method gets 405 and `Allow`.
public struct Routes: Sendable {
    struct Route: Sendable {
        var method: String
        var segments: [Segment]
        var handler: RouteHandler
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case capture(String)
    }

    private(set) var routes: [Route] = []

    /// Draws the answer of a failure (404, 405, 413, 500) as a page: the site's, styled and in the
    /// reader's language. Without one, and under `/api/`, the answer is the plain text.
    public var errorPage: (@Sendable (_ status: Int, _ text: String) -> WebResponse)?

    public init() {}

    /// Adds a route; a later route with the same method and pattern wins over an earlier one.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping RouteHandler) {
        let segments = Self.split(pattern).map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .capture(String(part.dropFirst().dropLast())) : .literal(part)
        }
        routes.removeAll { $0.method == method && $0.segments == segments }
        routes.append(Route(method: method.uppercased(), segments: segments, handler: handler))
    }

    /// The adds of `other` on top of these (and its `errorPage`, when it has one).
    public mutating func merge(_ other: Routes) {
        if let page = other.errorPage { errorPage = page }
        for route in other.routes {
            routes.removeAll { $0.method == route.method && $0.segments == route.segments }
            routes.append(route)
        }
    }

    /// The outcome of looking a request up.
    public enum Match {
        case found(RouteHandler, RouteParameters)
        case wrongMethod(allowed: [String])
        case notFound
    }

    public func match(method: String, path: String) -> Match {
        lookup(method: method, path: path).match
    }

    /// The match, and the path as the access log shows it (`loggedPath`), from one pass over the table.
    func lookup(method: String, path: String) -> (match: Match, logged: String) {
        let parts = Self.split(path)
        // A segment with an encoded `/` (an id `a/b`) is one segment, but never one that would read
        // as `.` or `..` were it split.
        guard path.hasPrefix("/"), !parts.contains(where: Self.isRefusedSegment),
              !Self.hasEmptySegment(path) || path == "/" else { return (.notFound, path) }
        var allowed: [String] = []
        let method = method.uppercased()
        for route in routes.reversed() {
            guard let parameters = Self.captures(route.segments, parts) else { continue }
            if route.method == method || (route.method == "GET" && method == "HEAD") {
                guard route.segments.contains(.capture("token")) else { return (.found(route.handler, parameters), path) }
                let shown = zip(route.segments, parts).map { segment, part in segment == .capture("token") ? "****" : part }
                return (.found(route.handler, parameters), "/" + shown.joined(separator: "/"))
            }
            allowed.append(route.method)
        }
        return (allowed.isEmpty ? .notFound : .wrongMethod(allowed: Array(Set(allowed)).sorted()), path)
    }

    /// True when a segment is empty, or is or holds (between encoded slashes) `.` or `..`.
    static func isRefusedSegment(_ part: String) -> Bool {
        if part.isEmpty || part == "." || part == ".." { return true }
        return HeaderText.contains(part, UInt8(ascii: "/"))
            && part.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
    }

    /// True when `path` has `//` (an empty segment).
    static func hasEmptySegment(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for byte in path.utf8 {
            if byte == 47, previous == 47 { return true }
            previous = byte
        }
        return false
    }

    /// Answers a request: the matching route's response, 404, 405, or 500 when the handler threw.
    public func respond(to request: WebRequest) -> (response: WebResponse, error: (any Error)?) {
        let answer = answer(to: request)
        return (answer.response, answer.error)
    }

    /// `respond`, and the path as the access log shows it, from the same match.
    func answer(to request: WebRequest) -> (response: WebResponse, error: (any Error)?, logged: String) {
        let (match, logged) = lookup(method: request.method, path: request.path)
        let (response, error) = respond(to: request, match)
        return (response, error, logged)
    }

    private func respond(to request: WebRequest, _ match: Match) -> (response: WebResponse, error: (any Error)?) {
        switch match {
        case .found(let handler, let parameters):
            do {
                return (try handler(request, parameters), nil)
            } catch {
                return (failure(500, "Internal error; the server log has the details.\n", path: request.path), error)
            }
        case .wrongMethod(let allowed):
            var response = failure(405, "Method \(request.method) not allowed here; use \(allowed.joined(separator: " or ")).\n", path: request.path)
            response.setHeader("Allow", allowed.joined(separator: ", "))
            return (response, nil)
        case .notFound:
            return (failure(404, "Not found.\n", path: request.path), nil)
        }
    }

    /// The answer of a failure: `errorPage`'s, or `text` as plain text (always for the API).
    public func failure(_ status: Int, _ text: String, path: String) -> WebResponse {
        guard !path.hasPrefix("/api/"), let errorPage else { return .text(status, text) }
        return errorPage(status, text)
    }

    /// The path as the access log shows it: a segment captured as `{token}` (a feed token, an
    /// action link) is `****`, so the log never holds a secret.
    public func loggedPath(method: String, path: String) -> String {
        lookup(method: method, path: path).logged
    }

    /// The path's segments, each decoded. The server leaves `%2F` and `%25` encoded in the path it
    /// is given (the rest is decoded), so `/events/a%2Fb` is one segment, `a/b`.
    static func split(_ path: String) -> [String] {
        guard path != "/" else { return [] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { decodingKept(String($0)) }
    }

    /// `text` with the escapes the server keeps (`%2F`, `%25`) decoded.
    public static func decodingKept(_ text: String) -> String {
        guard HeaderText.contains(text, UInt8(ascii: "%")) else { return text }
        return text.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%2f", with: "/").replacingOccurrences(of: "%25", with: "%")
    }

    static func captures(_ segments: [Segment], _ parts: [String]) -> RouteParameters? {
        guard segments.count == parts.count else { return nil }
        var parameters: RouteParameters = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard text == part else { return nil }
            case .capture(let name): parameters[name] = part
            }
        }
        return parameters
    }
}
