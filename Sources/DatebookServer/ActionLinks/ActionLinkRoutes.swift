import DatebookCore
import DatebookRender
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
    /// The site's templates (`web-action.html.mustache` in `web-layout.html.mustache`).
    public var renderer: DigestRenderer
    /// The moment a request is handled (`--now` pins it for reproducible runs).
    public var clock: @Sendable () -> Date
    /// The pages' words (the config's `locale`) and their `lang` (`de-DE`).
    public var words: MessageCatalog
    public var lang: String
    /// `alerts.channels`: a snooze is a new alert delivery, which the next pass cancels on any
    /// other channel, so a Snooze or Tomorrow link from another channel (`send alert --channel`)
    /// is answered with why it cannot work, and changes nothing. Nil: not checked.
    public var alertChannels: [String]?

    public init(storePath: String, calendar: Calendar, renderer: DigestRenderer, words: MessageCatalog = .english, lang: String = "en-US",
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.storePath = storePath
        self.calendar = calendar
        self.renderer = renderer
        self.words = words
        self.lang = lang
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
        let store = try StoreOpener.open(storePath, readOnly: true)
        let page: ActionLinkPage
        do {
            let checked = try ActionLinks(store: store, calendar: calendar).check(token, now: clock())
            if let refused = undeliverable(checked.link) { return try refused.response(renderer, timeZone: calendar.timeZone, words: words, lang: lang) }
            page = .confirmation(checked, token: token, csrf: try Self.csrf(token: token, store: store), words: words)
        } catch let refusal as ActionLink.Refusal {
            page = .refused(refusal, words: words)
        }
        return try page.response(renderer, timeZone: calendar.timeZone, words: words, lang: lang)
    }

    /// Acts on a link posted from its confirmation page.
    func act(_ token: String, _ request: WebRequest) throws -> WebResponse {
        try answer(token, request).response(renderer, timeZone: calendar.timeZone, words: words, lang: lang)
    }

    func answer(_ token: String, _ request: WebRequest) throws -> ActionLinkPage {
        if request.header("sec-fetch-site") == "cross-site" {
            return .forbidden("actionCrossSite", words: words)
        }
        let store = try StoreOpener.open(storePath, readOnly: false)
        let expected = try Self.csrf(token: token, store: store)
        guard let sent = request.form[SiteAuth.csrfField], !expected.isEmpty, SiteAuth.same(sent, expected) else {
            return .forbidden("actionWrongOrigin", words: words)
        }
        let links = ActionLinks(store: store, calendar: calendar)
        do {
            let checked = try links.check(token, now: clock())
            if let refused = undeliverable(checked.link) { return refused }
            let event = checked.event
            return .result(try links.perform(token, now: clock()), event: event, calendar: calendar, words: words)
        } catch let refusal as ActionLink.Refusal {
            return .refused(refusal, words: words)
        }
    }

    /// The page that refuses a snooze on a channel the next pass would cancel it on; nil otherwise.
    func undeliverable(_ link: ActionLink) -> ActionLinkPage? {
        guard link.action != .done, let alertChannels, !alertChannels.contains(link.channel) else { return nil }
        return ActionLinkPage(status: 409, heading: words.text("actionNothingChanged"),
                              message: words.text("actionSnoozeNoChannel", ["channel": link.channel]))
    }

    /// The form's CSRF value: an HMAC of the link under the store's key, so a POST must carry what
    /// only the confirmation page shows (and a page loaded before a restart still works). Empty,
    /// and every POST refused, without a key.
    static func csrf(token: String, store: any PlannerStore) throws -> String {
        guard let key = try store.storedSecret(named: Store.actionLinkKeyName) else { return "" }
        return HMACSHA256.authenticationCode(key: key, message: Data(("confirm\0" + token).utf8)).hexString
    }
}
