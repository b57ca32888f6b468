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
        let page = try agenda.value(storePath: settings.storePath, extra: [String(now.timeIntervalSince1970)]) { _ in
            PlaceholderPage(Array(try renderAgenda(request, now: now).utf8), placeholder: Array(csrfPlaceholder.utf8))
        }
        return Self.planner(page.filled(with: Array(auth.csrf(for: request).utf8)))
    }

    /// `body` with every `placeholder` replaced (the plain path `PlaceholderPage` is tested against).
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

    /// A fragment id made of letters, digits, `-` and `_` only (an id from a feed may hold anything).
    static func anchor(_ text: String) -> String {
        String(text.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "_" })
    }

    /// The digest's tree with each event's `path` (its id percent-encoded) and `at` (its
    /// occurrence's start, UTC), and each task's `eventPath` and `anchor`, so a task's form names
    /// its event and the page comes back to the task after the post.
    static func taggingTasks(_ root: [String: MustacheValue]) -> [String: MustacheValue] {
        var root = root
        guard case .array(let sections)? = root["sections"] else { return root }
        root["sections"] = .array(sections.map { section in
            guard case .object(var fields) = section, case .array(let events)? = fields["events"] else { return section }
            fields["events"] = .array(events.map { event in
                guard case .object(var eventFields) = event, case .string(let id)? = eventFields["id"] else { return event }
                let path = eventPath(id)
                eventFields["path"] = .string(path)
                if case .object(let start)? = eventFields["start"], case .string(let iso)? = start["iso"], let date = ISOInstant.parse(iso) {
                    eventFields["at"] = .string(ISOInstant.format(date))
                }
                for key in ["openTasks", "doneTasks"] { eventFields[key] = eventFields[key].map { tagging($0, of: id, path: path) } }
                return .object(eventFields)
            })
            return .object(fields)
        })
        // The to-do lists' to-dos post to their list (an event of its own).
        if case .array(let lists)? = root["taskLists"] {
            root["taskLists"] = .array(lists.map { list in
                guard case .object(var fields) = list, case .string(let id)? = fields["id"] else { return list }
                fields["path"] = .string(eventPath(id))
                fields["tasks"] = fields["tasks"].map { tagging($0, of: id, path: eventPath(id)) }
                return .object(fields)
            })
        }
        return root
    }

    /// Each task of `tasks` (an array) with its event's `eventPath` and its `anchor`.
    static func tagging(_ tasks: MustacheValue, of id: String, path: String) -> MustacheValue {
        guard case .array(let tasks) = tasks else { return tasks }
        return .array(tasks.map { task in
            guard case .object(var taskFields) = task, case .string(let taskID)? = taskFields["id"] else { return task }
            taskFields["eventPath"] = .string(path)
            taskFields["anchor"] = .string(anchor(id + "-" + taskID))
            return .object(taskFields)
        })
    }

    /// `GET /events/{id}` (`?at=ISO`: the occurrence that was clicked; else the next one from
    /// now, or the last one when all have passed): its date, place, link, repeat rule in words, tasks.
    func eventPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let now = settings.now()
        let store = try store(now: now, readOnly: true)
        guard let event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        var start = try shownStart(of: event, in: store, now: now)
        if let at = request.query["at"], try occurrence(at, of: event, in: store) != nil,
           let date = ISOInstant.parse(at.replacingOccurrences(of: " ", with: "+")) {
            start = date
        }
        let allDay = event.start.isAllDay
        var when = locale.when(start, allDay: allDay, now: now, words: words).display
        if let end = event.end {
            let length = end.resolved(in: settings.calendar).timeIntervalSince(event.start.resolved(in: settings.calendar))
            let last = start.addingTimeInterval(allDay ? max(0, length - 86_400) : length)
            let ends = locale.when(last, allDay: allDay, now: now, words: words)
            // An end on the start's day shows its time only: `Mon, Dec 7 7:00 PM – 9:00 PM`.
            let sameDay = ends.date == locale.when(start, allDay: allDay, now: now, words: words).date
            if !allDay { when += " – " + (sameDay ? ends.time : ends.display) } else if length > 86_400 { when += " – " + ends.display }
        }
        let path = Self.eventPath(event.id)
        let tasks: [MustacheValue] = event.tasks.enumerated().map { n, task in
            ["number": .int(n + 1), "id": .string(task.id), "text": .string(TextWidth.clean(task.text)), "status": .string(task.status.rawValue),
             "todo": .bool(task.status == .todo), "doing": .bool(task.status == .doing), "done": .bool(task.status == .done),
             "eventPath": .string(path)]
        }
        let badge = Badge.text(event) { words.count("left", $0) }
        let occurrence = event.recurrence == nil ? "" : ISOInstant.format(start)
        let rule = event.recurrence.map { RuleWords(words: words, locale: Locale(identifier: locale.identifier), zone: settings.calendar.timeZone).text($0) }
        let value: MustacheValue = [
            "lang": .string(lang), "timeZone": .string(settings.calendar.timeZone.identifier), "page": try page(request),
            "words": .object(words.words.mapValues { .string($0) }),
            "event": ["id": .string(event.id), "path": .string(path), "title": .string(TextWidth.clean(event.title)), "emoji": .string(event.symbol.emoji),
                      "color": .string(event.color.rawValue), "when": .string(when), "recurrence": rule.map { .string($0) } ?? .null,
                      "occurrence": occurrence.isEmpty ? .null : .string(occurrence), "iso": .string(ISOInstant.format(start)),
                      "occurrenceQuery": .string(occurrence.isEmpty ? "" : "?occurrence=" + occurrence),
                      "location": event.location.isEmpty ? .null : .string(TextWidth.clean(event.location)),
                      "url": EventURL.problem(event.url) == nil && !event.url.isEmpty ? .string(event.url) : .null,
                      "notes": event.notes.isEmpty ? .null : .string(event.notes), "badge": .string(badge), "hasBadge": .bool(!badge.isEmpty),
                      "complete": .bool(event.isComplete), "tasks": .array(tasks)],
        ]
        return Self.planner(Array(try renderer.renderPage("web-event.html.mustache", value).utf8))
    }

    /// The occurrence an event page shows without `at`: the first from the start of today on,
    /// else the event's first.
    func shownStart(of event: Event, in store: any PlannerStore, now: Date) throws -> Date {
        guard event.recurrence != nil else { return event.start.resolved(in: settings.calendar) }
        let today = CalendarDate(now, in: settings.calendar.timeZone).start(in: settings.calendar)
        struct Found: Error { var start: Date }
        do {
            try store.forEachOccurrence(from: today, to: nil, calendar: settings.calendar) { occurrence in
                if occurrence.event.id == event.id { throw Found(start: occurrence.start) }
            }
        } catch let found as Found {
            return found.start
        }
        return event.start.resolved(in: settings.calendar)
    }

    /// A page of the planner: never stored by a browser or proxy (it carries the form token and private text).
    static func planner(_ body: [UInt8]) -> WebResponse {
        WebResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")], body: body)
    }

    var noEventPage: WebResponse { messagePage(404, "webNoSuchEvent", words.text("webNoSuchEventText")) }

    /// `POST /events/{id}/task`: `task` (its id) gets `status`, or is renamed to `text`, or is
    /// removed (`remove`); then back to `next` (303), which may end in the task's anchor.
    func setTaskStatus(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let form = request.form
        let status = form["status"].flatMap(TaskStatus.init(rawValue:))
        let text = form["text"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status != nil || text != nil || form["remove"] != nil else {
            return messagePage(400, "webNotChanged", words.text("webStatusInvalid"))
        }
        if text?.isEmpty == true { return messagePage(400, "webNotChanged", words.text("webEmptyTask")) }
        let store = try store(now: settings.now(), readOnly: false)
        guard var event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        guard let index = event.tasks.firstIndex(where: { $0.id == form["task"] }) else {
            return messagePage(404, "webNoSuchTask", words.text("webNoSuchTaskText"))
        }
        if form["remove"] != nil {
            event.tasks.remove(at: index)
        } else if let text {
            event.tasks[index].text = text
        } else if let status {
            event.tasks[index].status = status
        }
        if let problem = EventValidation.planner.problems(event).first {
            return messagePage(400, "webNotChanged", "text: " + problem.message)
        }
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
        return .seeOther(Self.eventPath(event.id))
    }
}
