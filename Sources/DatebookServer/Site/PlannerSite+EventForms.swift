import DatebookCore
import DatebookInterchange
import DatebookRender
import DatebookStore
import Foundation

/// The pages that make, change and remove events: `GET /events/new`, `POST /events`,
/// `GET /events/{id}/edit`, `POST /events/{id}`, `POST /events/{id}/delete`. A refused field is
/// shown beside its input, with `add`/`edit`'s message and the field's name in the reader's language.
extension PlannerSite {
    func newEventPage(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        var form = EventForm()
        form.timeZone = settings.calendar.timeZone.identifier
        return try eventFormPage(request, form, action: "/events", heading: words.text("webNewEvent"))
    }

    func createEvent(_ request: WebRequest, _: RouteParameters) throws -> WebResponse {
        let form = EventForm(posted: request.form)
        do {
            let event = try makeEvent(form.changes(from: nil), zone: form.zone(default: settings.calendar.timeZone))
            try store(now: settings.now(), readOnly: false).save(event)
            return .seeOther(Self.eventPath(event.id))
        } catch let error as EventFieldError {
            return try eventFormPage(request, form, action: "/events", heading: words.text("webNewEvent"), error: error)
        }
    }

    /// A new event from `changes` (read in `zone`), checked as `add` checks it: a symbol from its
    /// title and a random colour unless given.
    func makeEvent(_ changes: EventChanges, zone: TimeZone) throws -> Event {
        guard let start = changes.start, !start.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw EventFieldError(.start, check: ("checkStartNeeded", [:])) { "\($0(.start)) is needed: a date or time like tomorrow 9am or 2026-12-24" }
        }
        let title = changes.title ?? ""
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw EventFieldError(.title, check: ("checkEmpty", [:])) { "\($0(.title)) is empty" } }
        var generator = SystemRandomNumberGenerator()
        var event = Event(id: EventID.random(using: &generator), title: title, start: .instant(settings.now()), timeZone: zone.identifier,
                          symbol: Symbol.suggested(forTitle: title),
                          color: EventColor.allCases.randomElement(using: &generator) ?? .primary)
        try changes.apply(to: &event, parser: parser(zone), newTaskID: EventTask.newID)
        try EventChanges.validate(event)
        return event
    }

    /// Reads WHEN as `add` does, in `zone`, with the config's locale's month and weekday names.
    func parser(_ zone: TimeZone) -> WhenParser {
        var calendar = settings.calendar
        calendar.timeZone = zone
        return WhenParser(now: settings.now(), calendar: calendar, locale: Locale(identifier: locale.identifier))
    }

    func editEventPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let store = try store(now: settings.now(), readOnly: true)
        guard let event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        var instance: EventStart?
        if let text = request.query["occurrence"] {
            guard let found = try occurrence(text, of: event, in: store) else { return noOccurrencePage }
            instance = found
        }
        var form = EventForm(event, instance: instance)
        form.occurrence = instance == nil ? "" : request.query["occurrence"] ?? ""
        return try eventFormPage(request, form, action: Self.eventPath(event.id), heading: words.text(form.occurrence.isEmpty ? "webEditEvent" : "webEditOccurrence"),
                                 event: event)
    }

    func updateEvent(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let form = EventForm(posted: request.form)
        let store = try store(now: settings.now(), readOnly: false)
        guard var event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        if let refusal = try readOnlyRefusal(event, store) { return refusal }
        var instance: EventStart?
        if !form.occurrence.isEmpty {
            guard let found = try occurrence(form.occurrence, of: event, in: store) else { return noOccurrencePage }
            instance = found
        }
        let heading = words.text(instance == nil ? "webEditEvent" : "webEditOccurrence")
        do {
            let zone = try form.zone(default: TimeZone(identifier: event.timeZone) ?? settings.calendar.timeZone)
            let changes = form.changes(from: event, instance: instance)
            if let instance {
                let made = try changes.saveOverride(of: event, at: instance, in: store, parser: parser(zone))
                return .seeOther(Self.eventPath(made.id))
            }
            try changes.apply(to: &event, parser: parser(zone), newTaskID: EventTask.newID)
            try EventChanges.validate(event)
            try store.save(event)
            return .seeOther(Self.eventPath(event.id))
        } catch let error as EventFieldError {
            return try eventFormPage(request, form, action: Self.eventPath(event.id), heading: heading, event: event, error: error)
        }
    }

    /// `POST /events/{id}/delete`: the event goes (with `occurrence`: only that occurrence is cancelled).
    func deleteEvent(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let store = try store(now: settings.now(), readOnly: false)
        guard let event = try store.event(id: parameters["id"] ?? "") else { return noEventPage }
        if let refusal = try readOnlyRefusal(event, store) { return refusal }
        if let text = request.form["occurrence"], !text.isEmpty {
            guard let instance = try occurrence(text, of: event, in: store) else { return noOccurrencePage }
            try EventChanges.cancel(instance, of: event, in: store)
        } else {
            try EventChanges.delete(event, in: store)
        }
        return .seeOther("/")
    }

    /// 409 for an event from a subscribed feed: it is changed at its source (tasks may be attached).
    func readOnlyRefusal(_ event: Event, _ store: any PlannerStore) throws -> WebResponse? {
        guard let feed = try store.feedName(ofEvent: event.id) else { return nil }
        return messagePage(409, "webNotChanged", words.text("webFromFeed", ["feed": feed]))
    }

    var noOccurrencePage: WebResponse { messagePage(404, "webNoSuchOccurrence", words.text("webNoSuchOccurrenceText")) }

    /// The start of `event`'s occurrence at `text` (an ISO instant, as the pages' links carry it),
    /// as the series' kind of start; nil when the event has no occurrence then.
    func occurrence(_ text: String, of event: Event, in store: any PlannerStore) throws -> EventStart? {
        // A `+` of the offset reads as a space in a query string that was not percent-encoded.
        guard let date = ISOInstant.parse(text.replacingOccurrences(of: " ", with: "+")) else { return nil }
        var found = false
        try store.forEachOccurrence(from: date, to: date.addingTimeInterval(1), calendar: settings.calendar) { occurrence in
            if occurrence.event.id == event.id, occurrence.start == date { found = true }
        }
        guard found else { return nil }
        let zone = settings.calendar.timeZone
        switch event.start {
        case .instant: return .instant(date)
        case .allDay: return .allDay(CalendarDate(date, in: zone))
        case .floating: return .floating(FloatingTime(date, in: zone))
        }
    }

    /// `/events/ID`, the id percent-encoded (an id from a feed may hold `/`, `?`, `#` or `%`).
    static func eventPath(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        return "/events/" + (id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id)
    }

    /// A refused field's message in the reader's words where the catalogue has them (`checkEmpty`
    /// …, with `{field}` and `{start}` the page's field names), else the command line's in English
    /// with the page's field names.
    func message(_ error: EventFieldError, form: EventForm) -> String {
        let label = { (field: EventField) in words.text("webField." + field.rawValue) }
        // An English reader gets the store's own words for the rest: they name what was expected.
        let derived = words.language == "en" ? nil : check(of: error.field, form)
        guard let check = error.check ?? derived else { return error.message(naming: label) }
        return words.text(check.key, check.values.merging(["field": label(error.field), "start": label(.start)]) { $1 })
    }

    /// The catalogue key of a refusal the store words only in English: the WHEN parser's, asked
    /// again for the refused field's text (the same parser the store used, so the same word is
    /// named), and a refused repeat rule. Nil for the others (the command line's words then).
    func check(of field: EventField, _ form: EventForm) -> (key: String, values: [String: String])? {
        let whenText: String
        switch field {
        case .recurrence: return ("checkRepeat", ["value": form.recurrence])
        case .start: whenText = form.start
        case .end: whenText = form.end
        case .until: whenText = form.until
        default: return nil
        }
        let zone = (try? form.zone(default: settings.calendar.timeZone)) ?? settings.calendar.timeZone
        do {
            _ = try parser(zone).parse(whenText)
            return nil
        } catch let error as WhenError {
            let values = ["value": error.input, "token": error.token, "suggestion": error.suggestion ?? ""]
            return (error.suggestion == nil ? "checkWhen" : "checkWhenSuggestion", values)
        } catch {
            return nil
        }
    }

    /// The form page: every input with its label in the reader's language, the refused one marked
    /// and its message beside it (status 400 then).
    func eventFormPage(_ request: WebRequest, _ form: EventForm, action: String, heading: String, event: Event? = nil,
                       error: EventFieldError? = nil) throws -> WebResponse {
        let label = { (field: EventField) in words.text("webField." + field.rawValue) }
        var fields: [String: MustacheValue] = [:]
        for field in EventField.allCases {
            fields[field.rawValue] = ["label": .string(label(field)), "error": error?.field == field ? .string(error.map { message($0, form: form) } ?? "") : .null]
        }
        let colors: [MustacheValue] = EventColor.allCases.map { color in
            ["name": .string(color.rawValue), "selected": .bool(color.rawValue == form.color)]
        }
        let symbols: [MustacheValue] = Symbol.allCases.map { symbol in
            ["name": .string(symbol.rawValue), "emoji": .string(symbol.emoji), "selected": .bool(symbol.rawValue == form.symbol)]
        }
        let value: MustacheValue = [
            "lang": .string(lang), "timeZone": .string(settings.calendar.timeZone.identifier), "page": try page(request),
            "words": .object(words.words.mapValues { .string($0) }), "heading": .string(heading), "action": .string(action),
            "field": .object(fields), "hasError": .bool(error != nil), "colors": .array(colors), "symbols": .array(symbols),
            "isNew": .bool(event == nil), "isOccurrence": .bool(!form.occurrence.isEmpty),
            "cancelPath": .string(event.map { Self.eventPath($0.id) } ?? "/"),
            "form": ["title": .string(form.title), "start": .string(form.start), "end": .string(form.end), "allDay": .bool(form.allDay),
                     "timeZone": .string(form.timeZone), "location": .string(form.location), "url": .string(form.url),
                     "notes": .string(form.notes), "recurrence": .string(form.recurrence), "until": .string(form.until),
                     "count": .string(form.count), "alerts": .string(form.alerts), "tasks": .string(form.tasks),
                     "occurrence": .string(form.occurrence)],
        ]
        var response = Self.planner(Array(try renderer.renderPage("web-edit.html.mustache", value).utf8))
        if error != nil { response.status = 400 }
        return response
    }
}
