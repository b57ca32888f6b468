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
    let feed = StoreCache<FeedDocument>()
    let agenda = StoreCache<[UInt8]>()

    public init(settings: SiteSettings, auth: SiteAuth, locale: DigestLocale) throws {
        self.settings = settings
        self.auth = auth
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
        routes.add("GET", "/", auth.page(agendaPage))
        routes.add("GET", "/events/{id}", auth.page(eventPage))
        routes.add("POST", "/events/{id}/task", auth.form(setTaskStatus))
        routes.add("POST", "/events/{id}/tasks", auth.form(addTask))
        routes.add("GET", "/calendar.ics") { [self] request, parameters in
            if let token = settings.feedToken, let given = request.query["token"], SiteAuth.same(given, token) {
                return try calendarFeed(request, parameters)
            }
            return try auth.api(calendarFeed)(request, parameters)
        }
        routes.add("GET", "/feeds/{token}/calendar.ics") { [self] request, parameters in
            guard let token = settings.feedToken, SiteAuth.same(parameters["token"] ?? "", token) else { return .text(404, "Not found.\n") }
            return try calendarFeed(request, parameters)
        }
        routes.add("GET", "/api/v1/agenda", auth.api(apiAgenda))
        routes.add("GET", "/api/v1/events/{id}", auth.api(apiEvent))
        routes.add("PATCH", "/api/v1/events/{id}/tasks/{n}", auth.api(apiSetTask))
        return routes
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

    /// `page` of every template's context: the CSRF token, this page's path and the feed links.
    func page(_ request: WebRequest) -> MustacheValue {
        let base = settings.baseURL ?? "http://" + (request.header("host") ?? "127.0.0.1")
        let feedPath = settings.feedToken.map { "/feeds/\($0)/calendar.ics" } ?? "/calendar.ics"
        let webcal = "webcal" + base.drop { $0 != ":" } + feedPath
        return ["csrf": .string(auth.csrf), "path": .string(request.path), "feedPath": .string(feedPath),
                "webcalURL": .string(webcal), "feedHasToken": .bool(settings.feedToken != nil)]
    }
}

/// The last answer made from the store, made again only when its key changes: a SQLite store's
/// files' modification times and sizes, a PostgreSQL store's data version (`StoreDataVersion`),
/// plus whatever else the answer depends on (the second of `now`, the Host header).
///
/// `GET /calendar.ics` with a matching `If-None-Match` then costs two `stat` calls and one pragma instead of an
/// export, and `GET /` one render per second instead of one per request: 5,000 requests/s on two
/// cores leave about 0.4 ms of CPU each, and the agenda's query and render take about 2 ms
/// (bench/results-serve.md). The plain path is the same closure, run every time the key changes.
final class StoreCache<Value: Sendable>: Sendable {
    struct Key: Sendable, Equatable {
        var store: [Int]
        var extra: [String]
    }

    private let entry = Mutex<(key: Key, value: Value)?>(nil)
    private let dataVersion = StoreDataVersion()
    private let refreshing = Mutex(false)
    /// Held while a value is made: a request that finds the cache stale while another thread (the
    /// background refresh after a change, or a request of the same second) makes it waits for that
    /// one instead of making it again beside it on the same two cores.
    private let making = Mutex(())

    /// Runs `refresh` (which reads through this cache) on a thread of its own, unless one still runs.
    func refreshInBackground(_ refresh: @escaping @Sendable () -> Void) {
        let start = refreshing.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            refresh()
            refreshing.withLock { $0 = false }
        }
    }

    /// The store file's and its write-ahead log's modification times and sizes (the store's
    /// modification time first), then the store's data version (-1 without one).
    func signature(of storePath: String) -> [Int] {
        let files = [storePath, storePath + "-wal"].flatMap { path -> [Int] in
            var info = stat()
            guard stat(path, &info) == 0 else { return [0, 0, 0] }
            return [info.st_mtim.tv_sec, info.st_mtim.tv_nsec, Int(info.st_size)]
        }
        // A PostgreSQL store has no file: its data version is the key. A SQLite store's files are
        // enough and cost two `stat` calls (reading the data version on every request, with the
        // request's own connection opened beside the kept one, changed it per request: 24k → 1.7k req/s).
        guard StoreLocation.isPostgres(storePath) else { return files }
        return files + [dataVersion.current(storePath) ?? -1]
    }

    /// The cached value when `storePath` and `extra` are as they were, else `make(signature)`,
    /// made by one thread at a time (the others wait, then find it cached).
    func value(storePath: String, extra: [String] = [], make: ([Int]) throws -> Value) throws -> Value {
        let key = Key(store: signature(of: storePath), extra: extra)
        if let cached = cached(key) { return cached }
        return try making.withLock { _ in
            if let cached = cached(key) { return cached }
            let value = try make(key.store)
            entry.withLock { $0 = (key, value) }
            return value
        }
    }

    private func cached(_ key: Key) -> Value? {
        entry.withLock { $0 }.flatMap { $0.key == key ? $0.value : nil }
    }
}

/// The feed's bytes and their ETag (a hash of the bytes: the same planner, the same tag).
struct FeedDocument: Sendable {
    var etag: String
    var body: [UInt8]

    init(body: [UInt8]) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        etag = "\"" + String(hash, radix: 16) + "-" + String(body.count) + "\""
        self.body = body
    }
}
