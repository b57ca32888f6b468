import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// The JSON API (`/api/v1/…`) and the iCalendar feed. API errors are JSON naming the wrong field.
extension PlannerSite {
    static func apiError(_ status: Int, _ message: String, field: String) -> WebResponse {
        .json(status, "{\"error\": \(JSONText.quote(message)), \"field\": \(JSONText.quote(field))}\n")
    }

    /// `GET /api/v1/agenda?period=next7`: what `datebook list --json --period next7` prints.
    func apiAgenda(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        let name = request.query["period"] ?? "all"
        guard let periods = AgendaJSON.periods(named: name) else { return Self.apiError(400, AgendaJSON.unknownPeriod(name), field: "period") }
        let now = settings.now()
        var text = ""
        try store(now: now, readOnly: true).writeAgendaJSON(periods: periods, now: now, calendar: settings.calendar) { text += $0 }
        return .json(200, text)
    }

    /// `GET /api/v1/events/{id}`: the event as `list --json` shows an occurrence (its first start).
    func apiEvent(_: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let id = parameters["id"] ?? ""
        guard let event = try store(now: settings.now(), readOnly: true).event(id: id) else {
            return Self.apiError(404, "no event with id \(id)", field: "id")
        }
        return eventJSON(event)
    }

    /// `PATCH /api/v1/events/{id}/tasks/{n}` with `{"status": "done"}`: task n (from 1) gets the status.
    func apiSetTask(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let root: JSONNode
        do {
            root = try JSONParser.parse(request.body)
        } catch let error as JSONSyntaxError {
            return Self.apiError(400, "the body is not JSON: \(error.message) (line \(error.line), column \(error.column))", field: "body")
        }
        guard case .object = root.value else { return Self.apiError(400, "expected an object like {\"status\": \"done\"}", field: "body") }
        guard let statusNode = root["status"] else { return Self.apiError(400, "missing: expected todo, doing or done", field: "status") }
        guard case .string(let text) = statusNode.value, let status = TaskStatus(rawValue: text) else {
            return Self.apiError(400, "expected todo, doing or done, got \(statusNode)", field: "status")
        }
        let store = try store(now: settings.now(), readOnly: false)
        let id = parameters["id"] ?? ""
        guard var event = try store.event(id: id) else { return Self.apiError(404, "no event with id \(id)", field: "id") }
        guard let n = Int(parameters["n"] ?? ""), n >= 1, n <= event.tasks.count else {
            let range = event.tasks.isEmpty ? "the event has no tasks" : "expected 1…\(event.tasks.count)"
            return Self.apiError(404, "no task \(parameters["n"] ?? ""): \(range)", field: "n")
        }
        event.tasks[n - 1].status = status
        try store.save(event)
        return eventJSON(event)
    }

    /// The event as `list --json` shows an occurrence (its first start).
    func eventJSON(_ event: Event) -> WebResponse {
        .json(200, AgendaJSON.occurrence(Occurrence(event: event, calendar: settings.calendar), timeZone: settings.calendar.timeZone) + "\n")
    }

    /// The export as the feed serves it, from the cache while the store is unchanged.
    ///
    /// The ETag and DTSTAMP follow the planner's content, not the store's files: the export is made
    /// with a placeholder DTSTAMP and hashed; the same hash as the last document (a WAL checkpoint, a
    /// write that changed nothing) keeps that document, bytes and all. New content is stamped with
    /// the store's latest modification time (its file or its write-ahead log), which is also the
    /// feed's `Last-Modified`.
    func feedDocument() throws -> FeedDocument {
        try feed.value(storePath: settings.storePath) { signature in
            let previous = feed.current
            var body: [UInt8] = []
            try store(now: settings.now(), readOnly: true).export(.ics, dtstamp: FeedDocument.placeholderStamp, warn: { _ in }) { body += $0 }
            let content = FeedDocument.contentTag(body)
            if let previous, previous.etag == content { return previous }
            let seconds = signature.count > 3 ? max(signature[0], signature[3]) : (signature.first ?? 0)
            let stamp = seconds > 0 ? Date(timeIntervalSince1970: TimeInterval(seconds)) : settings.now()
            return FeedDocument(placeholderBody: body, etag: content, stamp: stamp)
        }
    }

    /// `GET /calendar.ics`: `datebook export --format ics`, with a weak `ETag` (the content's) and
    /// `Last-Modified`. `If-None-Match` (weak comparison, `*` matches) or, without it,
    /// `If-Modified-Since` at or after `Last-Modified` gets 304, with no body and the 200's
    /// `Content-Length` (RFC 9110 section 8.6), on a connection kept open.
    func calendarFeed(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        let entry = try feedDocument()
        let headers: [(name: String, value: String)] = [("ETag", entry.etag), ("Last-Modified", entry.lastModified), ("Cache-Control", "no-cache")]
        if FeedDocument.notModified(entry, ifNoneMatch: request.header("if-none-match"), ifModifiedSince: request.header("if-modified-since"), now: settings.now()) {
            return WebResponse(status: 304, headers: headers + [("Content-Length", String(entry.body.count))])
        }
        return WebResponse(status: 200, headers: [("Content-Type", "text/calendar; charset=utf-8")] + headers, body: entry.body)
    }
}
