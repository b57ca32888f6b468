@testable import DatebookCLI
import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook store copy FROM TO` between SQLite and a real PostgreSQL, both ways.
struct StoreCopyCommandTests {
    static let feed = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:club-night@example.org\r
        DTSTART:20261205T180000Z\r
        SUMMARY:Club night\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// A SQLite store with events and tasks, a feed, two ledger rows (one sent), the last pass,
    /// the action-link key and a used link.
    func filledStore(_ sandbox: Sandbox) throws {
        let planner = sandbox.home + "/planner.json", calendar = sandbox.home + "/club.ics"
        try PostgresCommandTests.planner.write(toFile: planner, atomically: true, encoding: .utf8)
        try Self.feed.write(toFile: calendar, atomically: true, encoding: .utf8)
        try #require(sandbox.run(["import", planner]).code == 0)
        try #require(sandbox.run(["feed", "add", "club", calendar]).code == 0)
        try #require(sandbox.run(["task", "add", "Club night", "Bring shoes"]).code == 0)
        let store = try Store(path: sandbox.store)
        let now = Date(timeIntervalSince1970: 1_796_030_000)
        for (key, lead) in [("alert:a1b2c3d4e5f60718:1h:hook", "1h"), ("alert:a1b2c3d4e5f60718:1d:hook", "1d")] {
            try store.plan(LedgerEntry(key: key, kind: .alert, eventID: "a1b2c3d4e5f60718", occurrenceStart: now.addingTimeInterval(86_400),
                                       lead: lead, channel: "hook", dueAt: now.addingTimeInterval(lead == "1h" ? 82_800 : -600)), now: now)
        }
        let claimed = try store.claimDue(now: now, lease: 60, claimant: "host:1")
        try #require(claimed.count == 1)
        try store.settle(key: claimed[0].key, claimant: "host:1", as: .sent, reason: nil, nextAttempt: nil, now: now)
        try store.setLastPass(now)
        _ = try store.secretKey(named: Store.actionLinkKeyName, now: now)
        #expect(try store.useActionLink(id: "link-1", action: "done", eventID: "a1b2c3d4e5f60718",
                                        expires: now.addingTimeInterval(1e9), now: now))
    }

    /// What the commands print of a store, and what its ledger and action links hold.
    func view(_ sandbox: Sandbox, _ location: String) throws -> [String] {
        let commands = [["list", "--period", "all"], ["export"], ["status"], ["feed", "list"], ["tasks", "--status", "all"]]
        var lines = commands.map { arguments in
            let run = sandbox.run(arguments, storePath: location)
            return "$ \(arguments.joined(separator: " "))\n\(run.out)\(run.err)exit \(run.code)"
        }
        let store = try StoreOpener.open(location)
        lines.append("\(try store.allDeliveries())")
        lines.append("\(try store.lastPass().map { $0.timeIntervalSince1970 } ?? -1)")
        lines.append("\(try store.storedSecret(named: Store.actionLinkKeyName)?.hexString ?? "no key")")
        lines.append("used: \(try store.isActionLinkUsed(id: "link-1"))")
        lines.append("sources: \(try store.sourceUIDs().sorted { $0.key < $1.key })")
        return lines
    }

    @Test func copiesSQLiteToPostgreSQLAndBackWithTheSameOutput() throws {
        let sandbox = Sandbox()
        try filledStore(sandbox)
        let url = try TestPostgres.shared().makeDatabase()
        let copy = sandbox.run(["store", "copy", sandbox.store, url])
        #expect(copy.code == 0, "\(copy.err)")
        #expect(copy.out == """
            copied \(sandbox.store) to \(url)
            events             4
            tasks              3
            event_sources      1
            feeds              1
            deliveries         2
            secrets            1
            used_action_links  1
            last pass          1

            """)
        let back = sandbox.home + "/back.sqlite3"
        let again = sandbox.run(["store", "copy", url, back])
        #expect(again.code == 0, "\(again.err)")
        #expect(again.out.replacingOccurrences(of: back, with: "BACK").replacingOccurrences(of: url, with: "URL")
                == copy.out.replacingOccurrences(of: sandbox.store, with: "URL").replacingOccurrences(of: url, with: "BACK"))
        let original = try view(sandbox, sandbox.store)
        #expect(original[0].contains("Club night") && original[2].contains("exit"))
        #expect(original[5] != "[]" && original[7] != "no key" && original[8] == "used: true")
        for (expected, actual) in zip(original, try view(sandbox, url)) { #expect(actual == expected) }
        for (expected, actual) in zip(original, try view(sandbox, back)) { #expect(actual == expected) }
    }

    @Test func refusesATargetThatHoldsRows() throws {
        let sandbox = Sandbox()
        try filledStore(sandbox)
        let url = try TestPostgres.shared().makeDatabase()
        try #require(sandbox.run(["add", "Already here", "--at", "tomorrow 9:00"], storePath: url).code == 0)
        let run = sandbox.run(["store", "copy", sandbox.store, url])
        #expect(run.code == ExitCode.dataError)
        #expect(run.err == "datebook: store copy: the target \(url) is not empty (events: 1); copy into a new SQLite file "
                + "or an empty PostgreSQL database or schema (?schema=NAME) — nothing was written\n")
        #expect(try StoreOpener.open(url).eventCount() == 1)
        // Into SQLite the same.
        let other = Sandbox()
        try #require(other.run(["add", "Mine", "--at", "tomorrow 9:00"]).code == 0)
        let file = sandbox.run(["store", "copy", sandbox.store, other.store])
        #expect(file.code == ExitCode.dataError && file.err.contains("is not empty (events: 1)"), "\(file.err)")
    }

    @Test func aBadFromIsNamedAndNoPasswordIsPrinted() throws {
        let sandbox = Sandbox()
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let missing = sandbox.home + "/nothing.sqlite3"
        let run = sandbox.run(["store", "copy", missing, url])
        #expect(run.code == ExitCode.dataError)
        #expect(run.err == "datebook: store copy: FROM \(missing) holds no datebook store; check the path or URL (and ?schema=NAME)\n")
        let emptyDatabase = sandbox.run(["store", "copy", url, sandbox.store])
        #expect(emptyDatabase.code == ExitCode.dataError && emptyDatabase.err.contains("FROM \(url) holds no datebook store"))
        let password = TestPostgres.rightPassword
        let unreachable = sandbox.run(["store", "copy", "postgresql://\(TestPostgres.passwordRole):\(password)@127.0.0.1:1/x", url])
        #expect(unreachable.code == ExitCode.temporaryFailure)
        #expect(unreachable.err.hasPrefix("datebook: store copy: FROM: store postgresql://secretive:****@127.0.0.1:1/x: cannot reach PostgreSQL at 127.0.0.1:1"),
                "\(unreachable.err)")
        // A good copy into a URL with a password prints it as ****.
        try filledStore(sandbox)
        let database = URL(string: url)?.lastPathComponent ?? ""
        let secret = server.url(database: database, user: TestPostgres.passwordRole, password: password)
        let copy = sandbox.run(["store", "copy", sandbox.store, secret])
        #expect(copy.code == 0 && copy.out.hasPrefix("copied \(sandbox.store) to postgresql://secretive:****@127.0.0.1:"), "\(copy.out)\(copy.err)")
        for output in [run, unreachable, copy] { #expect(!output.out.contains(password) && !output.err.contains(password)) }
    }

    /// The filled SQLite store in `sandbox`, and an empty PostgreSQL store whose `secrets` table runs
    /// `body` (PL/pgSQL) before each insert.
    func targetWithSecretsTrigger(_ sandbox: Sandbox, _ body: String) throws -> (server: TestPostgres, url: String, database: String) {
        try filledStore(sandbox)
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = URL(string: url)?.lastPathComponent ?? ""
        try #require(sandbox.run(["list"], storePath: url).code == 0)
        try server.sql("""
            CREATE FUNCTION datebook.on_secret() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \(body) END $$;
            CREATE TRIGGER on_secrets BEFORE INSERT ON datebook.secrets FOR EACH ROW EXECUTE FUNCTION datebook.on_secret();
            """, database: database)
        return (server, url, database)
    }

    @Test func aCountThatDiffersRollsTheWholeCopyBack() throws {
        let sandbox = Sandbox()
        // A trigger that drops every secret on its way in: COPY reports it written, the count does not.
        let (server, url, database) = try targetWithSecretsTrigger(sandbox, "RETURN NULL;")
        let run = sandbox.run(["store", "copy", sandbox.store, url])
        #expect(run.code == ExitCode.dataError)
        #expect(run.err == "datebook: store copy: secrets has 1 row(s) in the source but 0 in the target \(url); "
                + "the copy was rolled back, nothing was written\n")
        #expect(try server.sql("SELECT (SELECT count(*) FROM datebook.events) + (SELECT count(*) FROM datebook.deliveries)",
                               database: database) == "0")
    }

    /// A store error met while copying is printed after the side it concerns, in the same words for
    /// a server and a file: a target whose trigger refuses a row (rolled back), a read-only file.
    @Test func aStoreErrorNamesItsSideForAServerAndAFile() throws {
        let sandbox = Sandbox()
        let (server, url, database) = try targetWithSecretsTrigger(sandbox, "RAISE EXCEPTION 'no secrets here';")
        let refused = sandbox.run(["store", "copy", sandbox.store, url])
        #expect(refused.code == ExitCode.dataError)
        #expect(refused.err.hasPrefix("datebook: store copy: TO: store \(url): ") && refused.err.contains("no secrets here"), "\(refused.err)")
        #expect(try server.sql("SELECT count(*) FROM datebook.events", database: database) == "0")
        let readOnly = sandbox.home + "/read-only.sqlite3"
        _ = try Store(path: readOnly)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: readOnly)
        let file = sandbox.run(["store", "copy", sandbox.store, readOnly])
        #expect(file.code == ExitCode.dataError)
        #expect(file.err == "datebook: store copy: TO: store \(readOnly) is read-only; make it writable (chmod u+w) or pass another --store\n")
    }

    @Test func storeCopyIsInHelpAndCompletion() throws {
        let help = Sandbox().run(["store", "--help"])
        #expect(help.code == 0 && help.out.contains("copy FROM TO"))
        let usage = Sandbox().run(["store", "move", "a", "b"])
        #expect(usage.code == ExitCode.usage && usage.err.contains("unknown store action 'move'"), "\(usage.err)")
    }
}

/// A PostgreSQL store whose import is cut, or whose role may not create the schema.
struct PostgresFailureTests {
    /// A planner JSON of `count` events with two tasks each, ids from `offset`.
    static func bigPlanner(_ count: Int, offset: Int = 1) -> String {
        var text = "{\"datebook\": 1, \"events\": [\n"
        for n in offset..<(offset + count) {
            if n > offset { text += ",\n" }
            let id = String(n, radix: 16)
            text += "{\"id\": \"\(String(repeating: "0", count: 16 - id.count) + id)\", \"title\": \"Event \(n)\", "
                + "\"start\": \"2026-12-\(String(format: "%02d", n % 28 + 1))T09:00:00Z\", \"allDay\": false, \"end\": null, "
                + "\"timeZone\": \"Europe/Berlin\", \"symbol\": \"house.fill\", \"color\": \"indigo\", \"notes\": \"\", \"alerts\": [], "
                + "\"tasks\": [{\"id\": \"a\", \"text\": \"One\", \"status\": \"todo\"}, {\"id\": \"b\", \"text\": \"Two\", \"status\": \"done\"}]}"
        }
        return text + "\n]}\n"
    }

    final class Outcome: @unchecked Sendable {
        let lock = NSLock()
        var run: CLIRun?
    }

    @Test func anImportCutMidwayLeavesNothingHalfImported() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = URL(string: url)?.lastPathComponent ?? ""
        let sandbox = Sandbox()
        let small = sandbox.home + "/small.json", big = sandbox.home + "/big.json"
        try Self.bigPlanner(3).write(toFile: small, atomically: true, encoding: .utf8)
        try Self.bigPlanner(40_000, offset: 100).write(toFile: big, atomically: true, encoding: .utf8)
        let first = sandbox.run(["import", small], storePath: url)
        try #require(first.code == 0, "\(first.err)")
        func counts() throws -> String {
            try server.sql("SELECT (SELECT count(*) FROM datebook.events) || ' ' || (SELECT count(*) FROM datebook.tasks)", database: database)
        }
        let before = try counts()
        #expect(before == "3 6")
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let run = sandbox.run(["import", big], storePath: url + "?application_name=import_cut")
            outcome.lock.withLock { outcome.run = run }
            finished.signal()
        }
        // Cut the import's connection once its transaction has written something.
        var cut = false
        while !cut, outcome.lock.withLock({ outcome.run == nil }) {
            cut = try server.sql("""
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE application_name = 'import_cut' AND backend_xid IS NOT NULL
                """) == "1"
        }
        finished.wait()
        let run = try #require(outcome.lock.withLock { outcome.run })
        #expect(cut, "the import finished before it could be cut: \(run.out)\(run.err)")
        #expect(run.code == ExitCode.temporaryFailure, "\(run.err)")
        #expect(run.err.hasPrefix("datebook: store \(url)?application_name=import_cut: the connection to PostgreSQL was lost ("), "\(run.err)")
        #expect(run.err.contains("nothing after the last commit was kept"))
        #expect(try counts() == before)
    }

    @Test func aRoleThatMayNotCreateTheSchemaGetsAClearErrorAndNothingIsCreated() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let database = URL(string: url)?.lastPathComponent ?? ""
        let role = "reader_\(database)"
        try server.sql("CREATE ROLE \(role) LOGIN")
        let limited = server.url(database: database, user: role)
        let sandbox = Sandbox()
        let run = sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"], storePath: limited)
        #expect(run.code == ExitCode.unavailable)
        #expect(run.err == "datebook: store \(limited): the schema 'datebook' does not exist and role '\(role)' may not create it "
                + "(it needs the CREATE right on database '\(database)'); as the database's owner run CREATE SCHEMA datebook "
                + "AUTHORIZATION \(role), or GRANT CREATE ON DATABASE \(database) TO \(role) — nothing was created\n")
        #expect(try server.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'datebook'", database: database) == "0")
        // A schema that exists but whose tables this role may not create: the schema's right is named.
        try server.sql("CREATE SCHEMA datebook; GRANT USAGE ON SCHEMA datebook TO \(role)", database: database)
        let tables = sandbox.run(["list"], storePath: limited)
        #expect(tables.code == ExitCode.unavailable)
        #expect(tables.err.contains("the schema 'datebook' has no datebook tables and role '\(role)' may not create them "
                                    + "(it needs the CREATE right on schema 'datebook')"), "\(tables.err)")
        #expect(try server.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'datebook'", database: database) == "0")
        // With the right granted, the same role creates it.
        try server.sql("GRANT CREATE ON SCHEMA datebook TO \(role)", database: database)
        #expect(sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"], storePath: limited).code == 0)
    }
}
