import Foundation

/// The sizes and ranges an event must keep to, whichever way it comes in (`add`, `edit`, `task
/// add`, planner JSON import, iCalendar import, feeds). Texts are measured in UTF-8 bytes.
public enum Limits {
    /// Longest event title.
    public static let titleBytes = 1_000
    /// Longest task text.
    public static let taskTextBytes = 1_000
    /// Longest notes of one event.
    public static let notesBytes = 100_000
    /// Longest location of one event (one line).
    public static let locationBytes = 1_000
    /// Longest link of one event.
    public static let urlBytes = 2_000
    /// Longest event or task id.
    public static let idBytes = 128
    /// Years an event's dates may fall in (instants: as a date in UTC, a day inside either end,
    /// so they are in range in every zone): ``RepresentableDates``.
    public static let years: ClosedRange<Int> = RepresentableDates.years

    /// The first and last instant `years` allow, as seconds since 1970.
    static let instantSeconds: ClosedRange<Int64> =
        Int64(CalendarDate(year: years.lowerBound, month: 1, day: 2).dayNumber) * 86_400
        ... Int64(CalendarDate(year: years.upperBound, month: 12, day: 31).dayNumber) * 86_400 - 1
}

/// One rule an event breaks: the field (relative to the event, `title`, `tasks[2].id`) and why.
public struct EventProblem: Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { field + ": " + message }
}

/// The one set of rules every way into the planner applies to an event.
///
/// Own input (`add`, `edit`, a planner JSON import) is refused on the first problem. Other
/// people's calendars (iCalendar imports, feeds) are repaired where a repair loses little: an
/// over-long text is cut to its limit, an end before the start or of the other kind is dropped, a
/// refused recurrence rule or link (`EventURL`) is dropped (only the first occurrence stays), a
/// location is made one line, empty texts get a placeholder and repeated task ids keep their
/// first task; each repair is a warning, and what
/// cannot be repaired (a date out of range, a bad id) refuses that event alone.
///
/// Recurrence rules are judged by `ruleProblem` (the expander lives above Core).
public struct EventValidation: Sendable {
    let ruleProblem: @Sendable (String) -> String?

    public init(ruleProblem: @escaping @Sendable (String) -> String?) {
        self.ruleProblem = ruleProblem
    }

    /// Every rule `event` breaks, in field order (empty when it is fine).
    public func problems(_ event: Event) -> [EventProblem] {
        var found: [EventProblem] = []
        func check(_ field: String, _ message: String?) {
            if let message { found.append(EventProblem(field: field, message: message)) }
        }
        check("id", Self.idProblem(event.id))
        check("title", Self.textProblem(event.title, limit: Limits.titleBytes, what: "title") ?? Self.nulProblem(event.title))
        check("start", Self.rangeProblem(event.start))
        if let end = event.end {
            check("end", Self.rangeProblem(end) ?? Self.endProblem(end, start: event.start))
        }
        check("timeZone", Self.nulProblem(event.timeZone))
        check("notes", Self.sizeProblem(event.notes, limit: Limits.notesBytes) ?? Self.nulProblem(event.notes))
        check("location", Self.sizeProblem(event.location, limit: Limits.locationBytes)
              ?? (event.location == EventURL.cleanLocation(event.location) ? nil : "expected one line without control characters"))
        check("url", event.url.isEmpty ? nil : Self.nulProblem(event.url) ?? EventURL.problem(event.url))
        if let rule = event.recurrence, let problem = Self.nulProblem(rule) {
            check("recurrence", problem)
        } else if let rule = event.recurrence {
            // The expander's own wording says what it would do instead; refused here, it does nothing.
            check("recurrence", ruleProblem(rule).map { $0.replacingOccurrences(of: "; only DTSTART is used", with: "") })
        }
        let repeated = Self.repeats(event.tasks)
        for (n, task) in event.tasks.enumerated() {
            let idProblem = Self.idProblem(task.id)
                ?? (repeated[n] ? "duplicate task id \"\(task.id)\" (task ids are unique within an event)" : nil)
            check("tasks[\(n)].id", idProblem)
            check("tasks[\(n)].text", Self.textProblem(task.text, limit: Limits.taskTextBytes, what: "task text") ?? Self.nulProblem(task.text))
        }
        return found
    }

    /// The fields of `event` that hold a NUL byte (`title`, `tasks[2].text`), each with the problem.
    public static func nulFields(_ event: Event) -> [EventProblem] {
        let texts = [("title", event.title), ("timeZone", event.timeZone), ("notes", event.notes), ("location", event.location),
                     ("url", event.url), ("recurrence", event.recurrence ?? "")]
            + event.tasks.enumerated().map { ("tasks[\($0.offset)].text", $0.element.text) }
        return texts.compactMap { field, text in nulProblem(text).map { EventProblem(field: field, message: $0) } }
    }

    /// What `repair` did and what it could not do.
    public struct Repair: Sendable {
        /// Changes made (each one a warning for the user).
        public var changes: [EventProblem] = []
        /// Problems left: the event must be refused when there is any.
        public var refusals: [EventProblem] = []
    }

    /// Repairs what can be repaired in an event from someone else's calendar (see the type's
    /// comment); `refusals` lists the rest.
    public func repair(_ event: inout Event, placeholderTitle: String = "(no title)",
                       placeholderTask: String = "(no text)") -> Repair {
        var repair = Repair()
        // Every repair below answers a problem: a sound event (nearly all) is left untouched.
        guard !problems(event).isEmpty else { return repair }
        func changed(_ field: String, _ message: String) { repair.changes.append(EventProblem(field: field, message: message)) }
        if Self.isBlank(event.title) {
            event.title = placeholderTitle
            changed("title", "empty; shown as \"\(placeholderTitle)\"")
        }
        if let cut = Self.truncate(&event.title, limit: Limits.titleBytes) { changed("title", cut) }
        if let cut = Self.truncate(&event.notes, limit: Limits.notesBytes) { changed("notes", cut) }
        event.location = EventURL.cleanLocation(event.location)
        if let cut = Self.truncate(&event.location, limit: Limits.locationBytes) { changed("location", cut) }
        if !event.url.isEmpty, let problem = EventURL.problem(event.url) {
            event.url = ""
            changed("url", problem + "; the event has no link")
        }
        if let end = event.end, Self.rangeProblem(end) == nil, let problem = Self.endProblem(end, start: event.start) {
            event.end = nil
            changed("end", problem + "; the event has no end")
        }
        if let rule = event.recurrence, let problem = ruleProblem(rule) {
            event.recurrence = nil
            changed("recurrence", problem.hasSuffix("only DTSTART is used") ? problem : problem + "; only the start is used")
        }
        var taskIDs = Set<String>()
        var tasks: [EventTask] = []
        for (n, var task) in event.tasks.enumerated() {
            guard Self.idProblem(task.id) != nil || taskIDs.insert(task.id).inserted else {
                changed("tasks[\(n)].id", "duplicate task id \"\(task.id)\"; only the first such task is kept")
                continue
            }
            if let change = Self.repairText(&task, placeholder: placeholderTask) { changed("tasks[\(n)].text", change) }
            tasks.append(task)
        }
        event.tasks = tasks
        repair.refusals = problems(event)
        return repair
    }

    /// What `repair` does to one task's text (for readers that attach tasks one at a time): an
    /// empty text gets `placeholder`, a long one is cut; returns the warning, if any.
    public static func repairText(_ task: inout EventTask, placeholder: String = "(no text)") -> String? {
        if isBlank(task.text) {
            task.text = placeholder
            return "empty; shown as \"\(placeholder)\""
        }
        return truncate(&task.text, limit: Limits.taskTextBytes)
    }

    // MARK: The rules

    // The checks run on every event of a 100k-event import: bytes first, scalars only for non-ASCII.

    static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "expected a non-empty id" }
        if id.utf8.count > Limits.idBytes { return "the id is \(id.utf8.count) bytes long; the limit is \(Limits.idBytes) bytes" }
        let spaced = id.hasByte { $0 <= 0x20 || $0 == 0x7F }
            || (id.hasByte { $0 >= 0x80 }
                && id.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0xA0 && $0.value >= 0x80 })
        return spaced ? "expected an id without spaces or control characters, got \(JSONText.quote(id))" : nil
    }

    /// Per task, whether an earlier task has its id (a short checklist is scanned, a long one hashed).
    static func repeats(_ tasks: [EventTask]) -> [Bool] {
        if tasks.count <= 32 { return tasks.indices.map { n in tasks[..<n].contains { $0.id == tasks[n].id } } }
        var seen = Set<String>()
        return tasks.map { !seen.insert($0.id).inserted }
    }

    static func textProblem(_ text: String, limit: Int, what: String) -> String? {
        guard !isBlank(text) else { return "expected a non-empty \(what)" }
        return sizeProblem(text, limit: limit)
    }

    /// Empty or only spaces and tabs (what `trimmingCharacters(in: .whitespaces)` would empty).
    static func isBlank(_ text: String) -> Bool {
        for byte in text.utf8 where byte != 0x20 && byte != 0x09 {
            return byte >= 0x80 && text.trimmingCharacters(in: .whitespaces).isEmpty
        }
        return true
    }

    /// A NUL byte: SQLite would keep it and PostgreSQL cannot store it (it cut the text silently, or
    /// failed a whole COPY), so both refuse it here, at input, the same way.
    public static func nulProblem(_ text: String) -> String? {
        text.hasByte { $0 == 0 } ? "contains a NUL byte (U+0000), which the store cannot keep; remove it" : nil
    }

    static func sizeProblem(_ text: String, limit: Int) -> String? {
        let size = text.utf8.count
        return size > limit ? "is \(size) bytes long; the limit is \(limit) bytes (shorten it)" : nil
    }

    static func rangeProblem(_ value: EventStart) -> String? {
        switch value {
        case .allDay(let day):
            guard !Limits.years.contains(day.year) else { return nil }
            return "the date \(day) is out of range (years \(Limits.years.lowerBound)–\(Limits.years.upperBound))"
        case .instant(let date):
            let seconds = date.timeIntervalSince1970
            guard seconds.isFinite, seconds >= Double(Limits.instantSeconds.lowerBound),
                  seconds <= Double(Limits.instantSeconds.upperBound) else {
                return "the time is out of range (years \(Limits.years.lowerBound)–\(Limits.years.upperBound))"
            }
            return nil
        case .floating(let time):
            // Read in any zone, the time must stay an instant in range: the instants' bounds.
            guard Limits.instantSeconds.contains(time.wallSeconds) else {
                return "the time \(time) is out of range (years \(Limits.years.lowerBound)–\(Limits.years.upperBound))"
            }
            return nil
        }
    }

    static func endProblem(_ end: EventStart, start: EventStart) -> String? {
        switch (start, end) {
        case let (.allDay(first), .allDay(last)):
            return last < first ? "the end \(last) is before the start \(first)" : nil
        case let (.instant(first), .instant(last)):
            return last < first ? "the end \(ISOInstant.format(last)) is before the start \(ISOInstant.format(first))" : nil
        case let (.floating(first), .floating(last)):
            return last < first ? "the end \(last) is before the start \(first)" : nil
        case (.allDay, _):
            return "expected a date (YYYY-MM-DD) like the start, got " + kind(of: end)
        case (.instant, _):
            return "expected an instant like the start, got " + kind(of: end)
        case (.floating, _):
            return "expected a floating time (YYYY-MM-DDTHH:MM) like the start, got " + kind(of: end)
        }
    }

    private static func kind(of value: EventStart) -> String {
        switch value {
        case .allDay: "a date"
        case .instant: "an instant"
        case .floating: "a floating time"
        }
    }

    /// Cuts `text` to at most `limit` UTF-8 bytes, on a character boundary; returns the warning.
    static func truncate(_ text: inout String, limit: Int) -> String? {
        let size = text.utf8.count
        guard size > limit else { return nil }
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let width = text.utf8.distance(from: index, to: next)
            guard kept + width <= limit else { break }
            kept += width
            end = next
        }
        text = String(text[..<end])
        return "was \(size) bytes long; cut to \(kept) bytes (the limit is \(limit))"
    }
}
