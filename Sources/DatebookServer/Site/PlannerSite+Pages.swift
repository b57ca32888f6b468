import DatebookCore
import DatebookRender
import DatebookScheduler
import DatebookStore
import Foundation

/// The pages: the agenda (`GET /`), an event (`GET /events/{id}`), and the forms that change tasks.
extension PlannerSite {
    func agendaPage(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        let now = settings.now()
        // Made (a store write) before the cache's key is read, so the first page is not made twice.
        _ = try feedToken(making: true)
        let body = try agenda.value(storePath: settings.storePath, extra: [String(now.timeIntervalSince1970)]) { _ in
            Array(try renderAgenda(request, now: now).utf8)
        }
        return Self.planner(Self.replacing(Array(csrfPlaceholder.utf8), with: Array(auth.csrf(for: request).utf8), in: body))
    }

    /// `body` with every `placeholder` replaced (the cached agenda's CSRF placeholder by the session's value).
    static func replacing(_ placeholder: [UInt8], with value: [UInt8], in body: [UInt8]) -> [UInt8] {
        guard let first = placeholder.first else { return body }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var i = 0
        while i < body.count {
            if body[i] == first, i + placeholder.count <= body.count, body[i..<i + placeholder.count].elementsEqual(placeholder) {
                out += value
                i += placeholder.count
            } else {
                out.append(body[i])
                i += 1
            }
        }
        return out
    }

    /// The agenda for every session: its forms carry `csrfPlaceholder` (see `agendaPage`).
    func renderAgenda(_ request: WebRequest, now: Date) throws -> String {
        let plan = DigestPlan(now: now, calendar: settings.calendar)
        let input = try DigestQuery.input(plan: plan, store: store(now: now, readOnly: true), calendar: settings.calendar)
        guard case .object(var root) = DigestContext(input, locale: locale).value else { throw ServerError("the digest context is not an object") }
        root["page"] = try page(request, csrf: csrfPlaceholder)
        return try renderer.renderPage("web-agenda.html.mustache", .object(Self.taggingTasks(root)))
    }

    /// The digest's tree with `eventID` in each task, so a task's form can name its event.
    static func taggingTasks(_ root: [String: MustacheValue]) -> [String: MustacheValue] {
        var root = root
        guard case .array(let sections)? = root["sections"] else { return root }
        root["sections"] = .array(sections.map { section in
            guard case .object(var fields) = section, case .array(let events)? = fields["events"] else { return section }
            fields["events"] = .array(events.map { event in
                guard case .object(var eventFields) = event, let id = eventFields["id"] else { return event }
                for key in ["openTasks", "doneTasks"] {
                    guard case .array(let tasks)? = eventFields[key] else { continue }
                    eventFields[key] = .array(tasks.map { task in
                        guard case .object(var taskFields) = task else { return task }
                        taskFields["eventID"] = id
                        return .object(taskFields)
                    })
                }
                return .object(eventFields)
            })
            return .object(fields)
        })
        return root
    }

    func eventPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        guard let event = try store(now: settings.now(), readOnly: true).event(id: parameters["id"] ?? "") else { return noEventPage }
        var when = self.when(event.start)
        if let end = event.end { when += " – " + self.when(end) }
        let tasks: [MustacheValue] = event.tasks.enumerated().map { n, task in
            ["number": .int(n + 1), "id": .string(task.id), "text": .string(TextWidth.clean(task.text)), "status": .string(task.status.rawValue),
             "todo": .bool(task.status == .todo), "doing": .bool(task.status == .doing), "done": .bool(task.status == .done),
             "eventID": .string(event.id)]
        }
        let badge = Badge.text(event) { words.count("left", $0) }
        let value: MustacheValue = [
            "lang": .string(lang), "timeZone": .string(settings.calendar.timeZone.identifier), "page": try page(request),
            "words": .object(words.words.mapValues { .string($0) }),
            "event": ["id": .string(event.id), "title": .string(TextWidth.clean(event.title)), "emoji": .string(event.symbol.emoji),
                      "color": .string(event.color.rawValue), "when": .string(when), "recurrence": event.recurrence.map { .string($0) } ?? .null,
                      "notes": event.notes.isEmpty ? .null : .string(event.notes), "badge": .string(badge), "hasBadge": .bool(!badge.isEmpty),
                      "complete": .bool(event.isComplete), "tasks": .array(tasks)],
        ]
        return Self.planner(Array(try renderer.renderPage("web-event.html.mustache", value).utf8))
    }

    /// When the event starts or ends, as `datebook show` writes it (in the user's zone; an all-day
    /// date with the catalogue's "all day").
    func when(_ start: EventStart) -> String {
        switch start {
        case .instant(let date): LocalTime(date, in: settings.calendar.timeZone).listFormat
        case .floating(let time): time.wallClock.listFormat
        case .allDay(let day): day.weekdayName + " " + day.description + " " + words.text("allDay")
        }
    }

    /// A page of the planner: never stored by a browser or proxy (it carries the form token and private text).
    static func planner(_ body: [UInt8]) -> WebResponse {
        WebResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")], body: body)
    }

    var noEventPage: WebResponse { messagePage(404, "webNoSuchEvent", words.text("webNoSuchEventText")) }

    /// `POST /events/{id}/task`: `task` (its id) gets `status`; then back to `next` (303).
    func setTaskStatus(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let form = request.form
        guard let status = form["status"].flatMap(TaskStatus.init(rawValue:)) else {
            return messagePage(400, "webNotChanged", words.text("webStatusInvalid"))
        }
        let store = try store(now: settings.now(), readOnly: false)
        guard var event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        guard let index = event.tasks.firstIndex(where: { $0.id == form["task"] }) else {
            return messagePage(404, "webNoSuchTask", words.text("webNoSuchTaskText"))
        }
        event.tasks[index].status = status
        try store.save(event)
        return .seeOther(SiteAuth.localPath(form["next"] ?? "/"))
    }

    /// `POST /events/{id}/tasks`: a new task with `text`; then the event's page (303).
    func addTask(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let text = (request.form["text"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return messagePage(400, "webNotAdded", words.text("webEmptyTask")) }
        let store = try store(now: settings.now(), readOnly: false)
        guard var event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        event.tasks.append(EventTask(id: EventTask.newID(), text: text))
        if let problem = EventValidation.planner.problems(event).first {
            return messagePage(400, "webNotAdded", (problem.field.hasPrefix("tasks") ? "text" : problem.field) + ": " + problem.message)
        }
        try store.save(event)
        return .seeOther("/events/" + event.id)
    }
}
