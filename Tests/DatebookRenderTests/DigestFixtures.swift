import DatebookCore
import DatebookRender
import DatebookTestSupport
import Foundation
import Testing

/// The demo planner at the CLI tests' fixed clock (2026-11-30 09:00, Europe/Berlin), in memory.
enum DigestFixtures {
    static let zone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
    static let now = ISOInstant.parse("2026-11-30T08:00:00Z") ?? Date(timeIntervalSince1970: 0)

    static func demoOccurrences(extra: [Event] = []) -> [Occurrence] {
        (SamplePlanner.events(now: now, calendar: calendar) + extra).map { Occurrence(event: $0, calendar: calendar) }
    }

    static func input(extra: [Event] = [], days: Int = 30) -> DigestInput {
        let plan = DigestPlan(now: now, calendar: calendar, days: days)
        return DigestInput(occurrences: demoOccurrences(extra: extra), plan: plan, calendar: calendar)
    }

    static func context(locale: String = "en_US", extra: [Event] = [], days: Int = 30) throws -> DigestContext {
        DigestContext(input(extra: extra, days: days), locale: try DigestLocale(identifier: locale, timeZone: zone))
    }

    /// An event today at 18:00 with the given title and tasks, for escaping cases.
    static func event(_ title: String, tasks: [String] = ["first"], hour: Int = 18) -> Event {
        let start = now.addingTimeInterval(TimeInterval((hour - 9) * 3600))
        return Event(id: EventID.stable(title), title: title, start: .instant(start), timeZone: zone.identifier,
                     symbol: .star, color: .red,
                     tasks: tasks.enumerated().map { EventTask(id: "t\($0.offset)", text: $0.element) })
    }

    /// The row of a to-do of a to-do list due Thursday 2026-12-03 (all day), with priority 1 unless said.
    static func dueToDo(priority: Int = 1) -> Event {
        let day = EventStart.allDay(CalendarDate(year: 2026, month: 12, day: 3))
        let task = EventTask(id: "passport", text: "Renew passport", due: day, priority: priority)
        return DueTask(listID: "7a5c0000000000aa", listTitle: "Tasks", task: task, due: day.resolved(in: calendar))
            .occurrence(calendar: calendar).event
    }

    static func render(_ format: DigestFormat, locale: String = "en_US", extra: [Event] = [],
                       overrides: String? = nil) throws -> String {
        try DigestRenderer(overrideDirectory: overrides).render(context(locale: locale, extra: extra), format: format)
    }
}

/// This target's golden files (`Snapshots/` beside this file).
let snapshots = GoldenFiles()
