import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// A new scratch folder, removed by the reaper when the test process ends.
func temporaryDirectory() -> String { makeScratchFolder("store") }

func utcCalendar(_ zone: String = "UTC") -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    return calendar
}

func event(_ id: String, _ start: EventStart, tasks: [TaskStatus] = []) -> Event {
    Event(id: id, title: "Event \(id)", start: start, timeZone: "UTC", symbol: .star, color: .red,
          tasks: tasks.enumerated().map { EventTask(id: "t\($0.offset)", text: "task \($0.offset)", status: $0.element) })
}

/// SQLite only: opening a file (its mode, kind, schema version, read-only bit and locks).
struct StoreOpeningTests {
    @Test func createsFile0600InDirectories0700AndMigrates() throws {
        let dir = temporaryDirectory() + "/nested/datebook"
        let path = dir + "/datebook.sqlite3"
        let store = try Store(path: path)
        #expect(try store.userVersion() == Store.schemaVersion)
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(dirMode == 0o700)
        #expect(try store.db.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('events', 'tasks')") == 2)
        #expect(try store.db.prepare("PRAGMA journal_mode").step())
    }

    @Test func migratesAnEmptyExistingFile() throws {
        let path = temporaryDirectory() + "/empty.sqlite3"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let store = try Store(path: path)
        #expect(try store.userVersion() == Store.schemaVersion)
        try store.save(event("e1", .allDay(CalendarDate(year: 2026, month: 1, day: 1))))
        #expect(try store.eventCount() == 1)
    }

    @Test func refusesANewerSchemaAndLeavesTheFileUntouched() throws {
        let path = temporaryDirectory() + "/newer.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute("CREATE TABLE future(x); PRAGMA user_version = 99")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.newerSchema(path: path, found: 99, known: Store.schemaVersion)) { try Store(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test(arguments: [-1, Int(Int32.min)], [false, true])
    func refusesANegativeSchemaVersionAndLeavesTheFileUntouched(version: Int, readOnly: Bool) throws {
        let path = temporaryDirectory() + "/negative.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute("CREATE TABLE other(x); PRAGMA user_version = \(version)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.unknownSchema(path: path, found: version)) { try Store(path: path, readOnly: readOnly) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func refusesAFileThatIsNotSQLiteAndLeavesItUntouched() throws {
        let path = temporaryDirectory() + "/notes.txt"
        let text = Data(String(repeating: "not a database\n", count: 300).utf8)
        _ = FileManager.default.createFile(atPath: path, contents: text)
        #expect(throws: StoreError.notADatabase(path: path)) { try Store(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
    }

    @Test func refusesADirectory() throws {
        let path = temporaryDirectory()
        #expect(throws: StoreError.isDirectory(path: path)) { try Store(path: path) }
    }

    @Test func refusesAFIFOOrADeviceInsteadOfBlocking() throws {
        let fifo = temporaryDirectory() + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        for readOnly in [false, true] {
            #expect(throws: StoreError.notRegularFile(path: fifo, kind: "a FIFO (named pipe)")) {
                try Store(path: fifo, readOnly: readOnly)
            }
            #expect(throws: StoreError.notRegularFile(path: "/dev/null", kind: "a character device")) {
                try Store(path: "/dev/null", readOnly: readOnly)
            }
        }
    }

    @Test func refusesToWriteAReadOnlyStoreButReadsIt() throws {
        let path = temporaryDirectory() + "/ro.sqlite3"
        try Store(path: path).save(event("e1", .allDay(CalendarDate(year: 2026, month: 1, day: 1))))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        #expect(throws: StoreError.readOnly(path: path)) { try Store(path: path) }
        #expect(try Store(path: path, readOnly: true).eventCount() == 1)
    }

    @Test func aSecondWriterWaitsForTheLockInsteadOfFailing() throws {
        let path = temporaryDirectory() + "/busy.sqlite3"
        _ = try Store(path: path)
        Self.holdLock(path, "BEGIN IMMEDIATE")
        let second = try Store(path: path)
        let started = Date()
        try second.save(event("e2", .allDay(CalendarDate(year: 2026, month: 1, day: 2))))
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(try second.eventCount() == 1)
    }

    /// `serve` opens a read-only connection per request while another connection may hold the
    /// file's lock for a moment (a checkpoint on close); the reader's first statement waits.
    @Test func aReaderWaitsForALockHeldAtItsOpening() throws {
        let path = temporaryDirectory() + "/busy-reader.sqlite3"
        try Store(path: path).save(event("e1", .allDay(CalendarDate(year: 2026, month: 1, day: 1))))
        Self.holdLock(path, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE")
        let started = Date()
        let reader = try Store(path: path, readOnly: true)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        #expect(try reader.eventCount() == 1)
    }

    /// Runs `sql` on a connection of its own, then holds what it took for 0.3 s (commits and closes);
    /// returns once the lock is taken.
    static func holdLock(_ path: String, _ sql: String) {
        let locked = DispatchSemaphore(value: 0)
        Thread {
            guard let other = try? SQLiteConnection(path: path, flags: 0x2) else { locked.signal(); return }
            try? other.execute(sql)
            locked.signal()
            Thread.sleep(forTimeInterval: 0.3)
            try? other.execute("COMMIT")
        }.start()
        locked.wait()
    }
}

struct StoreQueryTests {
    @Test(arguments: Backend.allCases)
    func savesLoadsAndDeletesWithTasks(_ backend: Backend) throws {
        let store = try backend.open()
        var e = event("abcd123400000000", .instant(Date(timeIntervalSince1970: 1_800_000_000)), tasks: [.todo, .doing, .done])
        e.alerts = [LeadTime("1d")!, LeadTime("1h")!]
        e.notes = "n"
        e.recurrence = "FREQ=DAILY"
        e.end = .instant(Date(timeIntervalSince1970: 1_800_003_600))
        try store.save(e)
        #expect(try store.event(id: e.id) == e)
        #expect(try store.events(idPrefix: "ABCD").map(\.id) == [e.id])
        #expect(try store.events(titled: "event abcd123400000000").map(\.id) == [e.id])
        e.tasks.removeFirst()
        try store.save(e)
        #expect(try store.event(id: e.id)?.tasks.count == 2)
        #expect(try store.delete(id: e.id))
        #expect(try store.event(id: e.id) == nil)
        #expect(try rowCount("tasks", in: store) == 0)
    }

    /// Text is bound by its byte count: an empty note stays empty (not NULL) and a NUL inside a
    /// title does not cut it short (SQLite only: PostgreSQL cannot hold a NUL in a text).
    @Test(arguments: Backend.allCases)
    func textRoundTripsExactly(_ backend: Backend) throws {
        let store = try backend.open()
        var saved = event("nul", .instant(Date(timeIntervalSince1970: 1_800_000_000)))
        saved.title = (backend == .sqlite ? "before\u{0}after" : "before after") + " ünï ✈️ 'quoted' \"double\" \\ $1 ?"
        saved.notes = ""
        try store.save(saved)
        let loaded = try #require(try store.event(id: "nul"))
        #expect(loaded.title == saved.title)
        #expect(loaded.notes == "")
    }

    /// SQLite only: its query plan.
    @Test func windowQueryUsesTheStartIndex() throws {
        let store = try Store(path: temporaryDirectory() + "/plan.sqlite3")
        let plan = try store.db.prepare("EXPLAIN QUERY PLAN " + Store.selectSQL(where: "e.start_key >= 1 AND e.start_key < 2", order: "e.start_key, e.id"))
        var detail = ""
        while try plan.step() { detail += plan.text(3) + "\n" }
        #expect(detail.contains("USING INDEX events_by_start"), "\(detail)")
        #expect(!detail.contains("SCAN e\n"), "\(detail)")
        #expect(!detail.contains("TEMP B-TREE"), "\(detail)")
    }

    /// All-day events are keyed at midnight UTC but start at local midnight: the window must still be exact
    /// and the order chronological, even in zones 14 hours from UTC.
    @Test(arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC", "America/New_York"], Backend.allCases)
    func windowIsExactAndChronologicalWithAllDayEvents(zone: String, backend: Backend) throws {
        let cal = utcCalendar(zone)
        let store = try backend.open()
        var events: [Event] = []
        for day in 1...20 {
            events.append(event(String(format: "d%02d", day), .allDay(CalendarDate(year: 2026, month: 12, day: day))))
            for hour in [0, 6, 11, 13, 18, 23] {
                let start = CalendarDate(year: 2026, month: 12, day: day).start(in: cal).addingTimeInterval(TimeInterval(hour * 3600 - 1800))
                events.append(event(String(format: "i%02d%02d", day, hour), .instant(start)))
            }
        }
        try store.save(events)
        let from = CalendarDate(year: 2026, month: 12, day: 5).start(in: cal)
        let to = CalendarDate(year: 2026, month: 12, day: 12).start(in: cal)
        var seen: [Occurrence] = []
        try store.forEachOccurrence(from: from, to: to, calendar: cal) { seen.append($0) }
        let expected = events.map { Occurrence(event: $0, calendar: cal) }
            .filter { $0.start >= from && $0.start < to }.sorted(by: Occurrence.chronological)
        #expect(seen.map(\.event.id) == expected.map(\.event.id))
        #expect(seen.count == 7 * 7)
    }

    /// `datebook tasks` reads the events with a task of the statuses asked for, by start, once.
    /// Every set of statuses takes its own filter (task counts, or the tasks themselves).
    @Test(arguments: Backend.allCases)
    func eventsWithATaskOfTheStatusesComeByStartWithAllTheirTasks(_ backend: Backend) throws {
        let store = try backend.open()
        try store.save([event("a", .instant(Date(timeIntervalSince1970: 100)), tasks: [.todo, .done, .todo]),
                        event("b", .instant(Date(timeIntervalSince1970: 50)), tasks: [.doing, .todo]),
                        event("c", .instant(Date(timeIntervalSince1970: 10)), tasks: []),
                        event("d", .allDay(CalendarDate(year: 1970, month: 1, day: 1)), tasks: [.done, .done])])
        func events(_ statuses: Set<TaskStatus>) throws -> [String] {
            var seen: [String] = []
            try store.forEachEvent(withTaskIn: statuses) {
                seen.append("\($0.id):\($0.tasks.map(\.status.rawValue).joined(separator: ","))")
            }
            return seen
        }
        let a = "a:todo,done,todo", b = "b:doing,todo", d = "d:done,done"
        #expect(try events([.todo, .doing, .done]) == [d, b, a])
        #expect(try events([.todo, .doing]) == [b, a])
        #expect(try events([.done]) == [d, a])
        #expect(try events([.todo]) == [b, a])
        #expect(try events([.doing]) == [b])
        #expect(try events([.doing, .done]) == [d, b, a])
        #expect(try events([]) == [])
    }
}

/// SQLite only: files written by old schemas (PostgreSQL's upgrades: `MigrationTests`).
struct StoreUpgradeTests {
    /// A store written by an older schema is upgraded even by a read-only command.
    @Test func readingAnOlderStoreUpgradesItInPlace() throws {
        let path = temporaryDirectory() + "/old.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute(Store.migrations[0] + "; PRAGMA user_version = 1")
            try raw.execute("INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color) VALUES ('e1', 'Kept', 0, 0, 'UTC', 'star.fill', 'red')")
        }
        let store = try Store(path: path, readOnly: true)
        #expect(try store.userVersion() == Store.schemaVersion)
        #expect(try store.event(id: "e1")?.title == "Kept")
    }

    /// Schema 6 rebuilds tasks and deliveries with the same rules written as comparisons: rows,
    /// indexes and the rules themselves survive, and the inserts no longer build a temporary B-tree.
    /// Schemas 7 and 8 change indexes; the test follows the upgrade to the newest.
    @Test func schemaSixKeepsTasksDeliveriesAndTheirRules() throws {
        let path = temporaryDirectory() + "/v5.sqlite3"
        do {
            let raw = try SQLiteConnection(path: path, flags: 0x6)
            try raw.execute(Store.migrations[0..<5].joined(separator: ";\n") + "; PRAGMA user_version = 5")
            try raw.execute("""
                INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color, task_count, open_count)
                    VALUES ('e1', 'Kept', 0, 0, 'UTC', 'star.fill', 'red', 2, 1);
                INSERT INTO tasks VALUES ('e1', 0, 't0', 'first', 'todo'), ('e1', 1, 't1', 'second', 'done');
                INSERT INTO deliveries (key, kind, event_id, channel, due_at, state, next_attempt_at, created_at, updated_at)
                    VALUES ('k1', 'alert', 'e1', 'desk', 5, 'sent-late', 5, 1, 2);
                """)
        }
        let store = try Store(path: path)
        #expect(try store.userVersion() == Store.schemaVersion)
        #expect(try store.event(id: "e1")?.tasks.map(\.text) == ["first", "second"])
        var done: [String] = []
        try store.forEachEvent(withTaskIn: [.done]) { done += $0.tasks.filter { $0.status == .done }.map(\.text) }
        #expect(done == ["second"])
        let raw = try SQLiteConnection(path: path, flags: 0x2)
        #expect(try raw.integer("SELECT count(*) FROM deliveries WHERE state = 'sent-late' AND kind = 'alert'") == 1)
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('deliveries_due', 'deliveries_by_event', 'deliveries_by_update')") == 3)
        // Schema 8 dropped the status index of tasks; the tasks query still answers.
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name = 'tasks_by_status'") == 0)
        #expect(throws: SQLiteError.self) { try raw.execute("INSERT INTO tasks (event_id, position, id, text, status) VALUES ('e1', 2, 't2', 'x', 'later')") }
        #expect(throws: SQLiteError.self) {
            try raw.execute("UPDATE deliveries SET state = 'lost' WHERE key = 'k1'")
        }
        // Schema 7: a feed's sources are still found through the (shorter) calendar index.
        let plan = try raw.prepare("EXPLAIN QUERY PLAN SELECT event_id FROM event_sources WHERE calendar = ?")
        var details: [String] = []
        while try plan.step() { details.append(plan.text(3)) }
        #expect(details.contains { $0.contains("INDEX event_sources_by_calendar") }, "\(details)")
        for insert in ["INSERT INTO tasks (event_id, position, id, text, status) VALUES (?, ?, ?, ?, ?)",
                       "INSERT INTO deliveries (key, kind, channel, due_at, state, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"] {
            let plan = try raw.prepare("EXPLAIN " + insert)
            var opcodes: [String] = []
            while try plan.step() { opcodes.append(plan.text(1)) }
            #expect(opcodes.contains("Insert") || opcodes.contains("IdxInsert"))
            #expect(!opcodes.contains("OpenEphemeral"), "\(insert) builds a temporary B-tree per run")
        }
    }
}

struct StoreSummaryTests {
    /// The listing path (counts from the covering index) agrees with the full path (tasks loaded).
    @Test(arguments: Backend.allCases)
    func summariesCarryTheSameBadgesAndOrderAsFullEvents(_ backend: Backend) throws {
        let store = try backend.open()
        let cal = utcCalendar("Europe/Berlin")
        var events: [Event] = []
        for n in 0..<50 {
            let patterns: [[TaskStatus]] = [[], [.done], [.todo], [.doing, .done], [.done, .done, .todo], [.done, .done]]
            let statuses = patterns[n % patterns.count]
            let start: EventStart = n % 7 == 0 ? .allDay(CalendarDate(year: 2026, month: 12, day: 1 + n % 28))
                : .instant(Date(timeIntervalSince1970: 1_796_000_000 + TimeInterval(n * 37_000)))
            events.append(event(String(format: "s%03d", n), start, tasks: statuses))
        }
        try store.save(events)
        var full: [Occurrence] = [], summaries: [OccurrenceSummary] = []
        try store.forEachOccurrence(from: nil, to: nil, calendar: cal) { full.append($0) }
        try store.forEachOccurrenceSummary(from: nil, to: nil, calendar: cal) { summaries.append($0) }
        #expect(full.map(\.event.id) == summaries.map(\.event.id))
        #expect(full.map(\.event.badge) == summaries.map(\.event.badge))
        #expect(full.map(\.event.isComplete) == summaries.map(\.event.isComplete))
        #expect(summaries == full.map(\.summary))
        let agenda = try store.agenda(boundaries: PeriodBoundaries(now: Date(timeIntervalSince1970: 1_796_500_000), calendar: cal), calendar: cal)
        #expect(Set(agenda.sections.flatMap(\.occurrences)) == Set(summaries), "the agenda lists the same summaries")
        #expect(full.contains { $0.event.isComplete } && full.contains { $0.event.badge > 0 } && full.contains { $0.event.tasks.isEmpty })
    }
}
