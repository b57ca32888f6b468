import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// A to-do list (`Event.isTaskList`) is on no date: no listing nor digest window holds it, however
/// old its day; its open to-dos with a due date are in the window of that date. On both backends.
struct TaskListStoreTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
        return calendar
    }

    static let list = Event(
        id: "11111111aaaaaaaa", title: "Tasks", start: .allDay(CalendarDate(year: 2026, month: 11, day: 2)), timeZone: "Europe/Berlin",
        symbol: .star, color: .primary,
        tasks: [EventTask(id: "passport", text: "Renew passport", due: .allDay(CalendarDate(year: 2026, month: 12, day: 4)), priority: 1),
                EventTask(id: "photos", text: "Get photos", parent: "passport"),
                EventTask(id: "stamps", text: "Buy stamps", status: .done, due: .allDay(CalendarDate(year: 2026, month: 12, day: 2))),
                EventTask(id: "call", text: "Call the office", due: .instant(Date(timeIntervalSince1970: 1_795_939_200)), priority: 3)],
        isTaskList: true)

    @Test(arguments: Backend.allCases) func aListIsOnNoDateAndItsOpenDueToDosAreInTheirWindow(_ backend: Backend) throws {
        let store = try backend.open()
        let dentist = Event(id: "22222222bbbbbbbb", title: "Dentist", start: .instant(Self.now.addingTimeInterval(-86_400)),
                            timeZone: "Europe/Berlin", symbol: .star, color: .primary, tasks: [EventTask(id: "card", text: "Card")])
        try store.save([Self.list, dentist])
        // Read back whole: due dates, priorities, parents and the flag.
        #expect(try store.event(id: Self.list.id) == Self.list)
        #expect(try store.taskLists() == [Self.list])
        var listed: [String] = []
        try store.forEachOccurrenceSummary(from: nil, to: nil, calendar: Self.calendar) { listed.append($0.event.id) }
        #expect(listed == [dentist.id])
        let overdue = try store.firstOccurrences(from: nil, to: Self.now, calendar: Self.calendar, limit: 10, onlyOpen: true,
                                                 singleOnly: true, newest: true)
        #expect(overdue.map(\.event.id) == [dentist.id])
        #expect(try store.totals(from: nil, to: Self.now, calendar: Self.calendar, onlyOpen: true, singleOnly: true, cap: 100).events == 1)
        // Open to-dos only, in their windows (the call was due yesterday 08:00 UTC).
        let week = try store.dueTasks(from: Self.now, to: Self.now.addingTimeInterval(7 * 86_400), calendar: Self.calendar)
        #expect(week.map(\.task.id) == ["passport"])
        #expect(week.first?.due == CalendarDate(year: 2026, month: 12, day: 4).start(in: Self.calendar))
        #expect(try store.dueTasks(from: nil, to: Self.now, calendar: Self.calendar).map(\.task.id) == ["call"])
    }
}
