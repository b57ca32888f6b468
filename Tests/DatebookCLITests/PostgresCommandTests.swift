@testable import DatebookCLI
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The same commands on a SQLite file and on PostgreSQL print the same, and `tick` sends the same.
struct PostgresCommandTests {
    /// A planner with fixed ids, so both stores hold the same events.
    static let planner = """
        {"datebook": 1, "events": [
          {"id": "a1b2c3d4e5f60718", "title": "Dentist", "start": "2026-12-04T13:30:00Z", "allDay": false, "end": null,
           "timeZone": "Europe/Berlin", "symbol": "heart.fill", "color": "red", "notes": "", "alerts": ["1h"],
           "location": "Main Street 1", "url": "https://dentist.example.org/",
           "tasks": [{"id": "t1", "text": "Bring card", "status": "todo"}, {"id": "t2", "text": "Pay", "status": "doing"}]},
          {"id": "b1b2c3d4e5f60718", "title": "Standup", "start": "2026-11-30T08:00:00Z", "allDay": false, "end": null,
           "timeZone": "Europe/Berlin", "symbol": "house.fill", "color": "indigo", "notes": "", "alerts": [],
           "recurrence": "FREQ=WEEKLY;COUNT=8", "tasks": []},
          {"id": "c1b2c3d4e5f60718", "title": "Christmas", "start": "2026-12-25", "allDay": true, "end": null,
           "timeZone": "Europe/Berlin", "symbol": "ticket.fill", "color": "green", "notes": "", "alerts": [], "tasks": []}
        ]}
        """

    /// Runs `script` on a fresh store of each backend; the outputs (stdout, stderr, exit code) of each step.
    func transcripts(_ script: [[String]], config: String? = nil) throws -> (sqlite: [String], postgres: [String]) {
        let url = try TestPostgres.shared().makeDatabase()
        var results: [[String]] = []
        for store in [nil, url] {
            let sandbox = Sandbox()
            let file = sandbox.home + "/planner.json"
            try Self.planner.write(toFile: file, atomically: true, encoding: .utf8)
            var lines: [String] = []
            for arguments in [["import", file]] + script {
                let run = sandbox.run((config.map { ["--config", $0] } ?? []) + arguments, storePath: store)
                let text = "$ \(arguments.joined(separator: " "))\n\(run.out)\(run.err)exit \(run.code)"
                lines.append(text.replacingOccurrences(of: sandbox.home, with: "HOME"))
            }
            results.append(lines)
        }
        return (results[0], results[1])
    }

    @Test func plannerCommandsPrintTheSameOnBothBackends() throws {
        let script = [
            ["list"], ["list", "--period", "all", "--json"], ["show", "Dentist"], ["task", "done", "Dentist", "1"],
            ["task", "rm", "Dentist", "2"], ["tasks", "--status", "all"],
            ["show", "a1b2"], ["done", "Dentist"], ["list", "--period", "next7"], ["rm", "Christmas"], ["list"],
            ["export"], ["cal"], ["digest", "--format", "markdown"], ["show", "Nothing"],
        ]
        let (sqlite, postgres) = try transcripts(script)
        #expect(sqlite.count == script.count + 1)
        for (expected, actual) in zip(sqlite, postgres) { #expect(actual == expected) }
        #expect(sqlite[1].contains("Standup") && sqlite[1].contains("exit 0"))
        #expect(postgres[3].contains("Main Street 1") && postgres[3].contains("https://dentist.example.org/"))
    }

    @Test func addListAndTaskGiveTheSameOutputOnBothBackends() throws {
        let script = [
            ["add", "Flight", "--at", "2026-12-03T09:00+01:00", "--symbol", "airplane", "--event-color", "cyan",
             "--task", "Passport", "--alert", "3h"],
            ["task", "start", "Flight", "Passport"], ["list", "--period", "next7"], ["show", "Flight"],
        ]
        let (sqlite, postgres) = try transcripts(script)
        // The new event's id is random: compare with it replaced.
        func normalised(_ lines: [String]) throws -> [String] {
            guard let line = lines.first(where: { $0.contains("added ") }),
                  let range = line.range(of: "added ") else { return lines }
            let id = try Regex(String(line[range.upperBound...].prefix(8)) + "[0-9a-f]*")
            return lines.map { $0.replacing(id, with: "ID") }
        }
        #expect(try normalised(postgres) == normalised(sqlite))
        #expect(sqlite[2].contains("[~] 'Passport'") && sqlite[2].contains("exit 0"))
    }

    @Test func tickDeliversTheSameAlertsFromPostgreSQL() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        var sent: [[String]] = []
        for backend in ["sqlite", "postgresql"] {
            let base = sink.baseURL + "/" + backend
            let config = makeScratchFolder("pg-config") + "/pg-config.json5"
            try """
                { channels: { hook: { type: "webhook", url: "\(base)" } },
                  alerts: { channels: ["hook"] } }
                """.write(toFile: config, atomically: true, encoding: .utf8)
            let script = [["tick"], ["status"]]
            var sandbox = Sandbox()
            sandbox.now = "2026-12-04 13:31"
            let file = sandbox.home + "/planner.json"
            try Self.planner.write(toFile: file, atomically: true, encoding: .utf8)
            let store = backend == "sqlite" ? nil : try TestPostgres.shared().makeDatabase()
            var lines: [String] = []
            #expect(sandbox.run(["import", file], storePath: store).code == 0)
            for arguments in script {
                let run = sandbox.run(["--config", config] + arguments, storePath: store)
                lines.append("$ \(arguments.joined(separator: " "))\n\(run.out)\(run.err)exit \(run.code)")
            }
            sent.append(lines)
        }
        #expect(sent[1] == sent[0])
        #expect(sent[0][0].contains("exit 0"))
        let bodies = try bodies(sink)
        #expect(bodies.map(\.path) == ["/sqlite", "/postgresql"])
        #expect(bodies.count == 2 && bodies[0].body == bodies[1].body)
        #expect(bodies.first?.body.contains("Dentist") == true)
    }
}

/// `datebook doctor --store postgresql://…`: the store's line comes from PostgreSQL, nothing is written.
struct PostgresDoctorTests {
    @Test func doctorChecksAPostgresStoreWithoutCreatingIt() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let sandbox = Sandbox()
        let empty = sandbox.run(["doctor"], storePath: url)
        #expect(finding(empty, "store") == "warn  store: \(url) has no datebook schema yet; the first command that writes creates it (add, import, demo)",
                "\(empty.out)\(empty.err)")
        let again = sandbox.run(["doctor"], storePath: url)
        #expect(finding(again, "store") == finding(empty, "store"), "doctor created the schema")
        try #require(sandbox.run(["add", "Dentist", "--at", "tomorrow 9:00"], storePath: url).code == 0)
        let run = sandbox.run(["doctor"], storePath: url)
        #expect(finding(run, "store") == "ok    store: \(url) connects, schema \(PostgresStore.schemaVersion) (current)", "\(run.out)\(run.err)")
        #expect(finding(run, "last pass") != nil)
        let database = URL(string: url)?.lastPathComponent ?? ""
        let secret = try TestPostgres.shared().url(database: database, user: TestPostgres.passwordRole, password: TestPostgres.rightPassword)
        let withPassword = sandbox.run(["doctor"], storePath: secret)
        #expect(finding(withPassword, "store")?.hasPrefix("ok    store: postgresql://secretive:****@") == true, "\(withPassword.out)")
        #expect(!withPassword.out.contains(TestPostgres.rightPassword) && !withPassword.err.contains(TestPostgres.rightPassword))
        let unreachable = sandbox.run(["doctor"], storePath: url + "_missing")
        #expect(finding(unreachable, "store")?.hasPrefix("fail  store: ") == true, "\(unreachable.out)")
    }
}
