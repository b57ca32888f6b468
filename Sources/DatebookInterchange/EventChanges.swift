import DatebookCore
import DatebookStore
import Foundation

/// A field of an event as people give it: an option of `add`/`edit`, an input of the web form, a
/// key of the API's body. Each surface names the fields its own way in its messages.
public enum EventField: String, Sendable, CaseIterable {
    case title, start, end, allDay, timeZone, symbol, color, location, url, notes, recurrence, until, count, alerts, tasks
}

/// A value a person gave for an event that the planner refuses: the field, and the message with
/// the field names of the surface that shows it (`--at` on the command line, "Start" on a page).
public struct EventFieldError: Error, Sendable {
    public let field: EventField
    /// The message's key and values in a message catalogue (`checkEmpty`, `{"value": …}`), for a
    /// surface that speaks the reader's language; nil for messages only the command line's words say.
    public let check: (key: String, values: [String: String])?
    private let text: @Sendable (_ name: (EventField) -> String) -> String

    public init(_ field: EventField, check: (key: String, values: [String: String])? = nil,
                _ text: @escaping @Sendable (_ name: (EventField) -> String) -> String) {
        self.field = field
        self.check = check
        self.text = text
    }

    /// The message with each field called `name(field)`.
    public func message(naming name: (EventField) -> String) -> String { text(name) }
}

/// What to change in an event, as text the way people type it: the options of `add` and `edit`,
/// the fields of the web planner's form and of the API. One reading and one set of checks for
/// every surface, so a WHEN, a colour or a rule is accepted or refused the same way everywhere.
public struct EventChanges: Sendable {
    public var title: String?
    /// A WHEN (`tomorrow 9am`, `2026-12-24`); read in `parser`'s zone, which becomes the event's
    /// when `zoneChosen`.
    public var start: String?
    /// Whether the zone times are read in was chosen for this change (the form's zone field,
    /// `--tz` on the command line): a new start then puts the event in that zone. Otherwise the
    /// event keeps its own zone (the instant is the one typed, read in the reader's zone), so its
    /// later occurrences still follow its own zone's daylight-saving changes.
    public var zoneChosen = true
    public var end: String?
    public var clearEnd = false
    /// A new start without a new end moves the end alike (the event keeps its length), as a moved
    /// occurrence does; without it the end stays where it was.
    public var keepLength = false
    public var allDay = false
    public var symbol: String?
    public var color: String?
    public var notes: String?
    public var location: String?
    public var url: String?
    /// Lead times (`1d`, `1h`); empty leaves the event's as they are unless `clearAlerts`.
    public var alerts: [String] = []
    public var clearAlerts = false
    /// `daily`, `weekly`, `monthly`, `yearly`, an RRULE, or `none`.
    public var recurrence: String?
    public var until: String?
    public var count: String?
    /// Texts of tasks to add.
    public var tasks: [String] = []

    public init() {}

    /// Applies the changes to `event`, reading times with `parser` (its zone is the one times are
    /// given in). Throws the first refused field; `event` may then be half changed.
    public func apply(to event: inout Event, parser: WhenParser, newTaskID: () -> String) throws {
        let zone = parser.calendar.timeZone
        if let title {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw EventFieldError(.title, check: ("checkEmpty", [:])) { "\($0(.title)) is empty" } }
            event.title = title
        }
        if clearEnd { event.end = nil }
        if clearAlerts { event.alerts = [] }
        if let start {
            let old = event.start
            event.start = try Self.start(start, allDay: allDay, parser, field: .start)
            if zoneChosen || TimeZone(identifier: event.timeZone) == nil { event.timeZone = zone.identifier }
            if keepLength, end == nil, old.isAllDay == event.start.isAllDay {
                event.end = event.end.map { OccurrenceChange.shifted($0, from: old, to: event.start) }
            }
        } else if allDay, case .instant(let date) = event.start {
            event.start = .allDay(CalendarDate(date, in: zone))
        }
        if let end {
            event.end = try Self.start(end, allDay: event.start.isAllDay, parser, field: .end)
            // A floating event's end is a wall-clock time too: the one given, as read in the zone.
            if event.start.isFloating, case .instant(let date) = event.end {
                event.end = .floating(FloatingTime(date, in: zone))
            }
            if event.end.map({ $0.resolved(in: parser.calendar) < event.start.resolved(in: parser.calendar) }) ?? false {
                throw EventFieldError(.end, check: ("checkEndBeforeStart", ["value": end])) {
                    "\($0(.end)) '\(end)' is before the start; give an end after \($0(.start))"
                }
            }
            // An end equal to the start is no end: one day for an all-day event, no length otherwise.
            if event.end == event.start { event.end = nil }
        }
        if let symbol { event.symbol = try Self.symbol(symbol) }
        if let color { event.color = try Self.color(color) }
        if let notes { event.notes = notes }
        if let location { event.location = EventURL.cleanLocation(location) }
        if let url { event.url = url.trimmingCharacters(in: .whitespaces) }
        let leads = try alerts.map { try Self.lead($0, parser: parser) }
        if !leads.isEmpty { event.alerts = leads }
        try applyRecurrence(to: &event, parser)
        try Self.requireAnOccurrence(event, parser)
        for text in tasks {
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw EventFieldError(.tasks) { "\($0(.tasks)) needs some text" } }
            event.tasks.append(EventTask(id: newTaskID(), text: text))
        }
    }

    /// Holds `event` to the planner's rules (the ones imports apply); the first problem names its field.
    public static func validate(_ event: Event) throws {
        guard let problem = EventValidation.planner.problems(event).first else { return }
        let field = EventField(rawValue: problem.field) ?? (problem.field.hasPrefix("tasks") ? .tasks : problem.field == "timeZone" ? .timeZone : .title)
        let message = problem.message
        throw EventFieldError(field) { "\($0(field)): \(message)" }
    }

    public static func symbol(_ name: String) throws -> Symbol {
        guard let symbol = Symbol(rawValue: name) ?? Symbol(rawValue: name + ".fill") else {
            let hint = Suggestion.hint(for: name, in: Symbol.allCases.map(\.rawValue))
            throw EventFieldError(.symbol) { _ in "unknown symbol '\(name)'" + hint }
        }
        return symbol
    }

    public static func color(_ name: String) throws -> EventColor {
        guard let color = EventColor(rawValue: name.lowercased()) else {
            let names = EventColor.allCases.map(\.rawValue)
            let hint = Suggestion.hint(for: name, in: names)
            let expected = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
            throw EventFieldError(.color, check: ("checkColor", ["value": name, "expected": expected])) { _ in "unknown color '\(name)'" + hint + "; expected " + expected }
        }
        return color
    }

    /// An alert as written (`1h`, `15m before end`, `at 2026-12-24 09:00`; see `LeadTime(phrase:parser:)`).
    /// The refusal's words are the catalogue's `checkLead` too (the command line and the web planner
    /// say it in the reader's language); keep the two alike.
    public static func lead(_ text: String, parser: WhenParser) throws -> LeadTime {
        // An alert `at` a time the zone's clocks skip is refused as a start is, naming the gap.
        var parser = parser
        parser.refusesSkippedTimes = true
        guard let lead = LeadTime(phrase: text, parser: parser) else {
            if let skipped = LeadTime.refusal(phrase: text, parser: parser), skipped.skippedTime {
                throw EventFieldError(.alerts) { _ in "alert '\(text)': " + skipped.description }
            }
            throw EventFieldError(.alerts, check: ("checkLead", ["value": text])) { _ in
                "cannot read alert lead time '\(text)': expected a duration like 1d, 1h, 10m or 1h30m, "
                    + "'15m before end' or 'at 2026-12-24 09:00'"
            }
        }
        return lead
    }

    /// A WHEN as an event's start (or end): with `allDay`, only its date counts. A time the zone's
    /// clocks skip that day is refused, naming the gap (`WhenParser.refusesSkippedTimes`).
    public static func start(_ text: String, allDay: Bool, _ parser: WhenParser, field: EventField) throws -> EventStart {
        var parser = parser
        parser.refusesSkippedTimes = !allDay
        let when: When
        do {
            when = try parser.parse(text)
        } catch let error as WhenError {
            throw EventFieldError(field) { _ in error.description }
        }
        if allDay, case .instant(let date) = when { return .allDay(CalendarDate(date, in: parser.calendar.timeZone)) }
        return when.eventStart
    }

    /// How a start reads in messages: as `datebook list` writes it.
    static func shown(_ start: EventStart, _ zone: TimeZone) -> String {
        switch start {
        case .instant(let date): LocalTime(date, in: zone).listFormat
        case .floating(let time): time.wallClock.listFormat
        case .allDay(let day): day.weekdayName + " " + day.description + " all day"
        }
    }
}
