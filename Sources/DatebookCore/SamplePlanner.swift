import Foundation

/// The original planner's sample data, placed relative to `now` for `datebook demo`.
///
/// Relative times count from `now` rounded up to the next whole hour, so two runs in the same
/// hour produce the same planner; ids are derived from the titles so a second run replaces
/// the sample instead of duplicating it.
public enum SamplePlanner {
    enum Offset { case hours(Int), days(Int), years(Int), fixed(CalendarDate) }

    struct Entry {
        let title: String
        let offset: Offset
        let symbol: Symbol
        let color: EventColor
        let tasks: [(String, TaskStatus)]
        var location = ""
        var url = ""
    }

    static let entries: [Entry] = [
        Entry(title: "Maya's Birthday", offset: .days(30), symbol: .gift, color: .red,
              tasks: [("Guava kombucha", .todo), ("Paper cups and plates", .todo), ("Cheese plate", .todo), ("Party poppers", .todo)]),
        Entry(title: "Pagliacci", offset: .hours(22), symbol: .theatermasks, color: .yellow,
              tasks: [("Buy new tux", .done), ("Get tickets", .doing),
                      ("Pick up Carmen at the airport and bring her to the show", .todo)],
              location: "Opera House, Main Stage", url: "https://tickets.example.org/pagliacci"),
        Entry(title: "Doctor's Appointment", offset: .days(4), symbol: .facemask, color: .indigo,
              tasks: [("Bring medical ID", .todo), ("Record heart rate data", .todo)]),
        Entry(title: "Camping Trip", offset: .hours(36), symbol: .leaf, color: .green,
              tasks: [("Find a sleeping bag", .doing), ("Bug spray", .todo), ("Paper towels", .todo),
                      ("Food for 4 meals", .todo), ("Straw hat", .todo)]),
        Entry(title: "Game Night", offset: .days(2), symbol: .gamecontroller, color: .cyan,
              tasks: [("Find a board game to bring", .todo), ("Bring a desert to share", .todo)]),
        Entry(title: "First Day of School", offset: .days(365), symbol: .graduationcap, color: .primary,
              tasks: [("Notebooks", .todo), ("Pencils", .todo), ("Binder", .todo), ("First day of school outfit", .todo)]),
        Entry(title: "Book Launch", offset: .years(2), symbol: .book, color: .purple,
              tasks: [("Finish first draft", .todo), ("Send draft to editor", .todo), ("Final read-through", .todo)]),
        Entry(title: "WWDC", offset: .fixed(CalendarDate(year: 2021, month: 6, day: 7)), symbol: .globeAmericas, color: .gray,
              tasks: [("Watch Keynote", .done), ("Watch What's new in SwiftUI", .done),
                      ("Go to DT developer labs", .done), ("Learn about Create ML", .todo)]),
        Entry(title: "Sayulita Trip", offset: .days(19), symbol: .suitcase, color: .orange,
              tasks: [("Buy plane tickets", .todo), ("Get a new bathing suit", .todo), ("Find a hotel room", .todo)]),
    ]

    /// The sample events for `now` in `calendar`'s zone.
    public static func events(now: Date, calendar: Calendar) -> [Event] {
        let base = roundedUpToHour(now)
        return entries.map { entry in
            let start: EventStart
            switch entry.offset {
            case .hours(let h): start = .instant(base.addingTimeInterval(TimeInterval(h * 3600)))
            case .days(let d): start = .instant(calendar.date(byAdding: .day, value: d, to: base) ?? base)
            case .years(let y): start = .instant(calendar.date(byAdding: .year, value: y, to: base) ?? base)
            case .fixed(let day): start = .allDay(day)
            }
            let id = EventID.stable("sample:" + entry.title)
            let tasks = entry.tasks.enumerated().map { n, task in
                EventTask(id: String(EventID.stable(id + ":\(n)").prefix(8)), text: task.0, status: task.1)
            }
            return Event(id: id, title: entry.title, start: start, timeZone: calendar.timeZone.identifier,
                         symbol: entry.symbol, color: entry.color, location: entry.location, url: entry.url, tasks: tasks)
        }
    }

    static func roundedUpToHour(_ date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / 3600).rounded(.up) * 3600)
    }
}
