import DatebookCore
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

    /// The export as the feed serves it, from the cache while the store is unchanged. DTSTAMP is the
    /// store's modification time, so the bytes (and the ETag) change only with the planner.
    func feedDocument() throws -> FeedDocument {
        try feed.value(storePath: settings.storePath) { signature in
            let dtstamp = Date(timeIntervalSince1970: TimeInterval(signature[0]))
            var body: [UInt8] = []
            try store(now: dtstamp, readOnly: true).export(.ics, dtstamp: dtstamp, warn: { _ in }) { body += $0 }
            return FeedDocument(body: body)
        }
    }

    /// `GET /calendar.ics`: `datebook export --format ics`, with an ETag; a matching `If-None-Match` gets 304.
    func calendarFeed(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        let entry = try feedDocument()
        let headers: [(name: String, value: String)] = [("ETag", entry.etag), ("Cache-Control", "no-cache")]
        if let match = request.header("if-none-match"), match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == entry.etag }) {
            return WebResponse(status: 304, headers: headers)
        }
        return WebResponse(status: 200, headers: [("Content-Type", "text/calendar; charset=utf-8")] + headers, body: entry.body)
    }
}
