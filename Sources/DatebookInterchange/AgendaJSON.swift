import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// The agenda as JSON: what `datebook list --json` prints and `GET /api/v1/agenda` answers.
public enum AgendaJSON {
    /// The names a period selection takes (`--period`, `?period=`).
    public static let periodNames = ["next7", "next30", "future", "past", "all"]

    /// The periods `name` selects (`all`: every one), or nil for a name that is none of them.
    public static func periods(named name: String) -> [Period]? {
        guard periodNames.contains(name) else { return nil }
        return name == "all" ? Period.allCases : Period.allCases.filter { $0.rawValue == name }
    }

    /// What to say about a period name that is none of them.
    public static func unknownPeriod(_ name: String) -> String {
        "unknown period '\(name)'" + Suggestion.hint(for: name, in: periodNames) + "; expected " + JSONReader.orList(periodNames)
    }

    /// `{"series": ID, "replaces": START}` for an occurrence changed on its own (`null` otherwise):
    /// the id of its series (`null` when the store does not hold it) and the instance it replaces.
    static func override(of event: Event, timeZone: TimeZone, sources: [String: String]) -> String {
        guard let replaced = OccurrenceChange.replaced(by: event.id, sources: sources) else { return "null" }
        let instance: String
        switch replaced.instance {
        case .instant(let date): instance = ISOInstant.format(date, in: timeZone)
        case .allDay(let day): instance = day.description
        case .floating(let time): instance = time.date.description + "T" + String(format: "%02d:%02d:%02d", time.hour, time.minute, time.second)
        }
        return "{\"series\": \(replaced.series.map(JSONText.quote) ?? "null"), \"replaces\": \(JSONText.quote(instance))}"
    }

    /// A quoted string, or `null` when it is empty.
    static func optional(_ text: String) -> String { text.isEmpty ? "null" : JSONText.quote(text) }

    /// One occurrence: its event's fields with the occurrence's `start` in `timeZone`'s offset.
    public static func occurrence(_ occurrence: Occurrence, timeZone: TimeZone, sources: [String: String] = [:]) -> String {
        let event = occurrence.event
        return "{\"id\": \(JSONText.quote(event.id)), \"title\": \(JSONText.quote(event.title)), "
            + "\"start\": \(JSONText.quote(ISOInstant.format(occurrence.start, in: timeZone))), "
            + "\"allDay\": \(event.start.isAllDay), \"floating\": \(event.start.isFloating), " + looks(of: event)
            + "\"location\": \(optional(event.location)), \"url\": \(optional(event.url)), "
            + "\"badge\": \(event.badge), \"complete\": \(event.isComplete), "
            + "\"repeats\": \(event.recurrence.map { JSONText.quote(RecurrenceText($0).rule ?? "") } ?? "null"), "
            + "\"forSeries\": \(occurrence.series != nil), \"override\": \(override(of: event, timeZone: timeZone, sources: sources)), "
            + tasks(of: event, timeZone: timeZone) + (event.isTaskList ? ", \"taskList\": true}" : "}")
    }

    /// `"symbol": …, "emoji": …, "color": …, ` of an event or a list.
    static func looks(of event: Event) -> String {
        "\"symbol\": \(JSONText.quote(event.symbol.rawValue)), \"emoji\": \(JSONText.quote(event.symbol.emoji)), "
            + "\"color\": \(JSONText.quote(event.color.rawValue)), "
    }

    /// `"tasks": [{"id", "text", "status"}, …]`; a to-do list's (and a due to-do's row, `Event.dueToDo`)
    /// also with each to-do's `due` (a date, an instant in `timeZone`'s offset, or a floating time), `priority` and
    /// `parent` (`null` when it has none).
    static func tasks(of event: Event, timeZone: TimeZone) -> String {
        let tasks = event.tasks.map { task in
            var text = "{\"id\": \(JSONText.quote(task.id)), \"text\": \(JSONText.quote(task.text)), \"status\": \"\(task.status.rawValue)\""
            if event.isTaskList {
                let due = task.due.map { due -> String in
                    switch due {
                    case .instant(let date): ISOInstant.format(date, in: timeZone)
                    case .allDay(let day): day.description
                    case .floating(let time): time.description
                    }
                }
                text += ", \"due\": \(due.map(JSONText.quote) ?? "null"), \"priority\": \(task.priority > 0 ? String(task.priority) : "null"), "
                    + "\"parent\": \(task.parent.map(JSONText.quote) ?? "null")"
            }
            return text + "}"
        }
        return "\"tasks\": [" + tasks.joined(separator: ", ") + "]"
    }

    /// A to-do list (`Event.isTaskList`, on no date): an event's keys but those of a date, place and
    /// recurrence, then its tasks with their due dates, priorities and parents.
    public static func taskList(_ list: Event, timeZone: TimeZone) -> String {
        "{\"id\": \(JSONText.quote(list.id)), \"title\": \(JSONText.quote(list.title)), " + looks(of: list)
            + "\"badge\": \(list.badge), \"complete\": \(list.isComplete), " + tasks(of: list, timeZone: timeZone) + ", \"taskList\": true}"
    }
}

extension PlannerStore {
    /// The agenda of `periods` as JSON (`AgendaJSON`), handed to `write` piece by piece as it is read.
    public func writeAgendaJSON(periods: [Period], now: Date, calendar: Calendar, write: (String) -> Void) throws {
        let boundaries = PeriodBoundaries(now: now, calendar: calendar)
        write("{\n  \"now\": \(JSONText.quote(ISOInstant.format(now, in: calendar.timeZone))),\n"
              + "  \"timeZone\": \(JSONText.quote(calendar.timeZone.identifier)),\n  \"periods\": [")
        var firstPeriod = true
        let sources = try sourceUIDs()
        // The to-do lists, read once: each period takes its due to-dos from them.
        let lists = try taskLists()
        for period in periods {
            let range = boundaries.range(of: period)
            var first = true
            func row(_ occurrence: Occurrence) {
                if first {
                    write((firstPeriod ? "\n" : "\n    ]},\n") + "    {\"period\": \(JSONText.quote(period.rawValue)), "
                          + "\"title\": \(JSONText.quote(period.title)), \"events\": [\n")
                    firstPeriod = false
                } else {
                    write(",\n")
                }
                first = false
                write("      " + AgendaJSON.occurrence(occurrence, timeZone: calendar.timeZone, sources: sources))
            }
            // The open to-dos due in the period, each a row of its list at its due date among the events.
            var due = DueToDoMerge(DueTask.due(in: lists, from: range.from, to: range.to, calendar: calendar))
            try forEachOccurrence(from: range.from, to: range.to, calendar: calendar) { occurrence in
                for next in due.before(occurrence.start) { row(next.occurrence(calendar: calendar)) }
                row(occurrence)
            }
            for next in due.remaining { row(next.occurrence(calendar: calendar)) }
        }
        write(firstPeriod ? "]" : "\n    ]}\n  ]")
        // The to-do lists with open to-dos, on no date: with the whole agenda only, as `list` shows them.
        if periods.count > 1 {
            let open = lists.filter { $0.badge > 0 }.map { "    " + AgendaJSON.taskList($0, timeZone: calendar.timeZone) }
            write(",\n  \"taskLists\": [" + (open.isEmpty ? "]" : "\n" + open.joined(separator: ",\n") + "\n  ]"))
        }
        write("\n}\n")
    }
}
