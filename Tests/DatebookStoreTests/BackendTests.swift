import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// The rows of `table` in `store`, read through the shared SQL (either backend).
func rowCount(_ table: String, in store: any PlannerStore) throws -> Int {
    func count(_ store: some SQLStore) throws -> Int { try store.first("SELECT count(*) FROM \(table)") { $0.int(0) } ?? 0 }
    guard let sql = store as? any SQLStore else { throw StoreError.sqlite(path: store.location, message: "not a SQL store") }
    return try count(sql)
}

private let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

private func sample(_ calendar: Calendar) -> [Event] {
    var events = SamplePlanner.events(now: now, calendar: calendar)
    events.append(Event(id: "beef0001", title: "Weekly sync", start: .instant(now.addingTimeInterval(3_600)),
                        timeZone: "Europe/Berlin", symbol: .star, color: .indigo, recurrence: "FREQ=WEEKLY;COUNT=10"))
    events.append(Event(id: "beef0002", title: "Holiday", start: .allDay(CalendarDate(now, in: calendar.timeZone)),
                        timeZone: "Europe/Berlin", symbol: .star, color: .green,
                        tasks: [EventTask(id: "a", text: "Pack", status: .doing), EventTask(id: "b", text: "Go", status: .todo)]))
    return events
}

struct BackendTests {
    /// `events(ids:)` reads many events at once (SQLite: 100 a query; PostgreSQL: one query over an
    /// array), each with its tasks in order; a repeated id counts once, an unknown one is left out.
    @Test(arguments: Backend.allCases)
    func manyEventsAreReadByIdWithTheirTasks(_ backend: Backend) throws {
        let store = try backend.open()
        let events = (0..<250).map { n in
            Event(id: String(format: "ab%04d", n), title: "Event \(n) \"quoted\", {braced}", start: .instant(now.addingTimeInterval(Double(n) * 60)),
                  timeZone: "UTC", symbol: .star, color: .indigo,
                  tasks: n % 3 == 0 ? [EventTask(id: "t1", text: "First"), EventTask(id: "t2", text: "Second", status: .done)] : [])
        }
        try store.save(events)
        let wanted = events.filter { !$0.id.hasSuffix("7") }
        let found = try store.events(ids: wanted.map(\.id) + wanted.prefix(30).map(\.id) + ["missing"])
        #expect(found.count == wanted.count)
        #expect(wanted.allSatisfy { found[$0.id]?.title == $0.title && found[$0.id]?.tasks.map(\.text) == $0.tasks.map(\.text) })
        #expect(try store.events(ids: []).isEmpty)
    }

    /// What the dialect answers of a store: its schema version, whether a file is watched, and that
    /// the write-ahead log calls the daemon makes on any store work on both (PostgreSQL's do nothing).
    @Test(arguments: Backend.allCases)
    func aStoreSaysItsSchemaVersionAndWhetherItHasAFile(_ backend: Backend) throws {
        let store = try backend.open()
        #expect(try store.userVersion() == (backend == .sqlite ? Store.schemaVersion : PostgresStore.schemaVersion))
        #expect(store.watchedFile == (backend == .sqlite ? store.location : nil))
        try store.save(sample(utcCalendar()))
        try store.emptyLog()
        #expect(store.emptyLogIfIdle())
        #expect(try store.eventCount() == sample(utcCalendar()).count)
    }

    @Test(arguments: Backend.allCases)
    func savesReadsAndDeletesEventsWithTheirTasks(_ backend: Backend) throws {
        let store = try backend.open()
        let calendar = utcCalendar("Europe/Berlin")
        try store.save(sample(calendar))
        #expect(try store.eventCount() == sample(calendar).count)
        let holiday = try #require(try store.event(id: "beef0002"))
        #expect(holiday == sample(calendar).first { $0.id == "beef0002" })
        #expect(holiday.tasks.map(\.text) == ["Pack", "Go"])
        #expect(try store.events(titled: "holiday").map(\.id) == ["beef0002"])
        #expect(try store.events(idPrefix: "BEEF").map(\.id) == ["beef0001", "beef0002"])
        #expect(try store.eventNames(prefix: "Week").map(\.title) == ["Weekly sync"])
        var changed = holiday
        changed.tasks = [EventTask(id: "c", text: "Only", status: .done)]
        try store.save(changed)
        #expect(try store.event(id: "beef0002")?.tasks == changed.tasks)
        #expect(try store.delete(id: "beef0002"))
        #expect(try store.delete(id: "beef0002") == false)
        #expect(try store.event(id: "beef0002") == nil)
    }

    /// The same planner gives the same agenda, recurring occurrences and all, on both backends.
    @Test(arguments: [Backend.postgresql])
    func agendaEqualsTheSQLiteAgenda(_ backend: Backend) throws {
        let calendar = utcCalendar("Europe/Berlin")
        let reference = try Backend.sqlite.open()
        let store = try backend.open()
        for each in [reference, store] {
            each.recurrenceHorizon = DateInterval(start: now.addingTimeInterval(-7 * 86_400), end: now.addingTimeInterval(92 * 86_400))
            try each.save(sample(calendar))
        }
        let boundaries = PeriodBoundaries(now: now, calendar: calendar)
        let expected = try reference.agenda(boundaries: boundaries, calendar: calendar)
        // Weekly ×10 from now: every occurrence in Next 7 and Next 30 Days (5), then Future once.
        #expect(expected.sections.flatMap(\.occurrences).filter { $0.event.id == "beef0001" }.count == 6)
        #expect(try store.agenda(boundaries: boundaries, calendar: calendar) == expected)
        var summaries: [[OccurrenceSummary]] = [[], []]
        for (index, each) in [reference, store].enumerated() {
            try each.forEachOccurrenceSummary(from: now, to: now.addingTimeInterval(30 * 86_400), calendar: calendar) {
                summaries[index].append($0)
            }
        }
        #expect(summaries[1] == summaries[0])
        #expect(!summaries[0].isEmpty)
        let week = now.addingTimeInterval(7 * 86_400)
        #expect(try store.totals(from: now, to: week, calendar: calendar, onlyOpen: false, singleOnly: true, cap: .max)
                == reference.totals(from: now, to: week, calendar: calendar, onlyOpen: false, singleOnly: true, cap: .max))
    }

    @Test(arguments: Backend.allCases)
    func aClaimedDeliveryIsClaimedOnceAndSettledByItsClaimant(_ backend: Backend) throws {
        let store = try backend.open()
        for n in 0..<3 {
            let entry = LedgerEntry(key: "k\(n)", kind: .alert, eventID: "e", occurrenceStart: now, lead: "1h",
                                    channel: "team", dueAt: now.addingTimeInterval(Double(n)))
            #expect(try store.plan(entry, now: now))
            #expect(try store.plan(entry, now: now) == false)
        }
        let claimed = try store.transaction { try store.claimDue(now: now.addingTimeInterval(1), lease: 60, claimant: "a:1") }
        #expect(claimed.map(\.key) == ["k0", "k1"])
        #expect(claimed.allSatisfy { $0.state == .sending && $0.claimedBy == "a:1" && $0.attempts == 1 })
        #expect(try store.claimDue(now: now.addingTimeInterval(2), lease: 60, claimant: "b:2").map(\.key) == ["k2"])
        try store.settle(key: "k0", claimant: "b:2", as: .sent, reason: nil, nextAttempt: nil, now: now)
        #expect(try store.delivery(key: "k0")?.state == .sending)
        try store.settle(key: "k0", claimant: "a:1", as: .sent, reason: nil, nextAttempt: nil, now: now)
        #expect(try store.delivery(key: "k0")?.state == .sent)
        // The lease of k1 runs out: it goes back to pending and another claimant takes it.
        try store.releaseAbandoned(now: now.addingTimeInterval(61), isGone: { _ in false })
        #expect(try store.delivery(key: "k1")?.state == .pending)
        #expect(try store.claimDue(now: now.addingTimeInterval(61), lease: 60, claimant: "b:2").map(\.key) == ["k1"])
        try store.setLastPass(now)
        #expect(try store.lastPass() == now)
        #expect(try store.openDeliveries().map(\.key) == ["k1", "k2"])
        #expect(try store.settledDeliveries(since: now).map(\.key) == ["k0"])
    }

    /// Many deliveries planned and settled at once (one statement each on PostgreSQL, its values as
    /// array literals) keep every text exactly, NULLs as NULLs, and plan a repeated key once.
    @Test(arguments: Backend.allCases)
    func plansAndOutcomesInBulkKeepEveryText(_ backend: Backend) throws {
        let store = try backend.open()
        let awkward = ["plain", "with \"quotes\"", "back\\slash", "{braces},commas", "NULL", "", "ünï cödé 🎉"]
        let entries = awkward.enumerated().map { n, text in
            LedgerEntry(key: "k\(n) " + text, kind: .alert, eventID: n % 2 == 0 ? nil : text, occurrenceStart: n % 2 == 0 ? now : nil,
                        lead: text, channel: "team", dueAt: now.addingTimeInterval(Double(n)), reason: n % 3 == 0 ? nil : text)
        }
        #expect(try store.plan(entries + [entries[0]], now: now) == Set(entries.map(\.key)))
        #expect(try store.plan(entries, now: now).isEmpty)
        let stored = try store.allDeliveries()
        #expect(stored.map(\.key) == entries.map(\.key))
        for (entry, row) in zip(entries, stored) {
            #expect(row.eventID == entry.eventID && row.lead == entry.lead && row.reason == entry.reason
                    && row.occurrenceStart == entry.occurrenceStart && row.dueAt == entry.dueAt, "\(entry.key)")
        }
        let claimed = try store.transaction { try store.claimDue(now: now.addingTimeInterval(60), lease: 60, claimant: "a:1") }
        #expect(claimed.count == entries.count)
        try store.transaction {
            try store.settle(entries.enumerated().map { n, entry in
                Settlement(key: entry.key, state: n % 2 == 0 ? .sent : .pending, reason: n % 2 == 0 ? nil : "again: " + awkward[n],
                           nextAttempt: n % 2 == 0 ? nil : now.addingTimeInterval(600))
            }, claimant: "a:1", now: now.addingTimeInterval(61))
        }
        for (n, entry) in entries.enumerated() {
            let row = try store.delivery(key: entry.key)
            #expect(row?.state == (n % 2 == 0 ? .sent : .pending))
            #expect(row?.reason == (n % 2 == 0 ? entry.reason : "again: " + awkward[n]))
            #expect(row?.nextAttemptAt == (n % 2 == 0 ? entry.nextAttemptAt : now.addingTimeInterval(600)))
            #expect(row?.claimedBy == nil)
        }
    }

    /// A claim whose claimant died on another machine is taken over when its lease ends: the
    /// daemon wakes then, not at its next minute.
    @Test(arguments: Backend.allCases)
    func theLedgerWakesForAPendingAttemptOrTheEndOfALease(_ backend: Backend) throws {
        let store = try backend.open()
        #expect(try store.nextLedgerWake() == nil)
        for n in 0..<2 {
            let entry = LedgerEntry(key: "k\(n)", kind: .alert, channel: "team", dueAt: now.addingTimeInterval(Double(n) * 600))
            #expect(try store.plan(entry, now: now))
        }
        #expect(try store.nextLedgerWake() == now)
        #expect(try store.transaction { try store.claimDue(now: now, lease: 30, claimant: "elsewhere:1", limit: 1) }.count == 1)
        #expect(try store.nextLedgerWake() == now.addingTimeInterval(30))
        #expect(try store.transaction { try store.claimDue(now: now.addingTimeInterval(600), lease: 60, claimant: "b:2", limit: 1) }.count == 1)
        #expect(try store.nextLedgerWake() == now.addingTimeInterval(30))
        try store.settle(key: "k0", claimant: "elsewhere:1", as: .sent, reason: nil, nextAttempt: nil, now: now)
        #expect(try store.nextLedgerWake() == now.addingTimeInterval(660))
    }
}

/// What only the PostgreSQL store has: concurrent claims, its URL, its schema and its errors.
struct PostgresStoreTests {
    /// After the clock went back (issue 27): only deliveries skipped as too late whose due time is
    /// after the bound go back to pending, due again at their due time; marks round-trip.
    @Test(arguments: Backend.allCases)
    func skippedAsLateDeliveriesAfterTheBoundArePlannedAgainAndMarksAreKept(_ backend: Backend) throws {
        let store = try backend.open()
        let entries = [
            LedgerEntry(key: "old", kind: .alert, channel: "team", dueAt: now.addingTimeInterval(-86_400), state: .skipped,
                        reason: "late: due …, first seen 2d0h later, over the lateness of 6h0m"),
            LedgerEntry(key: "ahead", kind: .alert, channel: "team", dueAt: now.addingTimeInterval(3600), state: .skipped,
                        reason: "late: due …, first seen 29d0h later, over the lateness of 6h0m"),
            LedgerEntry(key: "cancelled", kind: .alert, channel: "team", dueAt: now.addingTimeInterval(3600), state: .cancelled,
                        reason: "all tasks done"),
            LedgerEntry(key: "policy", kind: .alert, channel: "team", dueAt: now.addingTimeInterval(3600), state: .skipped,
                        reason: "quiet"),
        ]
        try store.transaction { _ = try store.plan(entries, now: now) }
        #expect(try store.transaction { try store.replanSkippedAsLate(dueAfter: now.addingTimeInterval(-3600), now: now) } == 1)
        let ahead = try #require(try store.delivery(key: "ahead"))
        #expect(ahead.state == .pending && ahead.reason == nil && ahead.attempts == 0)
        #expect(ahead.nextAttemptAt == now.addingTimeInterval(3600))
        #expect(try ["old", "cancelled", "policy"].map { try store.delivery(key: $0)?.state } == [.skipped, .cancelled, .skipped])
        #expect(try store.schedulerMark("clock_jump_at") == nil)
        try store.setSchedulerMark("clock_jump_at", now)
        try store.setSchedulerMark("clock_jump_at", now.addingTimeInterval(60))
        #expect(try store.schedulerMark("clock_jump_at") == now.addingTimeInterval(60))
    }

    @Test func twoInstancesClaimingAtOnceGetDisjointDeliveries() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let first = try PostgresStore(url: url), second = try PostgresStore(url: url)
        for n in 0..<10 {
            try first.plan(LedgerEntry(key: "k\(n)", kind: .digest, digest: "morning", channel: "c\(n)", dueAt: now), now: now)
        }
        // The first holds its claim's row locks while the second claims: SKIP LOCKED hands it the others.
        let (mine, theirs) = try first.transaction {
            let mine = try first.claimDue(now: now, lease: 60, claimant: "a:1", limit: 6)
            let theirs = try second.transaction { try second.claimDue(now: now, lease: 60, claimant: "b:2", limit: 6) }
            return (mine, theirs)
        }
        #expect(mine.count == 6)
        #expect(theirs.count == 4)
        #expect(Set(mine.map(\.key)).isDisjoint(with: theirs.map(\.key)))
    }

    @Test func aSchemaFromANewerDatebookIsRefusedAndLeftUntouched() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        try PostgresStore(url: url).save(Event(id: "e1", title: "Kept", start: .allDay(CalendarDate(dayNumber: 20_000)),
                                               timeZone: "UTC", symbol: .star, color: .red))
        try server.sql("UPDATE datebook.meta SET value = 99 WHERE name = 'schema_version'", database: database)
        #expect(throws: StoreError.newerSchema(path: url, found: 99, known: PostgresStore.schemaVersion)) { try PostgresStore(url: url) }
        #expect(try server.sql("SELECT value FROM datebook.meta WHERE name = 'schema_version'", database: database) == "99")
        #expect(try server.sql("SELECT title FROM datebook.events", database: database) == "Kept")
    }

    @Test func everythingLivesInTheSchemaTheURLNames() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        let store = try PostgresStore(url: url + "?schema=team_planner")
        #expect(store.location == url + "?schema=team_planner")
        #expect(try server.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'team_planner'", database: database) == String(StoreSchema.current.on(.postgres).tables.count))
        #expect(try server.sql("SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('team_planner', 'pg_catalog', 'information_schema')",
                               database: database) == "0")
    }

    @Test func anUnreachableServerIsNamedByHostAndPort() throws {
        let port = try freePort()
        let error = try #require(throws: StoreError.self) { try PostgresStore(url: "postgresql://ann:pw-9f1c@127.0.0.1:\(port)/x") }
        guard case .unreachable = error else { Issue.record("expected unreachable, got \(error)"); return }
        #expect(error.description.contains("127.0.0.1:\(port)"))
        #expect(!error.description.contains("pw-9f1c"))
        #expect(error.description.contains("postgresql://ann:****@127.0.0.1"))
    }

    @Test func aWrongPasswordIsRefusedWithoutPrintingIt() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        let wrong = server.url(database: database, user: TestPostgres.passwordRole, password: "wrong-pw-4b2e")
        let error = try #require(throws: StoreError.self) { try PostgresStore(url: wrong) }
        guard case .authentication = error else { Issue.record("expected authentication, got \(error)"); return }
        #expect(error.description.contains("password authentication failed"))
        #expect(!error.description.contains("wrong-pw-4b2e"))
        let right = server.url(database: database, user: TestPostgres.passwordRole, password: TestPostgres.rightPassword)
        #expect(try PostgresStore(url: right).eventCount() == 0)
    }

    @Test func copyCarriesTabsNewlinesBackslashesAndNulls() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let connection = try PostgresConnection(conninfo: url, store: url)
        try connection.execute("CREATE TEMPORARY TABLE copied (n INTEGER, text TEXT)")
        let rows: [[String?]] = [["1", "a\tb\nc\\d\re"], ["2", nil], ["3", ""], ["4", "\\N"]]
        #expect(try connection.copy(into: "copied", columns: ["n", "text"], rows: rows) == 4)
        let read = try connection.query("SELECT n, text FROM copied ORDER BY n").all.map { [$0.optionalText(0), $0.optionalText(1)] }
        #expect(read == rows)
    }

    @Test(arguments: [
        ("postgresql://ann:secret@db.example.org:5432/team", "postgresql://ann:****@db.example.org:5432/team"),
        ("postgres://ann@db/team?password=secret&sslmode=require", "postgres://ann@db/team?password=****&sslmode=require"),
        ("/home/ann/datebook.sqlite3", "/home/ann/datebook.sqlite3"),
    ])
    func aStoreURLIsPrintedWithoutItsPassword(_ url: String, _ printed: String) {
        #expect(StoreLocation.redacted(url) == printed)
    }

    @Test func aPostgresURLIsNeverTakenForAFile() {
        #expect(SQLDialect.of(location: "postgresql:/x") == .postgres)
        #expect(SQLDialect.of(location: "postgres://h/db") == .postgres)
        #expect(SQLDialect.of(location: "./postgresql.sqlite3") == .sqlite)
    }
}
