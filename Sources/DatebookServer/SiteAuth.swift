import DatebookCore
import DatebookRender
import Foundation

/// Who may use the server, and the CSRF token every form carries.
///
/// Without a token (allowed only on a loopback listener) everyone who can connect may. With one,
/// pages need the session cookie the login form sets (`HttpOnly; SameSite=Strict`), the API needs
/// `Authorization: Bearer TOKEN` (or the cookie), and a wrong or missing one gets 401 before any
/// handler runs, so nothing changes. The session and CSRF values are random per process: a restart
/// asks for the token again.
public struct SiteAuth: Sendable {
    public static let sessionCookie = "datebook_session"
    public static let csrfField = "csrf"

    let token: String?
    let session: String
    /// The value every form's hidden `csrf` field carries; a POST without it gets 403.
    public let csrf: String
    /// `Secure` on the cookie (the server is reached over https).
    let secureCookie: Bool
    /// The words of the login form and the refusals (the config's `locale`).
    public let words: MessageCatalog

    public init(token: String?, secureCookie: Bool, words: MessageCatalog = .english) {
        self.token = token
        self.secureCookie = secureCookie
        self.words = words
        session = Self.randomHex()
        csrf = Self.randomHex()
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

    /// True when the request may go on: no token configured, the session cookie, or the bearer token.
    public func isAuthorized(_ request: WebRequest) -> Bool {
        guard let token else { return true }
        if let cookie = request.cookies[Self.sessionCookie], Self.same(cookie, session) { return true }
        if let header = request.header("authorization"), header.hasPrefix("Bearer ") {
            return Self.same(String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces), token)
        }
        return false
    }

    /// A page handler that needs a login: without one, 401 with the login form.
    public func page(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            guard isAuthorized(request) else { return loginPage(status: 401, next: request.path, message: nil) }
            return try handler(request, parameters)
        }
    }

    /// A form handler: a login as for pages, and the form's CSRF token; without them nothing runs.
    public func form(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            guard isAuthorized(request) else { return loginPage(status: 401, next: "/", message: words.text("webSessionEnded")) }
            guard let sent = request.form[Self.csrfField], Self.same(sent, csrf) else {
                return .html(403, SitePage.message(title: words.text("webFormExpired"), text: words.text("webFormExpiredText"), words: words))
            }
            return try handler(request, parameters)
        }
    }

    /// An API handler: 401 with a JSON error unless the bearer token (or the session cookie) is given.
    public func api(_ handler: @escaping RouteHandler) -> RouteHandler {
        { [self] request, parameters in
            guard isAuthorized(request) else {
                var response = WebResponse.json(401, "{\"error\": \"missing or wrong token\", \"field\": \"Authorization\"}\n")
                response.setHeader("WWW-Authenticate", "Bearer realm=\"datebook\"")
                return response
            }
            return try handler(request, parameters)
        }
    }

    /// `GET /login` and `POST /login`: the form that asks for the token once and sets the cookie.
    public func loginRoutes() -> Routes {
        var routes = Routes()
        routes.add("GET", "/login") { [self] request, _ in
            loginPage(status: 200, next: request.query["next"] ?? "/", message: nil)
        }
        routes.add("POST", "/login") { [self] request, _ in
            let form = request.form
            let next = Self.localPath(form["next"] ?? "/")
            guard let sent = form[Self.csrfField], Self.same(sent, csrf) else {
                return loginPage(status: 403, next: next, message: words.text("webLoginFormOld"))
            }
            guard let token else { return .seeOther(next) }
            guard let given = form["token"], Self.same(given, token) else {
                return loginPage(status: 401, next: next, message: words.text("webWrongToken"))
            }
            var response = WebResponse.seeOther(next)
            response.setHeader("Set-Cookie", "\(Self.sessionCookie)=\(session); Path=/; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : ""))
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
        .html(status, SitePage.login(next: Self.localPath(next), csrf: csrf, message: message, words: words))
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
        </head>
        <body>
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
