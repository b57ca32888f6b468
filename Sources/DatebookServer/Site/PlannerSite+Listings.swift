import DatebookCore
import DatebookRender
import DatebookStore
import Foundation

/// The pages that list occurrences beyond the agenda: a month (`GET /month/{2026-12}`, with the
/// grid that moves to the months beside it), a day (`GET /day/{2026-12-07}`) and a whole period
/// (`GET /period/{next7|next30|future|overdue}`, where the agenda's "… and 495 more" leads), each
/// paged (`?page=N`, `pageSize` a page).
extension PlannerSite {
    static let pageSize = 50

    func monthPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        guard let first = CalendarDate(iso: (parameters["month"] ?? "") + "-01") else { return notFoundPage }
        let now = settings.now()
        let zone = settings.calendar.timeZone
        let from = first.start(in: settings.calendar), to = CalendarGrid.next(first).start(in: settings.calendar)
        var days = Set<Int>()
        try store(now: now, readOnly: true).forEachOccurrenceSummary(from: from, to: to, calendar: settings.calendar) { summary in
            days.insert(CalendarDate(summary.start, in: zone).day)
        }
        let grid = CalendarGrid(month: first, today: CalendarDate(now, in: zone), eventDays: days, locale: locale)
        guard case .object(let fields) = grid.value, case .string(let title)? = fields["title"] else { return notFoundPage }
        return try listingPage(request, title: title, from: from, to: to, calendar: grid.value)
    }

    func dayPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        guard let day = CalendarDate(iso: parameters["day"] ?? "") else { return notFoundPage }
        let from = day.start(in: settings.calendar), to = CalendarDate(dayNumber: day.dayNumber + 1).start(in: settings.calendar)
        return try listingPage(request, title: locale.longDay(from), from: from, to: to, month: CalendarGrid.key(day))
    }

    func periodPage(_ request: WebRequest, _ parameters: RouteParameters) throws -> WebResponse {
        let name = parameters["period"] ?? ""
        guard let kind = DigestSectionKind(rawValue: name), kind != .today else { return notFoundPage }
        let now = settings.now()
        let boundaries = PeriodBoundaries(now: now, calendar: settings.calendar)
        let range = boundaries.range(of: kind == .overdue ? .past : Period(rawValue: name) ?? .future)
        return try listingPage(request, title: words.text(kind.rawValue), from: range.from, to: range.to, onlyOpen: kind == .overdue)
    }

    /// The occurrences from `from` to `to` (only those with open tasks with `onlyOpen`), page
    /// `?page=` of them, under `title`; with the month's grid when given.
    func listingPage(_ request: WebRequest, title: String, from: Date?, to: Date?, onlyOpen: Bool = false, calendar: MustacheValue? = nil,
                     month: String? = nil) throws -> WebResponse {
        let now = settings.now()
        let page = max(1, Int(request.query["page"] ?? "1") ?? 1)
        let skip = (page - 1) * Self.pageSize
        var shown: [MustacheValue] = []
        var total = 0
        func add(_ occurrence: Occurrence) {
            let event = occurrence.event
            if onlyOpen, event.isComplete || event.tasks.isEmpty { return }
            total += 1
            guard total > skip, shown.count < Self.pageSize else { return }
            // A to-do due here (`Event.dueToDo`) links to its list and shows its priority instead of a badge.
            let todo = event.dueToDo
            let badge = todo == nil ? Badge.text(event) { words.count("left", $0) } : ""
            let priority = todo.flatMap(words.priority) ?? ""
            shown.append(["path": .string(Self.eventPath(event.id)), "at": .string(ISOInstant.format(occurrence.start)),
                          "title": .string(TextWidth.clean(event.title)), "emoji": .string(event.symbol.emoji), "color": .string(event.color.rawValue),
                          "when": .string(locale.when(occurrence.start, allDay: event.start.isAllDay, now: now, words: words).display),
                          "badge": .string(badge), "hasBadge": .bool(!badge.isEmpty), "complete": .bool(event.isComplete),
                          "isToDo": .bool(todo != nil), "priorityText": .string(priority), "hasPriority": .bool(!priority.isEmpty)])
        }
        let planner = try store(now: now, readOnly: true)
        // The open to-dos of the to-do lists due in the span, among the events by their due dates.
        var due = DueToDoMerge(try planner.dueTasks(from: from, to: to, calendar: settings.calendar))
        try planner.forEachOccurrence(from: from, to: to, calendar: settings.calendar) { occurrence in
            for next in due.before(occurrence.start) { add(next.occurrence(calendar: settings.calendar)) }
            add(occurrence)
        }
        for next in due.remaining { add(next.occurrence(calendar: settings.calendar)) }
        let pages = max(1, (total + Self.pageSize - 1) / Self.pageSize)
        let value: MustacheValue = [
            "lang": .string(lang), "timeZone": .string(settings.calendar.timeZone.identifier), "page": try self.page(request),
            "words": .object(words.words.mapValues { .string($0) }), "title": .string(title), "calendar": calendar ?? .null,
            "month": month.map { .string($0) } ?? .null, "events": .array(shown), "hasEvents": .bool(!shown.isEmpty),
            "pageText": .string(pages > 1 ? words.text("webPageOf", ["page": String(page), "pages": String(pages)]) : ""),
            "previousPage": page > 1 ? .string(request.path + "?page=\(page - 1)") : .null,
            "nextPage": page < pages ? .string(request.path + "?page=\(page + 1)") : .null,
        ]
        return Self.planner(Array(try renderer.renderPage("web-list.html.mustache", value).utf8))
    }

    var notFoundPage: WebResponse { errorPage(404, "Not found.\n") }
}
