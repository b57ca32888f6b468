@testable import DatebookCLI
import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Migrations are frozen (docs/store.md): each released text is pinned by its SHA-256, and a store of
/// every released schema version, on both backends, is upgraded by a datebook command to the
/// current version with all its rows.
struct MigrationTests {
    /// SHA-256 of each released SQLite migration (`Store.migrations`), in order. A released
    /// migration is never edited; a new one appends its hash here.
    static let sqlite: [String] = [
        "8092944a981e2cdf4ec40f39c89d607264758dede015b1e8ce0546e8f3f1d378",  // 1
        "ef3c234a935d19ad6b252af87229c8135e21bac1478e986529f78935afc3cdfe",  // 2
        "cbe5f5990c1c88f805f848e27a143350fa1bab605792aa13b3187353346996be",  // 3
        "f2cb15b94dce4e52cb435982bf089c75023e464f9a788543fc13dd1a95b96494",  // 4
        "85985e0818d9b5509770913a9a7961910f2814f307eb7f1925b543ca76c4833e",  // 5
        "89c65489db891045f70d07084a1912b787e508961ee28ef3d3ec521024b7a101",  // 6
        "700e582ea9808be5cb938719d36cac727212404b39f05823faad54c2f5124925",  // 7
        "1c47e204dd97952bfef47327ccdb121c9f19fb3f37d46a36cb0bde75457c97c7",  // 8
        "17db4fd369edb9244b9f91d9aeed145c3d04ad8ba6e95d06247f07a63527d11a",  // 9
        "1a59f088499d47359c4609f398d82e2ef8a7af2979a3bf8491b1c17c8a1d9f64",  // 10
        "c7e388ce3ad9b7fcee65a12cc79479d9dad16a40099e390ff9e6ca8b49ac9f38",  // 11
        "9873c8a57bc30531fdba7828a72e5d2d1e8e462688336b45a3a2b15a6fe0b64c",  // 12
        "11e74a1430ac073309111bf849a3ec4b95fa2d955111a3bab03b2826aa3977ac",  // 13
        "ed72a72191f4dc0d3434871816d555bd05f480669ea09ba23a679cf00c19c5fb",  // 14
        "69ea8aa3f7f88c4d2578bae7c0631eef3af819a4d008a2d3ab5f3ca6212d14c3",  // 15
        "bcd28efffda2b8b96d5e172f461fbdba1bf6eaef22032f3d35b8a277bdb9cfc9",  // 16
        "d29fed06c9114170463522b6de764f648473c1cf9ad0da1e3c0dd00e150cce2b",  // 17
        "64d0fdc3a2a0ef759ae1c914b6fbfaf86ddd770fe052506a9334fc98fbd4edb0",  // 18
        "c918144872a5515943b2354fa145f2fd3c3ccf598a2af379f9065f006f269227",  // 19
        "0deba22ed891a4f472e96624779e7b7530339971ec5c5b9dc25b93337cde57a6",  // 20
        "524a74b13eeb41b598de0c19c5c482f31ad6fabadf2193162e9ba646dfc0945c",  // 21
    ]

    /// The same for PostgreSQL (`PostgresStore.migrations`).
    static let postgres: [String] = [
        "daee823cf9da6928d795fed70de0340d642fd183c6b43d49dd956d039baa529c",  // 1
        "810b152a202cf80be04686b90547309c5117febb9a3edd21d759560235a5bc05",  // 2
        "c7248836b915c59c0cf49a6cf653ded97dc0bd4fe4df6e57119b0fa0daa799c7",  // 3
        "11e74a1430ac073309111bf849a3ec4b95fa2d955111a3bab03b2826aa3977ac",  // 4
        "aec8a7c82c93f76d6c7516c02ea33c249fc035ea9073506022c1fce5e193771b",  // 5
        "7810a6ae5394a995195d0e6558d11410a6febb19d4e44908cddeafda7ef1b8f5",  // 6
        "69ea8aa3f7f88c4d2578bae7c0631eef3af819a4d008a2d3ab5f3ca6212d14c3",  // 7
        "48b6bfd81ffe98a43d56ad6781e8296d0e2710b342d84f43c388502ea604c93b",  // 8
        "bad424388c7c1043326f628ea534b5314cdbc0edb669ed87ffdbb8491962672a",  // 9
        "677cd42862d77f847a8d6ff809da9387ef408f9128812418bd060eb3754af6bf",  // 10
        "64d0fdc3a2a0ef759ae1c914b6fbfaf86ddd770fe052506a9334fc98fbd4edb0",  // 11
        "a66b452587aa98cbf5a89f1547bf3b5cc46913f7ffc09c6cfda2004ec64b8094",  // 12
        "d3138d2241740d38601c8f9f1c277063800330827a08ce00cabf359978f29e57",  // 13
        "8ad1a8a5111077b8dd4e7be815e9f400d9c8c61226459658811fb9468016941a",  // 14
        "a2407edf749377c13fe38ab409a008173cb9113092fb0ee705fb827c0d941157",  // 15
    ]

    /// Rows for every table a version may have, each written with the columns the table had when it
    /// was made (columns added later have defaults), so one row fits every version that has its
    /// table; the same SQL on both backends. Put in parents first.
    static let rows: [(table: String, sql: String)] = [
        ("events", """
            INSERT INTO events (id, title, start_key, all_day, time_zone, symbol, color, notes, alerts, task_count, open_count)
            VALUES ('a1b2c3d4e5f60718', 'Dentist', 1796391000, 0, 'Europe/Berlin', 'heart.fill', 'red', 'Bring the card', '', 2, 1),
                   ('b1b2c3d4e5f60718', 'Work call', 1796889600, 0, 'Europe/Berlin', 'phone.fill', 'blue', '', '', 0, 0)
            """),
        ("tasks", """
            INSERT INTO tasks (event_id, position, id, text, status)
            VALUES ('a1b2c3d4e5f60718', 0, 't1', 'Bring card', 'todo'), ('a1b2c3d4e5f60718', 1, 't2', 'Pay', 'done')
            """),
        ("deliveries", """
            INSERT INTO deliveries (key, kind, event_id, occurrence_start, lead, channel, due_at, state, next_attempt_at, created_at, updated_at)
            VALUES ('alert|a1b2c3d4e5f60718|1796391000|1h|desk', 'alert', 'a1b2c3d4e5f60718', 1796391000000, '1h', 'desk',
                    1796387400000, 'sent', 1796387400000, 1796387400000, 1796387401000)
            """),
        ("feeds", "INSERT INTO feeds (name, source, every) VALUES ('work', 'https://calendar.example.org/work.ics', 1800)"),
        ("event_sources", "INSERT INTO event_sources (event_id, calendar, uid) VALUES ('b1b2c3d4e5f60718', 'feed:work', 'call-1@example.org')"),
        ("secrets", "INSERT INTO secrets (name, value, created_at) VALUES ('action-links', 'c2VjcmV0', 1796387400)"),
        ("used_action_links", """
            INSERT INTO used_action_links (id, action, event_id, used_at, expires_at)
            VALUES ('link-1', 'done', 'a1b2c3d4e5f60718', 1796387400, 1796991000)
            """),
        ("caldav_accounts", """
            INSERT INTO caldav_accounts (name, url, username, password_source, every)
            VALUES ('home', 'https://dav.example.org/', 'ann', '{"env":"DAV_PASSWORD"}', 900)
            """),
        ("caldav_calendars", """
            INSERT INTO caldav_calendars (account, url, display_name, color, components, selected)
            VALUES ('home', 'https://dav.example.org/ann/personal/', 'Personal', '#ff0000', 'VEVENT', 1)
            """),
    ]

    static func hash(_ text: String) -> String { SHA256.hash(Data(text.utf8)).hexString }

    /// Each migration's text is the pinned one; a new one is reported with the hash to append.
    func checkPinned(_ backend: String, _ migrations: [String], _ pins: [String], list: String) {
        #expect(migrations.count >= pins.count, "\(backend) has \(migrations.count) migrations but \(pins.count) were released: a released migration was removed")
        for (index, text) in migrations.enumerated() {
            let hash = Self.hash(text)
            guard index < pins.count else {
                Issue.record("\(backend) migration \(index + 1) is not pinned: if it is new, append \"\(hash)\" to MigrationTests.\(list)")
                continue
            }
            #expect(hash == pins[index], """
                \(backend) migration \(index + 1) was edited (its SHA-256 is now \(hash)): a released migration is never \
                edited; restore its text and append a new migration (docs/store.md)
                """)
        }
    }

    @Test func everyReleasedMigrationKeepsItsText() {
        checkPinned("SQLite", Store.migrations, Self.sqlite, list: "sqlite")
        checkPinned("PostgreSQL", PostgresStore.migrations, Self.postgres, list: "postgres")
    }

    /// Runs a command on the store and checks it saw the events; `counts` before and after must match.
    func upgrade(_ sandbox: Sandbox, store: String, from version: Int, counts: () throws -> [String: Int]) throws {
        let before = try counts()
        #expect(before.values.allSatisfy { $0 > 0 } && before["events"] == 2, "from schema \(version): \(before)")
        let run = sandbox.run(["list", "--period", "all"], storePath: store)
        #expect(run.code == 0, "from schema \(version): \(run.err)")
        #expect(run.out.contains("Dentist") && run.out.contains("Work call"), "from schema \(version): \(run.out)")
        // Tables a later version made are there too, empty; those of `version` kept every row.
        let after = try counts()
        #expect(after.filter { before[$0.key] != nil } == before, "from schema \(version): \(before) became \(after)")
        #expect(after.filter { before[$0.key] == nil }.values.allSatisfy { $0 == 0 }, "from schema \(version): \(after)")
    }

    @Test func aSQLiteStoreOfEveryVersionUpgradesWithItsRows() throws {
        for version in 1...Store.schemaVersion {
            let sandbox = Sandbox()
            // A connection of its own each time: none is open while datebook upgrades the file.
            func connection() throws -> SQLiteConnection { try SQLiteConnection(path: sandbox.store, flags: 0x6) }
            func tables(_ raw: SQLiteConnection) throws -> [String] {
                try Self.rows.map(\.table).filter { try raw.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\($0)'") == 1 }
            }
            do {
                let raw = try connection()
                try raw.execute("BEGIN")
                try Store.migrate(raw, from: 0, to: version)
                for row in Self.rows where try tables(raw).contains(row.table) { try raw.execute(row.sql) }
                try raw.execute("COMMIT")
            }
            try upgrade(sandbox, store: sandbox.store, from: version) {
                let raw = try connection()
                return Dictionary(uniqueKeysWithValues: try tables(raw).map { ($0, Int(try raw.integer("SELECT count(*) FROM \($0)"))) })
            }
            #expect(try connection().integer("PRAGMA user_version") == Store.schemaVersion, "from schema \(version)")
        }
    }

    @Test func aPostgreSQLStoreOfEveryVersionUpgradesWithItsRows() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let raw = try PostgresConnection(conninfo: url, store: "test")
        raw.preparing = false  // each version's schema is another search path
        for version in 1...PostgresStore.schemaVersion {
            let schema = "from_\(version)"
            try raw.execute("BEGIN; CREATE SCHEMA \(schema); SET LOCAL search_path TO \(schema)")
            try PostgresStore.migrate(raw, store: "test", to: version)
            func tables() throws -> [String] {
                try Self.rows.map(\.table).filter { try raw.query("SELECT to_regclass($1)", [schema + "." + $0]).isNull(0, 0) == false }
            }
            for row in Self.rows where try tables().contains(row.table) { try raw.execute(row.sql) }
            try raw.execute("COMMIT")
            try upgrade(Sandbox(), store: url + "?schema=" + schema, from: version) {
                Dictionary(uniqueKeysWithValues: try tables().map { ($0, try raw.query("SELECT count(*) FROM \(schema).\($0)").int(0, 0)) })
            }
            let recorded = try raw.query("SELECT value FROM \(schema).meta WHERE name = 'schema_version'")
            #expect(recorded.int(0, 0) == PostgresStore.schemaVersion, "from schema \(version)")
        }
    }
}
