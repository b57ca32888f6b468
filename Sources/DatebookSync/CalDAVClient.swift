import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

/// WebDAV/CalDAV requests over Delivery's `HTTPClient`: discovery (RFC 6764, RFC 4791),
/// `sync-collection` (RFC 6578) and `calendar-multiget`. Every request carries basic auth;
/// redirects are followed here (same origin only, at most 5), so the method, body and
/// credentials are never sent elsewhere.
public struct CalDAVClient: Sendable {
    public let http: HTTPClient
    public let username: String
    let password: String
    /// PEM file of certificates to trust (a private CA, the tests' self-signed one).
    public let caInfo: String?
    /// Resources asked for per `calendar-multiget`.
    public var batchSize = 250
    /// Ask for `sync-collection` first; false goes straight to the `getctag` + ETag listing (tests,
    /// servers known to lack RFC 6578).
    public var syncCollection = true
    /// Ask `sync-collection` for each changed resource's `calendar-data` too, so the changes come
    /// in that one request (RFC 6578 §6.1 lets the report name any property); resources a server
    /// lists without it are fetched by `calendar-multiget`. False: ETags only (tests of that path).
    public var dataInSyncReport = true
    /// Seconds a request may go without a byte from the server (the account's `timeout`): a server
    /// may think for a long time before its first byte (Radicale took 76 s on a cold calendar of
    /// 10,000 events). A whole request may take ten times that, at least 5 minutes.
    public var timeout = CalDAVAccount.defaultTimeout

    public init(http: HTTPClient, username: String, password: String, caInfo: String? = nil) {
        self.http = http
        self.username = username
        self.password = password
        self.caInfo = caInfo
    }

    /// Sends one request, following same-origin redirects; 401 throws `.unauthorized`.
    func send(_ method: String, _ url: String, depth: String? = nil, body: String = "",
              headers: [HTTPRequest.Header] = []) throws -> (response: HTTPResponse, url: String) {
        var target = url
        for _ in 0...5 {
            var request = HTTPRequest(method: method, url: target, headers: headers, body: Data(body.utf8),
                                      timeout: TimeInterval(max(300, timeout * 10)), lowSpeedTime: timeout,
                                      maxResponseBytes: 512 << 20, caInfo: caInfo)
            if let depth { request.headers.append(HTTPRequest.Header("Depth", depth)) }
            if !body.isEmpty, request.header("Content-Type") == nil {
                request.headers.append(HTTPRequest.Header("Content-Type", "application/xml; charset=utf-8"))
            }
            request.authorize(username: username, password: password)
            let response: HTTPResponse
            switch http.perform(request) {
            case .success(let answer): response = answer
            case .failure(let error): throw CalDAVError.unreachable(error)
            }
            if response.status == 401 { throw CalDAVError.unauthorized(url: Self.shown(target)) }
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location"),
                let next = Self.resolve(location, against: target)
            else { return (response, target) }
            guard Self.origin(next) == Self.origin(target) else {
                throw CalDAVError.notCalDAV(url: Self.shown(target), reason: "redirected to another server, \(Self.shown(next))")
            }
            target = next
        }
        throw CalDAVError.notCalDAV(url: Self.shown(url), reason: "more than 5 redirects")
    }

    /// A request that must answer 207 Multi-Status; returns its responses and the URL that answered.
    func multistatus(_ method: String, _ url: String, depth: String, body: String) throws -> (DAVMultistatus, String) {
        let (response, answered) = try send(method, url, depth: depth, body: body)
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        let start = String(decoding: response.body.prefix(200), as: UTF8.self).lowercased()
        if contentType.hasPrefix("text/html") || start.contains("<!doctype html") || start.contains("<html") {
            throw CalDAVError.notCalDAV(url: Self.shown(answered), reason: "\(method) got an HTML page (HTTP \(response.status))")
        }
        guard response.status == 207 else {
            throw CalDAVError.status(url: Self.shown(answered), method: method, code: response.status)
        }
        do {
            return (try DAVMultistatus(xml: response.body, base: answered), answered)
        } catch let error as DAVXMLError {
            throw CalDAVError.malformed(url: Self.shown(answered), error)
        }
    }

    // MARK: Discovery

    static let calendarProps = """
        <D:resourcetype/><D:displayname/><I:calendar-color/><C:supported-calendar-component-set/><D:sync-token/><S:getctag/>
        """

    static func propfind(_ props: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:S="http://calendarserver.org/ns/" \
        xmlns:I="http://apple.com/ns/ical/"><D:prop>\(props)</D:prop></D:propfind>
        """
    }

    /// The calendars of the account at `url` (a server root, principal, calendar home or one
    /// calendar): the URL itself, then `/.well-known/caldav`, then `current-user-principal`, then
    /// `calendar-home-set`, then the home's calendar collections.
    public func discover(_ url: String) throws -> [CalDAVCalendar] {
        var candidates = [url]
        if let origin = Self.origin(url), origin + "/.well-known/caldav" != url { candidates.append(origin + "/.well-known/caldav") }
        var firstError: CalDAVError?
        for candidate in candidates {
            let found: (DAVMultistatus, String)
            do {
                found = try multistatus("PROPFIND", candidate, depth: "0", body: Self.propfind(
                    "<D:current-user-principal/><C:calendar-home-set/><D:resourcetype/>" + Self.calendarProps))
            } catch let error as CalDAVError {
                if case .unauthorized = error { throw error }
                if case .unreachable = error { throw error }
                firstError = firstError ?? error
                continue
            }
            let (status, answered) = found
            guard let entry = status.responses.first else { continue }
            if entry.isCalendar { return [entry.calendar(account: "")].compactMap { $0 } }
            if let home = entry.href(DAVNamespace.caldav, "calendar-home-set") { return try calendars(in: home) }
            if let principal = entry.href(DAVNamespace.dav, "current-user-principal") {
                let (principalStatus, _) = try multistatus("PROPFIND", principal, depth: "0",
                                                           body: Self.propfind("<C:calendar-home-set/>"))
                guard let home = principalStatus.responses.first?.href(DAVNamespace.caldav, "calendar-home-set") else {
                    throw CalDAVError.notCalDAV(url: Self.shown(principal), reason: "the principal has no calendar-home-set")
                }
                return try calendars(in: home)
            }
            firstError = firstError ?? .notCalDAV(url: Self.shown(answered), reason: "no current-user-principal")
        }
        throw firstError ?? CalDAVError.noCalendars(url: Self.shown(url))
    }

    /// The calendar collections directly inside `home`.
    func calendars(in home: String) throws -> [CalDAVCalendar] {
        let (status, _) = try multistatus("PROPFIND", home, depth: "1", body: Self.propfind(Self.calendarProps))
        let calendars = status.responses.filter(\.isCalendar).compactMap { $0.calendar(account: "") }
        guard !calendars.isEmpty else { throw CalDAVError.noCalendars(url: Self.shown(home)) }
        return calendars
    }

    // MARK: Sync

    /// What changed in a calendar since `token`: each present resource with its ETag, the removed
    /// ones, and the new token. `full` when this is a complete listing (no token, or the server
    /// no longer knew it: 403/409 `valid-sync-token`), so anything held and not listed is gone.
    public struct Changes: Sendable {
        public var present: [String: String?]
        public var removed: [String]
        public var token: String?
        public var full: Bool
        /// The calendar's `getctag`, when the listing came from it.
        public var ctag: String? = nil
        /// Resources whose text came with the listing (`dataInSyncReport`), by URL: no multiget for them.
        public var resources: [String: CalDAVResource] = [:]
    }

    /// What changed since `token` (RFC 6578). With a token, the calendar's `getctag` is asked first
    /// (`PROPFIND`, Depth 0): the same one as `ctag` is no change, that one request; another one
    /// (read before the report, so a change in between shows at the next sync) is returned with
    /// the report's answer to be stored (a server without `getctag` costs two requests a sync).
    /// Radicale answers `getctag` in about 2/3 of an unchanged `sync-collection`'s time (both
    /// hash every item; bench/results-caldav.md). Where the server
    /// has no `sync-collection` (403, 405 or 501 to it without a token), from `getctag` alone: the
    /// same ctag is no change, another one lists every resource's ETag (`full`).
    public func changes(in calendar: String, since token: String?, ctag: String? = nil) throws -> Changes {
        guard syncCollection else { return try listing(calendar, ctag: ctag) }
        var current: String?
        if let token {
            current = try self.ctag(of: calendar)
            if let current, current == ctag { return Changes(present: [:], removed: [], token: token, full: false, ctag: ctag) }
        }
        do {
            var changes = try syncReport(calendar, since: token)
            changes.ctag = current
            return changes
        } catch CalDAVError.status(_, _, let code) where token == nil && [403, 405, 501].contains(code) {
            return try listing(calendar, ctag: ctag)
        }
    }

    /// The calendar's `getctag` (a CalendarServer extension most servers have), nil without one.
    func ctag(of calendar: String) throws -> String? {
        let (status, _) = try multistatus("PROPFIND", calendar, depth: "0", body: Self.propfind("<S:getctag/>"))
        return status.responses.first?.prop(DAVNamespace.calendarServer, "getctag")?.text.trimmed
    }

    /// The `getctag` + ETag fallback.
    func listing(_ calendar: String, ctag known: String?) throws -> Changes {
        let ctag = try self.ctag(of: calendar)
        if let ctag, ctag == known { return Changes(present: [:], removed: [], token: nil, full: false, ctag: ctag) }
        let (all, _) = try multistatus("PROPFIND", calendar, depth: "1", body: Self.propfind("<D:getetag/>"))
        var present: [String: String?] = [:]
        for entry in all.responses where entry.url != calendar { present[entry.url] = entry.prop(DAVNamespace.dav, "getetag")?.text }
        return Changes(present: present, removed: [], token: nil, full: true, ctag: ctag)
    }

    func syncReport(_ calendar: String, since token: String?) throws -> Changes {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:sync-collection xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:sync-token>\(DAVXML.escape(token ?? ""))</D:sync-token>\
            <D:sync-level>1</D:sync-level><D:prop><D:getetag/>\(dataInSyncReport ? "<C:calendar-data/>" : "")</D:prop></D:sync-collection>
            """
        let status: DAVMultistatus
        do {
            (status, _) = try multistatus("REPORT", calendar, depth: "0", body: body)
        } catch CalDAVError.status(_, _, let code) where token != nil && (code == 403 || code == 409) {
            // The token expired or was never the server's (RFC 6578 §3.2 valid-sync-token): list it all.
            return try syncReport(calendar, since: nil)
        }
        var result = Changes(present: [:], removed: [], token: status.syncToken, full: token == nil)
        for entry in status.responses where entry.url != calendar {
            if entry.status == 404 {
                result.removed.append(entry.url)
            } else {
                let etag = entry.prop(DAVNamespace.dav, "getetag")?.text
                result.present[entry.url] = etag
                if let text = entry.calendarData { result.resources[entry.url] = Self.resource(entry.url, etag: etag, text: text) }
            }
        }
        return result
    }

    /// The text and ETag of each resource in `urls`, of a calendar whose listing holds `listed`
    /// resources; URLs the server no longer has are left out.
    ///
    /// A few come by `calendar-multiget`, `batchSize` at a time. More than one batch that is at
    /// least half the calendar (a first sync from a server whose `sync-collection` leaves the texts
    /// out, as Xandikos does) comes by one `calendar-query` for every resource instead: Xandikos
    /// answered 10,000 that way in 0.6 s, against 4.5 s for 40 multigets (docs/caldav.md, "Pull").
    /// What the query did not bring, or all of them when the server refuses it, comes by multiget.
    public func resources(_ urls: [String], in calendar: String, listed: Int) throws -> [CalDAVResource] {
        guard urls.count > batchSize, urls.count * 2 >= listed else { return try multiget(urls, in: calendar) }
        var found: [String: CalDAVResource] = [:]
        do {
            for resource in Self.withTexts(try multistatus("REPORT", calendar, depth: "1", body: Self.everyResource).0) {
                found[resource.url] = resource
            }
        } catch let error as CalDAVError {
            // Refused or not understood (a server without the query, or one that limits its
            // answers): multigets alone. No answer at all, or a refused login, ends the sync.
            switch error {
            case .status, .notCalDAV, .malformed: break
            default: throw error
            }
        }
        return urls.compactMap { found[$0] } + (try multiget(urls.filter { found[$0] == nil }, in: calendar))
    }

    /// `calendar-query` for every resource of a calendar with its text (RFC 4791 §7.8: a filter
    /// on VCALENDAR alone matches every calendar object).
    static let everyResource = """
        <?xml version="1.0" encoding="utf-8"?>
        <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">\
        <D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>
        """

    /// `calendar-multiget` of `urls`, `batchSize` at a time.
    func multiget(_ urls: [String], in calendar: String) throws -> [CalDAVResource] {
        var result: [CalDAVResource] = []
        var start = 0
        while start < urls.count {
            let batch = urls[start..<min(urls.count, start + batchSize)]
            start += batchSize
            let hrefs = batch.map { "<D:href>\(DAVXML.escape(Self.path($0)))</D:href>" }.joined()
            let body = """
                <?xml version="1.0" encoding="utf-8"?>
                <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">\
                <D:prop><D:getetag/><C:calendar-data/></D:prop>\(hrefs)</C:calendar-multiget>
                """
            result += Self.withTexts(try multistatus("REPORT", calendar, depth: "1", body: body).0)
        }
        return result
    }

    /// The resources of a multistatus that came with their text (`calendar-data`).
    static func withTexts(_ status: DAVMultistatus) -> [CalDAVResource] {
        status.responses.compactMap { entry in
            entry.calendarData.map { resource(entry.url, etag: entry.prop(DAVNamespace.dav, "getetag")?.text, text: $0) }
        }
    }

    static func resource(_ url: String, etag: String?, text: String) -> CalDAVResource {
        CalDAVResource(url: url, etag: etag, uid: ICalResources.uid(of: text) ?? url, text: text)
    }

    // MARK: Writing

    /// `PUT` of one resource: `If-Match: etag` when replacing, `If-None-Match: *` when new. The
    /// answer as it came (412: changed on the server since; 403/507: refused).
    public func put(_ url: String, text: String, ifMatch etag: String?) throws -> HTTPResponse {
        let condition = etag.map { HTTPRequest.Header("If-Match", $0) } ?? HTTPRequest.Header("If-None-Match", "*")
        return try send("PUT", url, body: text, headers: [HTTPRequest.Header("Content-Type", "text/calendar; charset=utf-8"), condition]).response
    }

    /// `DELETE` with `If-Match` when the ETag is known.
    public func delete(_ url: String, ifMatch etag: String?) throws -> HTTPResponse {
        try send("DELETE", url, headers: etag.map { [HTTPRequest.Header("If-Match", $0)] } ?? []).response
    }

    /// The server's current text and ETag of one resource, or nil when it has none.
    public func get(_ url: String) throws -> (text: String, etag: String?)? {
        let response = try send("GET", url).response
        if response.status == 404 || response.status == 410 { return nil }
        guard response.isSuccess else { throw CalDAVError.status(url: Self.shown(url), method: "GET", code: response.status) }
        return (String(decoding: response.body, as: UTF8.self), response.header("ETag"))
    }

    // MARK: URLs

    /// `reference` (absolute, or a path from the server) made absolute against `base`.
    static func resolve(_ reference: String, against base: String) -> String? {
        URL(string: reference, relativeTo: URL(string: base))?.absoluteString
    }

    /// `scheme://host[:port]`, lower case.
    static func origin(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return nil }
        return "\(scheme.lowercased())://\(host.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }

    /// The path (and query) of an absolute URL, as a multiget's `href` wants it.
    static func path(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The URL without user info or query, for messages.
    public static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "****" }
        components.user = nil
        components.password = nil
        components.query = nil
        return components.string ?? "****"
    }
}
