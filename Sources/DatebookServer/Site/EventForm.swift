import DatebookCore
import DatebookICal
import DatebookInterchange
import DatebookStore
import Foundation

/// The web planner's event form as text: what its inputs hold (made from an event to edit, or from
/// a posted form), and the `EventChanges` a post asks for. The checks are `EventChanges`'s, the
/// ones `add` and `edit` apply.
struct EventForm: Sendable, Equatable {
    var title = ""
    var start = ""
    var end = ""
    var allDay = false
    var timeZone = ""
    var symbol = ""
    var color = ""
    var location = ""
    var url = ""
    var notes = ""
    var recurrence = ""
    var until = ""
    var count = ""
    var alerts = ""
    var tasks = ""
    /// The start of the one occurrence the form changes (an ISO instant), empty for the whole event.
    var occurrence = ""

    init() {}

    /// The form of `event` as it stands (`instance`: the occurrence to change on its own, with its
    /// end moved alike).
    init(_ event: Event, instance: EventStart? = nil) {
        let zone = TimeZone(identifier: event.timeZone) ?? TimeZone(identifier: "UTC") ?? .current
        title = event.title
        let shownStart = instance ?? event.start
        start = Self.text(shownStart, zone)
        end = event.end.map { end in Self.text(instance.map { OccurrenceChange.shifted(end, from: event.start, to: $0) } ?? end, zone) } ?? ""
        allDay = event.start.isAllDay
        timeZone = event.timeZone
        symbol = event.symbol.rawValue
        color = event.color.rawValue
        location = event.location
        url = event.url
        notes = event.notes
        recurrence = event.recurrence.flatMap { RecurrenceText($0).rule } ?? ""
        alerts = event.alerts.map(\.description).joined(separator: ", ")
    }

    init(posted form: [String: String]) {
        title = form["title"] ?? ""
        start = form["start"] ?? ""
        end = form["end"] ?? ""
        allDay = form["allDay"] != nil
        timeZone = (form["timeZone"] ?? "").trimmingCharacters(in: .whitespaces)
        symbol = form["symbol"] ?? ""
        color = form["color"] ?? ""
        location = form["location"] ?? ""
        url = form["url"] ?? ""
        notes = (form["notes"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        recurrence = (form["recurrence"] ?? "").trimmingCharacters(in: .whitespaces)
        until = form["until"] ?? ""
        count = form["count"] ?? ""
        alerts = form["alerts"] ?? ""
        tasks = (form["tasks"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        occurrence = form["occurrence"] ?? ""
    }

    /// A start as the form shows it and `WhenParser` reads it back: `2026-12-07 09:00` in `zone`,
    /// `2026-12-24` for a day.
    static func text(_ start: EventStart, _ zone: TimeZone) -> String {
        switch start {
        case .allDay(let day): return day.description
        case .floating(let time): return time.date.description + " " + Self.pad2(time.hour) + ":" + Self.pad2(time.minute)
        case .instant(let date):
            let local = LocalTime(date, in: zone)
            return local.date.description + " " + Self.pad2(local.hour) + ":" + Self.pad2(local.minute)
        }
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }

    /// The zone the form's times are read in; an unknown name is refused on the zone's field.
    func zone(default fallback: TimeZone) throws -> TimeZone {
        guard !timeZone.isEmpty else { return fallback }
        guard let zone = TimeZone(identifier: timeZone) else {
            let name = timeZone
            throw EventFieldError(.timeZone, check: ("checkZone", ["value": name])) { _ in "unknown time zone '\(name)'; use an IANA name like Europe/Berlin" }
        }
        return zone
    }

    /// What this post changes in `old` (nil: a new event). Fields left as the form showed them
    /// are not changed, so an event from a feed or an import keeps its floating time or its own
    /// text; a cleared end, alert list or rule clears it.
    func changes(from old: Event?, instance: EventStart? = nil) -> EventChanges {
        let before = old.map { EventForm($0, instance: instance) } ?? EventForm()
        var changes = EventChanges()
        func changed(_ value: String, _ was: String) -> String? { value == was && old != nil ? nil : value }
        changes.title = changed(title, before.title)
        let zoneMoved = old != nil && !timeZone.isEmpty && timeZone != before.timeZone
        changes.start = zoneMoved || allDay != before.allDay ? start : changed(start, before.start)
        changes.allDay = allDay
        changes.keepLength = instance == nil
        let endText = end.trimmingCharacters(in: .whitespaces)
        if endText.isEmpty { changes.clearEnd = old?.end != nil } else { changes.end = zoneMoved ? endText : changed(end, before.end) }
        changes.symbol = symbol.isEmpty ? nil : changed(symbol, before.symbol)
        changes.color = color.isEmpty ? nil : changed(color, before.color)
        changes.location = changed(location, before.location)
        changes.url = changed(url, before.url)
        changes.notes = changed(notes, before.notes)
        let leads = alerts.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        if alerts != before.alerts {
            changes.alerts = leads
            changes.clearAlerts = leads.isEmpty
        }
        if instance == nil {
            if recurrence != before.recurrence { changes.recurrence = recurrence.isEmpty ? (old?.recurrence == nil ? nil : "none") : recurrence }
            if !until.trimmingCharacters(in: .whitespaces).isEmpty { changes.until = until }
            if !count.trimmingCharacters(in: .whitespaces).isEmpty { changes.count = count }
        }
        changes.tasks = tasks.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return changes
    }
}
