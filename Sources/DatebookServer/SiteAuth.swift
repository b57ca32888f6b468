import DatebookCore
import DatebookRender
import Foundation

/// Who may use the server, the sessions of those who signed in, and the CSRF check of every form.
///
/// Without a token (allowed only on a loopback listener) everyone who can connect may. With one,
/// pages need a session cookie the login form sets (`HttpOnly; SameSite=Strict`), the API needs
/// `Authorization: Bearer TOKEN` (or the cookie), and a wrong or missing one gets 401 before any
/// handler runs, so nothing changes. Each login makes its own random session with its own CSRF
/// value, ending after `sessionLifetime` or at `POST /logout`; without a token, and on the login
/// form, the CSRF value is one random value of the process. Every form and every API write is
/// refused when the browser says it comes from another site (`Origin`, `Sec-Fetch-Site`).
public struct SiteAuth: Sendable {
    public static let sessionCookie = "datebook_session"
    public static let csrfField = "csrf"
    /// The header an API write without the bearer token must carry (any value): a page of another
    /// site cannot add a header to a request without the CORS preflight this server never grants.
    public static let csrfHeader = "X-Datebook-CSRF"
    /// How long a login lasts.
    public static let sessionLifetime: TimeInterval = 12 * 3600

    let token: String?
    /// The CSRF value of the login form and, without a token, of every form.
    let anonymousCSRF: String
    let sessions: SessionTable
    let failures: FailureLimiter
    /// `Secure` on the cookie (the server is reached over https).
    let secureCookie: Bool
    /// `serve.baseURL`'s origin (`https://planner.example.org`): forms posted from it are this site's
    /// own (behind a proxy the `Host` the server sees is the proxy's upstream name).
    let baseOrigin: String?
    /// The words of the login form and the refusals (the config's `locale`).
    public let words: MessageCatalog
    /// The time for sessions and failed logins (the real clock: `--now` pins the planner's time, not these).
    let clock: @Sendable () -> Date

    public init(token: String?, secureCookie: Bool, baseURL: String? = nil, words: MessageCatalog = .english,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.token = token
        self.secureCookie = secureCookie
        self.words = words
        self.clock = clock
        baseOrigin = baseURL.flatMap(Self.origin(of:))
        anonymousCSRF = Self.randomHex()
        sessions = SessionTable()
        failures = FailureLimiter()
    }

    public var requiresToken: Bool { token != nil }

    /// 32 random bytes as hex (the system's cryptographic generator).
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Compares without stopping at the first difference, so timing tells nothing about the token.
    public static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// The live session of the request's cookie.
    func session(_ request: WebRequest) -> SessionTable.Session? {
        guard let id = request.cookies[Self.sessionCookie] else { return nil }
        return sessions.find(id, now: clock())
    }

    /// The value the request's forms carry: its session's, else the process's (no token, the login form).
    public func csrf(for request: WebRequest) -> String {
        session(request)?.csrf ?? anonymousCSRF
    }

    /// True when the request may go on: no token configured, a live session, or the bearer token.
    public func isAuthorized(_ request: WebRequest) -> Bool {
        guard let token else { return true }
        if session(request) != nil { return true }
        if let given = bearer(request) { return Self.same(given, token) }
        return false
    }

    func bearer(_ request: WebRequest) -> String? {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else { return nil }
        return HeaderText.trimmed(header.dropFirst("Bearer ".count))
    }

    /// False when the browser says the request comes from another site: `Sec-Fetch-Site` other than
    /// `same-origin` or `none`, or an `Origin` that is neither this request's `Host` nor `serve.baseURL`.
    /// A client that sends neither (curl, an old browser) passes: the CSRF value still has to match.
    /// `Sec-Fetch-Site: same-origin` is enough: the browser sets it and no page can, and Chromium sends
    /// `Origin: null` on this site's own form posts, since every page has `Referrer-Policy: no-referrer`
    /// (found by `ServeBrowserDriveTests`, which clicks the forms' buttons).
    public func isSameOrigin(_ request: WebRequest) -> Bool {
        if let site = request.header("sec-fetch-site")?.lowercased() {
            if site == "same-origin" { return true }
            if site != "none" { return false }
        }
        guard let origin = request.header("origin") else { return true }
        guard let parsed = Self.origin(of: origin) else { return false }
        if let baseOrigin, parsed == baseOrigin { return true }
        guard let host = request.header("host")?.lowercased() else { return false }
        return parsed == "http://" + host || parsed == "https://" + host
    }

    /// `scheme://host[:port]` of a URL, lower-cased; nil for `null` or anything not http(s).
    static func origin(of text: String) -> String? {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host?.lowercased() else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return scheme + "://" + bracketed + (url.port.map { ":\($0)" } ?? "")
    }

    /// 429 with `Retry-After` while the client is held back after failed logins.
    func tooManyFailures(_ request: WebRequest, json: Bool) -> WebResponse? {
        guard let wait = failures.retryAfter(request.client, now: clock()) else { return nil }
        var response = json ? WebResponse.json(429, "{\"error\": \"too many wrong tokens; try again in \(wait) s\", \"field\": \"Authorization\"}\n")
            : .html(429, SitePage.message(title: words.text("webSignIn"), text: words.text("webTooManyTries", ["seconds": String(wait)]), words: words))
        response.setHeader("Retry-After", String(wait))
        return response
    }

    /// A page handler that needs a login: without one, 401 with the login form.
    public func page(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            guard isAuthorized(request) else { return loginPage(status: 401, next: request.path, message: nil) }
            return try handler(request, parameters)
        }
    }

    /// A form handler: a login as for pages, a request from this site, and the CSRF value of the
    /// request's session; without them nothing runs.
    public func form(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            guard isAuthorized(request) else { return loginPage(status: 401, next: "/", message: words.text("webSessionEnded")) }
            guard isSameOrigin(request), let sent = request.form[Self.csrfField], Self.same(sent, csrf(for: request)) else {
                return .html(403, SitePage.message(title: words.text("webFormExpired"), text: words.text("webFormExpiredText"), words: words))
            }
            return try handler(request, parameters)
        }
    }

    /// An API handler: 401 with a JSON error unless the bearer token (or a session cookie) is given;
    /// a write (not GET or HEAD) also needs the bearer token or the `X-Datebook-CSRF` header, and
    /// no other site's `Origin`, even on loopback without a token. Failed tokens count toward the
    /// client's hold-back (429).
    public func api(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            let given = bearer(request)
            if token != nil, given != nil, let held = tooManyFailures(request, json: true) { return held }
            guard isAuthorized(request) else {
                if given != nil { failures.failed(request.client, now: clock()) }
                var response = WebResponse.json(401, "{\"error\": \"missing or wrong token\", \"field\": \"Authorization\"}\n")
                response.setHeader("WWW-Authenticate", "Bearer realm=\"datebook\"")
                return response
            }
            if given != nil, token != nil { failures.succeeded(request.client) }
            let write = !["GET", "HEAD"].contains(request.method.uppercased())
            if write {
                let byToken = token != nil && given.map { Self.same($0, token ?? "") } == true
                guard isSameOrigin(request), byToken || !(request.header(Self.csrfHeader) ?? "").isEmpty else {
                    return .json(403, "{\"error\": \"a write needs the bearer token or the \(Self.csrfHeader) header, from this site\", \"field\": \"\(Self.csrfHeader)\"}\n")
                }
            }
            return try handler(request, parameters)
        }
    }

    /// `GET /login`, `POST /login` (the form that asks for the token once and starts a session) and
    /// `POST /logout` (ends it).
    public func loginRoutes() -> Routes {
        var routes = Routes()
        routes.add("GET", "/login") { [self] request, _ in
            loginPage(status: 200, next: request.query["next"] ?? "/", message: nil)
        }
        routes.add("POST", "/login") { [self] request, _ in
            let form = request.form
            let next = Self.localPath(form["next"] ?? "/")
            guard isSameOrigin(request), let sent = form[Self.csrfField], Self.same(sent, anonymousCSRF) else {
                return loginPage(status: 403, next: next, message: words.text("webLoginFormOld"))
            }
            guard let token else { return .seeOther(next) }
            if let held = tooManyFailures(request, json: false) { return held }
            guard let given = form["token"], Self.same(given, token) else {
                failures.failed(request.client, now: clock())
                return loginPage(status: 401, next: next, message: words.text("webWrongToken"))
            }
            failures.succeeded(request.client)
            let session = sessions.start(now: clock(), lifetime: Self.sessionLifetime)
            var response = WebResponse.seeOther(next)
            response.setHeader("Set-Cookie", "\(Self.sessionCookie)=\(session.id); Path=/; Max-Age=\(Int(Self.sessionLifetime)); HttpOnly; SameSite=Strict"
                + (secureCookie ? "; Secure" : ""))
            return response
        }
        routes.add("POST", "/logout") { [self] request, _ in
            if let session = session(request) {
                guard isSameOrigin(request), let sent = request.form[Self.csrfField], Self.same(sent, session.csrf) else {
                    return .html(403, SitePage.message(title: words.text("webFormExpired"), text: words.text("webFormExpiredText"), words: words))
                }
                sessions.end(session.id)
            }
            var response = WebResponse.seeOther("/login")
            response.setHeader("Set-Cookie", "\(Self.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : ""))
            return response
        }
        return routes
    }

    /// Only a path on this server (`/…`), so a form's `next` cannot redirect elsewhere: not `//host`,
    /// no backslash, no space or control character (browsers drop tabs and newlines, and `/\t/host`
    /// would become `//host`); anything else is `/`.
    public static func localPath(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }
        return safe && text.hasPrefix("/") && !text.hasPrefix("//") ? text : "/"
    }

    func loginPage(status: Int, next: String, message: String?) -> WebResponse {
        .html(status, SitePage.login(next: Self.localPath(next), csrf: anonymousCSRF, message: message, words: words))
    }
}

/// The few pages the server room draws itself (the login form and messages); the planner's pages
/// come from templates. Plain, escaped, styled by `/static/site.css` only, in the catalogue's language.
public enum SitePage {
    public static func escape(_ text: String) -> String { HTMLText.escape(text) }

    static func document(title: String, body: String, language: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(escape(language))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(escape(title)) · datebook</title>
        <link rel="stylesheet" href="/static/site.css">
        <link rel="icon" href="/favicon.svg" type="image/svg+xml">
        </head>
        <body>
        <nav class="bar"><span class="links"><a href="/">datebook</a></span></nav>
        <main class="page narrow">
        \(body)
        </main>
        </body>
        </html>

        """
    }

    public static func message(title: String, text: String, words: MessageCatalog) -> String {
        document(title: title, body: "<h1>\(escape(title))</h1>\n<p>\(escape(text))</p>\n<p><a href=\"/\">\(escape(words.text("webBackToAgendaLink")))</a></p>",
                 language: words.language)
    }

    static func login(next: String, csrf: String, message: String?, words: MessageCatalog) -> String {
        document(title: words.text("webSignIn"), body: """
        <h1>datebook</h1>
        <form method="post" action="/login" class="login">
        <input type="hidden" name="next" value="\(escape(next))">
        <input type="hidden" name="csrf" value="\(csrf)">
        <label for="token">\(escape(words.text("webTokenLabel")))</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
        <button type="submit">\(escape(words.text("webSignIn")))</button>
        </form>
        \(message.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? "")
        """, language: words.language)
    }
}
