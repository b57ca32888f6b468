import DatebookCore
import DatebookRender
import DatebookScheduler
import DatebookStore
import Foundation
import Synchronization

/// What the site's handlers need to know, as a value threads can share.
public struct SiteSettings: Sendable {
    /// The store's file; each request opens its own connection.
    public var storePath: String
    /// The user's calendar and zone: the pages' times and periods.
    public var calendar: Calendar
    /// `--now` or `DATEBOOK_NOW`: every request sees this time (reproducible tests).
    public var pinnedNow: Date?
    /// The user's templates folder (`web-*.mustache` and `locales/LANG.json` there override the built-in ones).
    public var templates: String
    /// `serve.baseURL`: the address people reach the server at (the feed's `webcal://` link).
    public var baseURL: String?
    /// `serve.feedToken`, resolved: the feed's address then carries it.
    public var feedToken: String?

    public init(storePath: String, calendar: Calendar, pinnedNow: Date?, templates: String, baseURL: String?, feedToken: String?) {
        self.storePath = storePath
        self.calendar = calendar
        self.pinnedNow = pinnedNow
        self.templates = templates
        self.baseURL = baseURL
        self.feedToken = feedToken
    }

    /// The time of a request: the pinned one, else now to the second.
    func now() -> Date {
        pinnedNow ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}

/// The planner on the web: the route table of `datebook serve` (pages, forms, feed, API).
public struct PlannerSite: Sendable {
    let settings: SiteSettings
    let auth: SiteAuth
    public let renderer: DigestRenderer
    /// The config's `locale` (`en_US` without one): the pages' words and dates.
    public let locale: DigestLocale
    let stylesheet: [UInt8]
    /// The feed and the agenda share one change check (one inotify watch, one `-shm` mapping).
    let feed: StoreCache<FeedDocument>
    let agenda: StoreCache<PlaceholderPage>
    /// Where the server listens, known once it has bound its port.
    let served = SharedValue(ListenAddress.standard.description)
    /// The feed token made in the store, once read.
    let storedFeedToken = SharedValue<String?>(nil)
    /// Stands for the session's CSRF value in the cached agenda, which every session shares;
    /// replaced per request (random, so no event text can hold it).
    let csrfPlaceholder = SiteAuth.randomHex()

    public init(settings: SiteSettings, auth: SiteAuth, locale: DigestLocale) throws {
        self.settings = settings
        self.auth = auth
        let changes = StoreChangeSignal()
        feed = StoreCache(changes: changes)
        agenda = StoreCache(changes: changes)
        renderer = try DigestRenderer(overrideDirectory: settings.templates)
        self.locale = locale
        let colors = MustacheValue.array(EventColor.allCases.map { ["name": .string($0.rawValue), "hex": .string($0.hex)] })
        stylesheet = Array(try renderer.renderPage("web.css.mustache", ["colors": colors], escaped: false).utf8)
    }

    /// Exports the feed again now if the store changed, so the next phone that polls finds it made
    /// (the export of 10,000 events takes longer than a request should). One at a time.
    public func warmFeed() {
        feed.refreshInBackground { [self] in _ = try? feedDocument() }
    }

    public func routes() -> Routes {
        var routes = auth.loginRoutes()
        routes.add("GET", "/static/site.css") { [stylesheet] _, _ in
            WebResponse(status: 200, headers: [("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", "max-age=300")], body: stylesheet)
        }
        for path in ["/favicon.svg", "/favicon.ico"] {
            routes.add("GET", path) { _, _ in
                WebResponse(status: 200, headers: [("Content-Type", "image/svg+xml"), ("Cache-Control", "max-age=86400")], body: Self.favicon)
            }
        }
        routes.errorPage = { [self] status, text in errorPage(status, text) }
        routes.add("GET", "/", auth.page(agendaPage))
        routes.add("GET", "/events/{id}", auth.page(eventPage))
        routes.add("POST", "/events/{id}/task", auth.form(setTaskStatus))
        routes.add("POST", "/events/{id}/tasks", auth.form(addTask))
        routes.add("GET", "/events/{id}/edit", auth.page(editEventPage))
        routes.add("POST", "/events", auth.form(createEvent))
        routes.add("POST", "/events/{id}", auth.form(updateEvent))
        routes.add("POST", "/events/{id}/delete", auth.form(deleteEvent))
        // After /events/{id}: a later route wins, so `new` is never taken for an id.
        routes.add("GET", "/events/new", auth.page(newEventPage))
        routes.add("GET", "/month/{month}", auth.page(monthPage))
        routes.add("GET", "/day/{day}", auth.page(dayPage))
        routes.add("GET", "/period/{period}", auth.page(periodPage))
        // Made once: a method reference made per request copied the whole site each time.
        let feed = auth.api(calendarFeed)
        routes.add("GET", "/calendar.ics") { [self] request, parameters in
            if let given = request.query["token"] {
                return try feedByToken(given, request, parameters) { try feed(request, parameters) }
            }
            return try feed(request, parameters)
        }
        routes.add("GET", "/feeds/{token}/calendar.ics") { [self] request, parameters in
            try feedByToken(parameters["token"] ?? "", request, parameters) { .text(404, "Not found.\n") }
        }
        routes.add("GET", "/api/v1/agenda", auth.api(apiAgenda))
        routes.add("GET", "/api/v1/events/{id}", auth.api(apiEvent))
        routes.add("PATCH", "/api/v1/events/{id}/tasks/{n}", auth.api(apiSetTask))
        routes.add("POST", "/api/v1/events", auth.api(apiCreateEvent))
        routes.add("PATCH", "/api/v1/events/{id}", auth.api(apiUpdateEvent))
        routes.add("DELETE", "/api/v1/events/{id}", auth.api(apiDeleteEvent))
        return routes
    }

    /// The feed when `given` is the feed token, else `refused()`; a wrong one counts toward the
    /// client's hold-back like a wrong login (the feed token is a password too), and a client held
    /// back gets 429 whatever it sends.
    func feedByToken(_ given: String, _ request: WebRequest, _ parameters: RouteParameters,
                     refused: () throws -> WebResponse) throws -> WebResponse {
        if let held = auth.tooManyFailures(request, json: false) { return held }
        guard let token = try feedToken(making: false), SiteAuth.same(given, token) else {
            auth.failures.failed(request.client, now: auth.clock())
            return try refused()
        }
        return try calendarFeed(request, parameters)
    }

    /// The store for one request at `now` (read-only for pages and the feed); a request never
    /// extends the stored recurrence horizon.
    func store(now: Date, readOnly: Bool) throws -> any PlannerStore {
        let store = try StoreOpener.open(settings.storePath, readOnly: readOnly)
        store.recurrenceHorizon = Store.standardHorizon(now: now)
        return store
    }

    public var words: MessageCatalog { locale.words }

    /// `lang` of the pages (`de-DE`).
    public var lang: String { locale.identifier.replacingOccurrences(of: "_", with: "-") }

    /// A short page in the catalogue's words: `titleKey` as heading, then `text`.
    func messagePage(_ status: Int, _ titleKey: String, _ text: String) -> WebResponse {
        .html(status, SitePage.message(title: words.text(titleKey), text: text, words: words))
    }

    /// A failure as a page in the reader's words (`webError404` …); the English `text` is the
    /// fallback for a status the catalogue has no words for.
    func errorPage(_ status: Int, _ text: String) -> WebResponse {
        let key = "webError\(status)"
        let title = words.text(key)
        guard title != key else { return .text(status, text) }
        return .html(status, SitePage.message(title: title, text: words.text(key + "Text"), words: words))
    }

    /// The site's icon: a calendar page, drawn (no file to ship).
    static let favicon = Array("""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="5" width="26" height="24" rx="4" fill="#ffffff" stroke="#0a58ca" stroke-width="2"/><rect x="3" y="5" width="26" height="8" rx="3" fill="#0a58ca"/><rect x="9" y="2" width="3" height="7" rx="1" fill="#1c1c1e"/><rect x="20" y="2" width="3" height="7" rx="1" fill="#1c1c1e"/><path d="M10 20l4 4 8-8" fill="none" stroke="#1e7d34" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>

        """.utf8)

    /// `page` of every template's context: the CSRF token, this page's path and the feed links.
    /// Links are built from `serve.baseURL`, else the address the server listens at: never from the
    /// request's `Host`, which a client chooses.
    func page(_ request: WebRequest, csrf: String? = nil) throws -> MustacheValue {
        let base = settings.baseURL ?? "http://" + served.value
        let token = try feedToken(making: true)
        let feedPath = token.map { "/feeds/\($0)/calendar.ics" } ?? "/calendar.ics"
        let webcal = "webcal" + base.drop { $0 != ":" } + feedPath
        return ["csrf": .string(csrf ?? auth.csrf(for: request)), "path": .string(request.path), "feedPath": .string(feedPath),
                "webcalURL": .string(webcal), "feedHasToken": .bool(token != nil), "signedIn": .bool(auth.requiresToken)]
    }

    /// The feed's token: `serve.feedToken`, else, with `serve.token` set (calendar apps cannot sign
    /// in), one made in the store the first time a page shows the link (`making`), and kept there
    /// so subscriptions outlive a restart. Nil without either: the feed needs no login then.
    func feedToken(making: Bool) throws -> String? {
        if let configured = settings.feedToken { return configured }
        guard auth.requiresToken else { return nil }
        if let known = storedFeedToken.value { return known }
        let now = settings.now()
        let key = making ? try store(now: now, readOnly: false).secretKey(named: Self.feedTokenName, now: now)
            : try store(now: now, readOnly: true).storedSecret(named: Self.feedTokenName)
        guard let key else { return nil }
        let token = key.hexString
        storedFeedToken.value = token
        return token
    }

    /// The store's secret that is the feed token when the config names none.
    static let feedTokenName = "serve-feed-token"

    /// Tells the site where it is served (the feed link's host without `serve.baseURL`).
    public func served(at address: ListenAddress) {
        let wildcard = address.host == "0.0.0.0" || address.host == "::"
        served.value = wildcard ? ListenAddress(host: "127.0.0.1", port: address.port).description : address.description
    }
}

/// A value the site's copies share and may set later (the struct itself is copied into every route).
final class SharedValue<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>
    init(_ value: Value) { stored = Mutex(value) }
    var value: Value {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
