import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// `/a/{token}`: an alert's action link. `GET` (and `HEAD`) only checks the link and shows a
/// confirmation page with one button, because chat services, mail scanners and link previewers
/// fetch every URL they see; the button's `POST` acts (once) and shows the result. Any other
/// method gets 405 from the route table. The signed link is its own credential: these routes need
/// no login, and a refused link (malformed, forged, expired, used, event gone) changes nothing.
public struct ActionLinkRoutes: Sendable {
    /// The store's file; each request opens its own connection (SQLite waits for a writer).
    public var storePath: String
    /// The user's zone: Tomorrow 9:00 is 09:00 there, and the pages show times in it.
    public var calendar: Calendar
    /// The moment a request is handled (`--now` pins it for reproducible runs).
    public var clock: @Sendable () -> Date

    public init(storePath: String, calendar: Calendar, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.storePath = storePath
        self.calendar = calendar
        self.clock = clock
    }

    public var routes: Routes {
        var routes = Routes()
        routes.add("GET", "/a/{token}") { _, parameters in try confirm(parameters["token"] ?? "") }
        routes.add("POST", "/a/{token}") { request, parameters in try act(parameters["token"] ?? "", request) }
        return routes
    }

    /// The confirmation page: what the link would do, and a form that posts it back.
    func confirm(_ token: String) throws -> WebResponse {
        let store = try Store(path: storePath)
        let links = ActionLinks(store: store, calendar: calendar)
        do {
            let checked = try links.check(token, now: clock())
            let proof = try Self.formProof(token: token, store: store)
            return ActionLinkPage.confirmation(checked, token: token, proof: proof, calendar: calendar)
        } catch let refusal as ActionLink.Refusal {
            return ActionLinkPage.refused(refusal)
        }
    }

    /// Acts on a link posted from its confirmation page.
    func act(_ token: String, _ request: WebRequest) throws -> WebResponse {
        if let site = request.header("sec-fetch-site"), site == "cross-site" {
            return ActionLinkPage.forbidden("This form was sent from another site; open the link itself and press its button.")
        }
        let store = try Store(path: storePath)
        let expected = try Self.formProof(token: token, store: store)
        guard let proof = request.form["proof"], !expected.isEmpty,
              ActionLink.constantTimeEqual(Data(proof.utf8), Data(expected.utf8)) else {
            return ActionLinkPage.forbidden("This request did not come from the link's own page; open the link and press its button.")
        }
        let links = ActionLinks(store: store, calendar: calendar)
        do {
            let title = try links.check(token, now: clock()).event.title
            return ActionLinkPage.done(try links.perform(token, now: clock()), title: title, calendar: calendar)
        } catch let refusal as ActionLink.Refusal {
            return ActionLinkPage.refused(refusal)
        }
    }

    /// The form's CSRF proof: an HMAC of the link under the store's key, so a POST must carry
    /// what only the confirmation page shows. Empty (and every proof refused) without a key.
    static func formProof(token: String, store: Store) throws -> String {
        guard let key = try store.storedSecret(named: Store.actionLinkKeyName) else { return "" }
        return HMACSHA256.authenticationCode(key: key, message: Data(("confirm\0" + token).utf8)).hexString
    }
}
