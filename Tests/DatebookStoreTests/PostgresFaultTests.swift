import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The team store under faults (issue 30): what every connection is given so a paused or cut-off
/// datebook cannot hold up the others, and the schema working for a DBA's psql and for names that
/// are reserved words.
struct PostgresFaultTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// What the server says a setting is on `store`'s own connection.
    static func setting(_ name: String, on store: PostgresStore) throws -> String {
        try store.query("SELECT current_setting($1)", [name]).text(0, 0)
    }

    @Test func everyConnectionHasTimeoutsAndItsInstanceAsApplicationName() throws {
        let store = try PostgresStore(url: try TestPostgres.shared().makeDatabase())
        #expect(try Self.setting("idle_in_transaction_session_timeout", on: store) == "5s")
        #expect(try Self.setting("lock_timeout", on: store) == "10s")
        #expect(try Self.setting("statement_timeout", on: store) == "2min")
        #expect(try Self.setting("search_path", on: store) == "datebook")
        let name = try store.query("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()").text(0, 0)
        #expect(name == "datebook \(SchedulerInstance.localHost):\(getpid())")
    }

    @Test func libpqGetsKeepalivesAndTheURLsOwnValuesWin() throws {
        let (conninfo, _, _) = try PostgresStore.split("postgresql://ann@db/team?keepalives_idle=5&application_name=mine", location: "x")
        let items = try #require(URLComponents(string: conninfo)?.queryItems)
        let values = Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
        #expect(values["keepalives"] == "1" && values["keepalives_interval"] == "10" && values["keepalives_count"] == "3")
        #expect(values["tcp_user_timeout"] == "60000" && values["connect_timeout"] == "10")
        #expect(values["keepalives_idle"] == "5")
        #expect(items.filter { $0.name == "keepalives_idle" }.count == 1)
        #expect(values["application_name"] == "mine")
        #expect(values["fallback_application_name"]?.hasPrefix("datebook ") == true)
    }

    @Test func theURLOverridesEachTimeoutAlsoWhenItGivesItsOwnOptions() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let given = try PostgresStore(url: url + "?lock_timeout=250ms&statement_timeout=0&idle_in_transaction_session_timeout=1min")
        #expect(try Self.setting("lock_timeout", on: given) == "250ms")
        #expect(try Self.setting("statement_timeout", on: given) == "0")
        #expect(try Self.setting("idle_in_transaction_session_timeout", on: given) == "1min")
        // With `options` of its own, the settings are set by statements after connecting.
        let own = try PostgresStore(url: url + "?options=-c%20work_mem%3D8MB&lock_timeout=3s")
        #expect(try Self.setting("work_mem", on: own) == "8MB")
        #expect(try Self.setting("lock_timeout", on: own) == "3s")
        #expect(try Self.setting("idle_in_transaction_session_timeout", on: own) == "5s")
        #expect(throws: StoreError.postgres(store: url + "?lock_timeout=soon",
                                            message: "?lock_timeout=soon is not a duration; write e.g. 5s, 2min or 0 (no limit) — nothing was changed")) {
            try PostgresStore(url: url + "?lock_timeout=soon")
        }
    }

    /// A client stopped inside a transaction (SIGSTOP, a hang) holding the planning lock: the server
    /// ends its session after `idle_in_transaction_session_timeout` and the waiting pass gets the
    /// lock; the stopped one finds its connection gone (retry later) and works again after it.
    @Test func aTransactionLeftIdleHoldingThePlanningLockIsEndedAndFreesIt() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let stopped = try PostgresStore(url: url + "?idle_in_transaction_session_timeout=1s")
        let waiting = try PostgresStore(url: url)
        #expect(throws: StoreError.self) {
            try stopped.transaction {
                try stopped.lockPlanning()
                let started = Date()
                try waiting.transaction { try waiting.lockPlanning() }
                #expect(Date().timeIntervalSince(started) < 9, "waited for the lock until lock_timeout")
                try stopped.setLastPass(Self.now)
            }
        }
        #expect(try stopped.lastPass() == nil)
        #expect(try waiting.lastPass() == nil)
    }

    @Test func aWaitForALockGivesUpAfterLockTimeoutAsATemporaryFailure() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let holder = try PostgresStore(url: url)
        let waiting = try PostgresStore(url: url + "?lock_timeout=200ms")
        try holder.transaction {
            try holder.lockPlanning()
            do {
                try waiting.transaction { try waiting.lockPlanning() }
                Issue.record("the lock was taken twice")
            } catch StoreError.timedOut(let store, let reason) {
                #expect(store == url + "?lock_timeout=200ms")
                #expect(reason.contains("lock timeout"), "\(reason)")
            }
        }
    }

    @Test(arguments: ["user", "order", "select", "table"])
    func aReservedWordWorksAsSchemaName(_ schema: String) throws {
        let url = try TestPostgres.shared().makeDatabase() + "?schema=" + schema
        let store = try PostgresStore(url: url)
        let event = Event(id: "e1", title: "Tea", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .primary,
                          tasks: [EventTask(id: "t1", text: "Kettle")])
        try store.save([event])
        #expect(try PostgresStore(url: url).event(id: "e1")?.title == "Tea")
        #expect(try PostgresStore.recordedSchemaVersion(url: url) == PostgresStore.schemaVersion)
    }

    @Test func aBogusSSLModeIsAMistakeInTheURLNotAServerToWaitFor() throws {
        let url = try TestPostgres.shared().makeDatabase() + "?sslmode=bogus"
        do {
            _ = try PostgresStore(url: url)
            Issue.record("opened")
        } catch StoreError.postgres(_, let message) {
            #expect(message.hasPrefix("the URL's connection settings are wrong (invalid sslmode value"), "\(message)")
        }
    }

    /// A DBA's UPDATE in psql, with the default search path (no datebook schema on it) and with
    /// another datebook schema first on it: the triggers queue and count the change in the schema
    /// of the table written.
    @Test func aDBAsUpdateInPsqlIsQueuedInTheSchemaOfTheTableItWrites() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = try #require(URL(string: url)?.lastPathComponent)
        let event = Event(id: "e1", title: "Tea", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .primary,
                          tasks: [EventTask(id: "t1", text: "Kettle")])
        let main = try PostgresStore(url: url)
        let other = try PostgresStore(url: url + "?schema=other")
        for store in [main, other] {
            try store.save([event])
            _ = try store.changedEvents(taking: true)
        }
        let version = try main.dataVersion()
        try server.sql("UPDATE datebook.tasks SET status = 'done' WHERE event_id = 'e1'", database: database)
        #expect(try main.event(id: "e1")?.tasks.first?.status == .done)
        #expect(try main.dataVersion() > version)
        try server.sql("SET search_path = other, datebook; UPDATE datebook.events SET start_key = start_key + 3600 WHERE id = 'e1'",
                       database: database)
        #expect(try main.changedEvents(taking: false) == ["e1"])
        #expect(try other.changedEvents(taking: false).isEmpty)
    }

    /// A window over the digest's cap: both backends count the same first `cap` single events (by
    /// start, then id byte by byte, whatever the database's collation) and the same open tasks.
    @Test func aCappedWindowCountsTheSameOnBothBackends() throws {
        let ids = ["b", "B", "a", "_x", "A2", "a1", "Z", "z", "m", "M", "0", "é", "y", "Y"]
        let events = ids.enumerated().map { n, id in
            Event(id: id, title: "Same time \(n)", start: .instant(Self.now), timeZone: "UTC", symbol: .star, color: .primary,
                  tasks: (0..<(n % 4)).map { EventTask(id: "t\($0)", text: "Task") })
        } + [Event(id: "later", title: "Later", start: .instant(Self.now.addingTimeInterval(60)), timeZone: "UTC", symbol: .star,
                   color: .primary, tasks: [EventTask(id: "t", text: "Task")])]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let cap = 10
        let first = ids.enumerated().sorted { Array($0.element.utf8).lexicographicallyPrecedes(Array($1.element.utf8)) }.prefix(cap)
        let expected = WindowTotals(events: cap, openTasks: first.reduce(0) { $0 + $1.offset % 4 }, capped: true)
        for backend in Backend.allCases {
            let store = try backend.open()
            try store.save(events)
            let totals = try store.totals(from: Self.now.addingTimeInterval(-1), to: Self.now.addingTimeInterval(3600),
                                          calendar: calendar, onlyOpen: false, singleOnly: true, cap: cap)
            #expect(totals == expected, "\(backend)")
            let all = try store.totals(from: Self.now.addingTimeInterval(-1), to: Self.now.addingTimeInterval(3600),
                                       calendar: calendar, onlyOpen: false, singleOnly: true, cap: 100)
            #expect(all == WindowTotals(events: 15, openTasks: ids.indices.reduce(1) { $0 + $1 % 4 }), "\(backend)")
        }
    }
}
