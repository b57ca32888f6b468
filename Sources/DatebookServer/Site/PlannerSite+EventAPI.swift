import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// `POST /api/v1/events`, `PATCH` and `DELETE /api/v1/events/{id}`: events made, changed and
/// removed through the API, in the shape `list --json` prints (`title`, `start`, `allDay`,
/// `symbol`, `color`, `location`, `url`, `repeats`, `tasks`) plus `end`, `timeZone`, `notes`,
/// `until`, `count` and `alerts`. Times are WHENs as `add --at` reads them (an ISO instant with an
/// offset is one). The checks and messages are `add`/`edit`'s; an error names the body's key.
extension PlannerSite {
    /// The body's key for each field, as errors name it.
    static func apiKey(_ field: EventField) -> String {
        field == .recurrence ? "repeats" : field.rawValue
    }

    static func apiError(_ error: EventFieldError, status: Int = 400) -> WebResponse {
        apiError(status, error.message(naming: apiKey), field: apiKey(error.field))
    }

    /// The body's members as the event form's text (`nil` members are left out: not changed).
    /// Throws a field error for a value of the wrong kind.
    static func apiChanges(_ body: [UInt8]) throws -> (changes: EventChanges, zone: String?, occurrence: String?) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(body)
        } catch let error as JSONSyntaxError {
            throw APIBodyError(message: "the body is not JSON: \(error.message) (line \(error.line), column \(error.column))", field: "body")
        }
        guard case .object(let members) = root.value else {
            throw APIBodyError(message: "expected an object like {\"title\": \"Dentist\", \"start\": \"2026-12-07 09:00\"}", field: "body")
        }
        let known = Set(EventField.allCases.map(apiKey) + ["recurrence", "occurrence"])
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw APIBodyError(message: "unknown key \"\(unknown.key)\"" + Suggestion.hint(for: unknown.key, in: known.sorted()), field: unknown.key)
        }
        func text(_ key: String) throws -> String? {
            guard let node = root[key] else { return nil }
            switch node.value {
            case .string(let value): return value
            case .null: return ""
            case .number(let value) where key == "count": return value
            default: throw APIBodyError(message: "expected a string, got \(node.kindDescription)", field: key)
            }
        }
        func list(_ key: String, member: String?) throws -> [String]? {
            guard let node = root[key] else { return nil }
            if case .null = node.value { return [] }
            guard case .array(let items) = node.value else { throw APIBodyError(message: "expected an array of strings, got \(node.kindDescription)", field: key) }
            return try items.enumerated().map { n, item in
                if case .string(let value) = item.value { return value }
                if let member, case .string(let value)? = item[member]?.value { return value }
                throw APIBodyError(message: "expected a string, got \(item.kindDescription)", field: "\(key)[\(n)]")
            }
        }
        var changes = EventChanges()
        changes.title = try text("title")
        changes.start = try text("start")
        if let end = try text("end") { if end.isEmpty { changes.clearEnd = true } else { changes.end = end } }
        if let node = root["allDay"] {
            guard case .bool(let value) = node.value else { throw APIBodyError(message: "expected true or false, got \(node.kindDescription)", field: "allDay") }
            changes.allDay = value
        }
        changes.symbol = try text("symbol")
        changes.color = try text("color")
        changes.location = try text("location")
        changes.url = try text("url")
        changes.notes = try text("notes")
        if let rule = try text("repeats") ?? text("recurrence") { changes.recurrence = rule.isEmpty ? "none" : rule }
        changes.until = try text("until")
        changes.count = try text("count")
        if let alerts = try list("alerts", member: nil) {
            changes.alerts = alerts
            changes.clearAlerts = alerts.isEmpty
        }
        changes.tasks = try list("tasks", member: "text") ?? []
        return (changes, try text("timeZone"), try text("occurrence"))
    }

    /// The zone named by the body (unknown: a field error), else `fallback`.
    static func zone(_ name: String?, default fallback: TimeZone) throws -> TimeZone {
        var form = EventForm()
        form.timeZone = name ?? ""
        return try form.zone(default: fallback)
    }

    func apiCreateEvent(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        try Self.answering {
            let body = try Self.apiChanges(request.body)
            guard body.occurrence == nil else { throw APIBodyError(message: "a new event has no occurrence to change", field: "occurrence") }
            let event = try makeEvent(body.changes, zone: Self.zone(body.zone, default: settings.calendar.timeZone))
            try store(now: settings.now(), readOnly: false).save(event)
            var response = eventJSON(event)
            response.status = 201
            response.setHeader("Location", "/api/v1" + Self.eventPath(event.id))
            return response
        }
    }

    /// `body()`, with a refused field or body as the JSON error that names it.
    static func answering(_ body: () throws -> WebResponse) throws -> WebResponse {
        do {
            return try body()
        } catch let error as EventFieldError {
            return apiError(error)
        } catch let error as APIBodyError {
            return apiError(error.status, error.message, field: error.field)
        }
    }

    /// The start of the occurrence `text` names (404 as an `APIBodyError` when there is none).
    func apiOccurrence(_ text: String, of event: Event, in store: any PlannerStore) throws -> EventStart {
        guard let instance = try occurrence(text, of: event, in: store) else {
            throw APIBodyError(message: "'\(TextWidth.clean(event.title))' has no occurrence starting at \(text)", field: "occurrence", status: 404)
        }
        return instance
    }

    /// `PATCH /api/v1/events/{id}`: the members given change; with `occurrence` (its start, an ISO
    /// instant as `list --json` shows it), only that occurrence of the series, as `edit --occurrence`.
    func apiUpdateEvent(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let store = try store(now: settings.now(), readOnly: false)
        let found = try changeable(parameters, store)
        guard case .success(var event) = found else { return found.refusal }
        return try Self.answering {
            let body = try Self.apiChanges(request.body)
            let parser = parser(try Self.zone(body.zone, default: TimeZone(identifier: event.timeZone) ?? settings.calendar.timeZone))
            if let text = body.occurrence {
                let instance = try apiOccurrence(text, of: event, in: store)
                for field in ["repeats", "recurrence", "until", "count"] where (try? JSONParser.parse(request.body))?[field] != nil {
                    throw APIBodyError(message: "\(field) changes the whole series; leave out occurrence", field: field)
                }
                return eventJSON(try body.changes.saveOverride(of: event, at: instance, in: store, parser: parser))
            }
            try body.changes.apply(to: &event, parser: parser, newTaskID: EventTask.newID)
            try EventChanges.validate(event)
            try store.save(event)
            return eventJSON(event)
        }
    }

    /// `DELETE /api/v1/events/{id}` (204); `?occurrence=ISO` cancels only that occurrence.
    func apiDeleteEvent(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let store = try store(now: settings.now(), readOnly: false)
        let found = try changeable(parameters, store)
        guard case .success(let event) = found else { return found.refusal }
        return try Self.answering {
            if let text = request.query["occurrence"] {
                try EventChanges.cancel(try apiOccurrence(text, of: event, in: store), of: event, in: store)
            } else {
                try EventChanges.delete(event, in: store)
            }
            return WebResponse(status: 204, headers: [])
        }
    }
}

/// The event an API write names, or the answer that refuses it.
enum Changeable {
    case success(Event)
    case refused(WebResponse)

    var refusal: WebResponse {
        if case .refused(let response) = self { return response }
        return WebResponse(status: 500, headers: [])
    }
}

extension PlannerSite {
    /// The event `{id}` names, unless there is none (404) or it comes from a feed (409: read-only).
    func changeable(_ parameters: RouteParameters, _ store: any PlannerStore) throws -> Changeable {
        let id = parameters["id"] ?? ""
        guard let event = try store.event(id: id) else { return .refused(Self.apiError(404, "no event with id \(id)", field: "id")) }
        if try store.feedName(ofEvent: event.id) != nil {
            return .refused(Self.apiError(409, "the event comes from a feed and is read-only; change it at its source", field: "id"))
        }
        return .success(event)
    }
}

/// A body the API cannot read as an event: the message and the key it is about.
struct APIBodyError: Error {
    var message: String
    var field: String
    var status = 400
}
