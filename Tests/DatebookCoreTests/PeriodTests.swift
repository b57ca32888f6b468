import DatebookCore
import Foundation
import Testing

func calendar(_ zone: String) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)!
    return calendar
}

func local(_ text: String, _ calendar: Calendar) -> Date {
    guard case .instant(let date) = try! WhenParser(now: Date(timeIntervalSince1970: 0), calendar: calendar).parse(text) else {
        fatalError("not an instant: \(text)")
    }
    return date
}

struct PeriodTests {
    @Test func boundariesAreExactAndHalfOpen() {
        let cal = calendar("Europe/Berlin")
        let now = local("2026-11-30 09:00", cal)
        let b = PeriodBoundaries(now: now, calendar: cal)
        #expect(b.period(of: now.addingTimeInterval(-1)) == .past)
        #expect(b.period(of: now) == .next7)
        #expect(b.period(of: local("2026-12-07 08:59:59", cal)) == .next7)
        #expect(b.period(of: local("2026-12-07 09:00", cal)) == .next30)
        #expect(b.period(of: local("2026-12-30 08:59:59", cal)) == .next30)
        #expect(b.period(of: local("2026-12-30 09:00", cal)) == .future)
    }

    /// Spring forward on 2026-03-29 in Berlin: seven calendar days are 167 hours.
    @Test func nextSevenDaysEndsAtCalendarDayBoundaryAcrossSpringForwardInBerlin() {
        let cal = calendar("Europe/Berlin")
        let now = local("2026-03-25 12:00", cal)
        let b = PeriodBoundaries(now: now, calendar: cal)
        #expect(b.sevenDays.timeIntervalSince(now) == 167 * 3600)
        #expect(b.sevenDays == local("2026-04-01 12:00", cal))
        #expect(b.period(of: local("2026-04-01 11:59", cal)) == .next7)
        #expect(b.period(of: local("2026-04-01 12:00", cal)) == .next30)
        // 168 hours later is already past the 7-day boundary.
        #expect(b.period(of: now.addingTimeInterval(168 * 3600 - 1)) == .next30)
    }

    /// Fall back on 2026-10-25 in Berlin: seven calendar days are 169 hours.
    @Test func nextSevenDaysAcrossFallBackInBerlinIs169Hours() {
        let cal = calendar("Europe/Berlin")
        let now = local("2026-10-22 08:00", cal)
        let b = PeriodBoundaries(now: now, calendar: cal)
        #expect(b.sevenDays.timeIntervalSince(now) == 169 * 3600)
        #expect(b.period(of: now.addingTimeInterval(168 * 3600)) == .next7)
    }

    @Test(arguments: [
        ("2026-03-05 10:00", "2026-03-12 10:00", 167.0),   // spring forward 2026-03-08
        ("2026-10-29 10:00", "2026-11-05 10:00", 169.0),   // fall back 2026-11-01
    ])
    func nextSevenDaysAcrossDSTInNewYork(now text: String, boundary: String, hours: Double) {
        let cal = calendar("America/New_York")
        let now = local(text, cal)
        let b = PeriodBoundaries(now: now, calendar: cal)
        #expect(b.sevenDays == local(boundary, cal))
        #expect(b.sevenDays.timeIntervalSince(now) == hours * 3600)
    }

    @Test func thirtyDaysAcrossMonthAndYearEnd() {
        let cal = calendar("America/New_York")
        let now = local("2026-12-15 18:30", cal)
        let b = PeriodBoundaries(now: now, calendar: cal)
        #expect(b.thirtyDays == local("2027-01-14 18:30", cal))
    }

    @Test func agendaGroupsInPeriodOrderSortsByStartAndDropsEmptyPeriods() {
        let cal = calendar("UTC")
        let now = local("2026-06-01 00:00", cal)
        func event(_ title: String, _ at: String, _ statuses: [TaskStatus] = []) -> OccurrenceSummary {
            let tasks = statuses.enumerated().map { EventTask(id: "t\($0.offset)", text: "t", status: $0.element) }
            let e = Event(id: title, title: title, start: .instant(local(at, cal)), timeZone: "UTC",
                          symbol: .star, color: .red, tasks: tasks)
            return Occurrence(event: e, calendar: cal).summary
        }
        let agenda = Agenda(occurrences: [
            event("late", "2026-06-05 10:00", [.todo, .done]), event("early", "2026-06-02 10:00", [.doing]),
            event("old", "2026-05-01 10:00", [.todo]), event("far", "2027-01-01 10:00"),
        ], boundaries: PeriodBoundaries(now: now, calendar: cal))
        #expect(agenda.sections.map(\.period) == [.next7, .future, .past])
        #expect(agenda.sections[0].occurrences.map(\.event.title) == ["early", "late"])
        #expect(agenda.sections[0].openTasks == 2)
        #expect(agenda.openTasks == 3)
    }

    @Test func allDayEventsStartAtLocalMidnightEvenFarFromUTC() {
        for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Sao_Paulo", "Asia/Tokyo"] {
            let cal = calendar(zone)
            let day = CalendarDate(year: 2026, month: 12, day: 24)
            let start = day.start(in: cal)
            let parts = cal.dateComponents([.year, .month, .day, .hour, .minute], from: start)
            #expect(parts.year == 2026 && parts.month == 12 && parts.day == 24 && parts.hour == 0 && parts.minute == 0, "\(zone)")
        }
    }
}

struct BadgeTests {
    func event(_ statuses: [TaskStatus]) -> Event {
        Event(id: "x", title: "x", start: .allDay(CalendarDate(year: 2026, month: 1, day: 1)), timeZone: "UTC",
              symbol: .star, color: .red, tasks: statuses.map { EventTask(id: "t", text: "t", status: $0) })
    }

    @Test func badgeCountsTasksNotDone() {
        #expect(event([.todo, .doing, .done]).badge == 2)
        #expect(event([]).badge == 0)
    }

    @Test func completeNeedsTasksAllDone() {
        #expect(event([.done, .done]).isComplete)
        #expect(!event([]).isComplete)
        #expect(!event([.done, .doing]).isComplete)
    }

    @Test func everySymbolHasAnEmojiAndAllFortyNineExist() {
        #expect(Symbol.allCases.count == 49)
        #expect(Set(Symbol.allCases.map(\.emoji)).count == 49)
        #expect(EventColor.allCases.count == 10)
        #expect(EventColor.allCases.allSatisfy { $0.hex.count == 7 && $0.hex.hasPrefix("#") })
    }
}
