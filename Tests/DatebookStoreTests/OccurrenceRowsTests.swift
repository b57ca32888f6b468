import DatebookCore
@testable import DatebookICal
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

private let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z
private let horizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))

/// `count` timed events from `now` on, every 10th weekly (every 20th with an end), with open and done tasks.
private func planner(_ count: Int, rule: String = "FREQ=WEEKLY") -> [Event] {
    (0..<count).map { (n: Int) -> Event in
        let tasks: [EventTask] = (0..<(n % 3)).map { (t: Int) in EventTask(id: "t\(t)", text: "Task \(t)", status: t == 1 ? .done : .todo) }
        let recurrence: String? = n % 10 != 0 ? nil : n % 20 == 0 ? rule + ";COUNT=5" : rule
        let start = now.addingTimeInterval(Double(n) * 3_917)
        return Event(id: String(format: "e%07d", n), title: "Event \(n)", start: .instant(start),
                     timeZone: "Europe/Berlin", symbol: .star, color: .indigo, tasks: tasks, recurrence: recurrence)
    }
}

/// The `occurrences` and `recurrence_spans` rows as text, in one order on both databases.
private func materialised(_ store: any PlannerStore) throws -> [String] {
    func read<S: SQLStore>(_ store: S) throws -> [String] {
        try store.rows("SELECT event_id, start_key FROM occurrences ORDER BY event_id\(store.dialect.byteOrder), start_key") {
            $0.text(0) + " " + String($0.int64(1))
        } + store.rows("SELECT event_id, from_key, to_key FROM recurrence_spans ORDER BY event_id\(store.dialect.byteOrder)") {
            "span " + $0.text(0) + " " + String($0.int64(1)) + " " + String($0.int64(2))
        }
    }
    guard let sql = store as? any SQLStore else { throw StoreError.busy(path: "not an SQLStore") }
    return try read(sql)
}

/// One recurrence strategy on both databases (issue 30): PostgreSQL materialises occurrences as
/// SQLite does, whichever path wrote the events.
struct OccurrenceRowsTests {
    /// Row by row (fewer than 64 events), through COPY into an empty store and through COPY over
    /// existing events (a rule changed, one event no longer recurring): the same rows as SQLite's.
    @Test func postgreSQLMaterialisesTheSameOccurrenceRowsAsSQLiteOnEveryWritePath() throws {
        let reference = try Backend.sqlite.open(), store = try Backend.postgresql.open()
        var changed = planner(200, rule: "FREQ=DAILY")
        changed[10].recurrence = nil
        for batch in [planner(200), Array(planner(30, rule: "FREQ=MONTHLY")), changed] {
            for each in [reference, store] {
                each.recurrenceHorizon = horizon
                try each.save(batch)
            }
            let rows = try materialised(reference)
            #expect(rows.count > 20)
            #expect(try materialised(store) == rows)
        }
        try store.save(Event(id: "e0000020", title: "once", start: .instant(now), timeZone: "UTC", symbol: .star, color: .indigo))
        try reference.save(Event(id: "e0000020", title: "once", start: .instant(now), timeZone: "UTC", symbol: .star, color: .indigo))
        #expect(try materialised(store) == materialised(reference))
        #expect(try store.delete(id: "e0000030"))
        #expect(try !materialised(store).contains { $0.contains("e0000030") })
    }

    /// A DBA's SQL over `events` and `occurrences` finds the open tasks of the coming week that
    /// datebook lists (timed events, so a start key is the instant).
    @Test(arguments: Backend.allCases)
    func plainSQLOverOccurrencesFindsTheOpenTasksOfTheWeekDatebookLists(_ backend: Backend) throws {
        let store = try backend.open()
        store.recurrenceHorizon = horizon
        try store.save(planner(500))
        let calendar = utcCalendar("Europe/Berlin")
        let week = now.addingTimeInterval(7 * 86_400)
        var listed = (events: 0, openTasks: 0)
        try store.forEachOccurrenceSummary(from: now, to: week, calendar: calendar) {
            listed.events += 1
            listed.openTasks += $0.event.tasks.open
        }
        func sql<S: SQLStore>(_ store: S) throws -> (Int, Int) {
            try #require(try store.first("""
                SELECT count(*), coalesce(sum(open_count), 0) FROM (
                    SELECT e.open_count FROM events e WHERE e.recurrence IS NULL AND e.start_key >= $1 AND e.start_key < $2
                    UNION ALL
                    SELECT e.open_count FROM occurrences o JOIN events e ON e.id = o.event_id WHERE o.start_key >= $1 AND o.start_key < $2
                ) AS week
                """, [.seconds(now), .seconds(week)]) { ($0.int(0), $0.int(1)) })
        }
        guard let database = store as? any SQLStore else { throw StoreError.busy(path: "not an SQLStore") }
        let found = try sql(database)
        #expect(listed.events > 100 && listed.openTasks > 50)
        #expect(found.0 == listed.events && found.1 == listed.openTasks)
    }

    /// A PostgreSQL store of schema 11 (nothing materialised) with recurring events: listings expand
    /// them until the first opening for writing materialises them; the listing stays the same.
    @Test func aPostgreSQLStoreFromSchema11GetsItsOccurrencesOnFirstUse() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let raw = try PostgresConnection(conninfo: url, store: "test")
        raw.preparing = false
        try raw.execute("BEGIN; CREATE SCHEMA old; SET LOCAL search_path TO old")
        try PostgresStore.migrate(raw, store: "test", to: 11)
        try raw.execute("""
            INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color, recurrence, task_count, open_count)
            VALUES ('a1', 'Standup', \(Int(now.timeIntervalSince1970) + 3_600), 0, 'Europe/Berlin', 'star', 'blue', 'FREQ=DAILY', 1, 1),
                   ('a2', 'Review', \(Int(now.timeIntervalSince1970) - 86_400), 0, 'Europe/Berlin', 'star', 'red', 'FREQ=WEEKLY', 0, 0),
                   ('a3', 'Once', \(Int(now.timeIntervalSince1970) + 7_200), 0, 'Europe/Berlin', 'star', 'red', NULL, 0, 0);
            COMMIT
            """)
        let store = try PostgresStore(url: url + "?schema=old")
        store.recurrenceHorizon = horizon
        let calendar = utcCalendar("Europe/Berlin")
        func listing() throws -> [String] {
            var found: [String] = []
            try store.forEachOccurrenceSummary(from: now, to: now.addingTimeInterval(30 * 86_400), calendar: calendar) {
                found.append($0.event.id + " " + ISOInstant.format($0.start, in: calendar.timeZone))
            }
            return found
        }
        let before = try listing()
        #expect(before.filter { $0.hasPrefix("a1 ") }.count == 30 && before.filter { $0.hasPrefix("a2 ") }.count == 4)
        #expect(try materialised(store).isEmpty)
        #expect(try store.extendRecurrenceHorizon() == 2)
        #expect(try materialised(store).filter { $0.hasPrefix("span ") }.count == 2)
        #expect(try listing() == before)
        #expect(try store.extendRecurrenceHorizon() == 0)
    }

    /// Capped counts take the same rows in the same order on both databases, ids that tie on the
    /// start compared by their bytes whatever the database's collation.
    @Test func cappedTotalsAndFirstOccurrencesAreTheSameOnBothBackends() throws {
        let calendar = utcCalendar("Europe/Berlin")
        let prefixes = ["A", "a", "B", "b", "_", "0"]
        let events = (0..<40).map { (n: Int) -> Event in
            let tasks: [EventTask] = (0..<(n % 4)).map { (t: Int) in EventTask(id: "t\(t)", text: "x", status: .todo) }
            let start = now.addingTimeInterval(Double(n / 8) * 60)
            return Event(id: prefixes[n % 6] + "x\(n)", title: "Tie \(n)", start: .instant(start),
                         timeZone: "UTC", symbol: .star, color: .indigo, tasks: tasks)
        }
        var answers: [String] = []
        for backend in Backend.allCases {
            let store = try backend.open()
            try store.save(events)
            let totals = try store.totals(from: now, to: now.addingTimeInterval(3_600), calendar: calendar, onlyOpen: true, singleOnly: true, cap: 13)
            let first = try store.firstOccurrences(from: now, to: nil, calendar: calendar, limit: 7, onlyOpen: false, singleOnly: true, newest: false)
            answers.append("\(totals) " + first.map(\.event.id).joined(separator: ","))
        }
        #expect(answers[0] == answers[1])
        #expect(answers[0].contains("capped: true"))
    }
}

/// The Future rows' speed trick (`nextMaterialised`) gives what `SeriesReach.first` gives every series.
struct FutureFromOccurrenceRowsTests {
    @Test(arguments: Backend.allCases)
    func eachSeriesNextStartFromTheRowsIsTheOneSeriesReachFinds(_ backend: Backend) throws {
        let store = try backend.open()
        store.recurrenceHorizon = horizon
        let calendar = utcCalendar("Europe/Berlin")
        let day = CalendarDate(now, in: calendar.timeZone)
        let rules = ["FREQ=WEEKLY", "FREQ=DAILY;COUNT=3", "FREQ=YEARLY", "FREQ=HOURLY;INTERVAL=5", "FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=WEEKLY;UNTIL=20261120T000000Z"]
        var events: [Event] = []
        for (n, rule) in rules.enumerated() {
            let starts: [EventStart] = [.instant(now.addingTimeInterval(Double(n - 3) * 86_400 + 1_800)),
                                        .allDay(CalendarDate(dayNumber: day.dayNumber + n - 3)),
                                        .floating(FloatingTime(now.addingTimeInterval(Double(n - 2) * 86_400 - 3_600), in: calendar.timeZone))]
            for (k, start) in starts.enumerated() {
                events.append(Event(id: "s\(n)\(k)", title: "Series \(n)\(k)", start: start, timeZone: "America/New_York",
                                    symbol: .star, color: .indigo, recurrence: rule))
            }
        }
        try store.save(events)
        func near<S: SQLStore>(_ store: S) throws -> Int { try store.nextMaterialised(atOrAfter: now, calendar: calendar).count }
        guard let database = store as? any SQLStore else { throw StoreError.busy(path: "not an SQLStore") }
        #expect(try near(database) >= 9, "the rows answer most series")
        for from in [now, now.addingTimeInterval(-3 * 3_600), now.addingTimeInterval(40 * 86_400), now.addingTimeInterval(200 * 86_400)] {
            var listed: [String] = []
            try store.forEachRecurringOccurrence(from: from, to: nil, calendar: calendar) {
                listed.append($0.event.id + " " + ISOInstant.format($0.start, in: calendar.timeZone))
            }
            let plain = events.compactMap { event -> (Date, String)? in
                SeriesReach.first(start: event.start, timeZone: event.timeZone, recurrence: event.recurrence ?? "", atOrAfter: from,
                                  calendar: calendar).map { ($0, event.id + " " + ISOInstant.format($0, in: calendar.timeZone)) }
            }
            #expect(listed.sorted() == plain.map(\.1).sorted(), "from \(from)")
            #expect(listed.count > 10)
        }
    }
}
