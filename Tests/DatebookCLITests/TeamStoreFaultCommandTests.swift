@testable import DatebookCLI
import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The team store under faults (issue 30), as commands see it: one rule for a NUL byte on both
/// backends, permanent URL mistakes exit as such, and store strings never print a password.
struct TeamStoreFaultCommandTests {
    /// A planner JSON file of `count` events, one a line; the last one's title or task holds a NUL byte.
    static func plannerWithNUL(count: Int, inTask: Bool) -> String {
        let lines = (0..<count).map { n -> String in
            let nul = n == count - 1
            let title = nul && !inTask ? "Tea\\u0000Cake" : "Event \(n)"
            let tasks = nul && inTask ? #", "tasks": [{"id": "a", "text": "Kettle"}, {"id": "b", "text": "Cup\u0000"}]"# : ""
            return #"  {"id": "e\#(n)", "title": "\#(title)", "start": "2026-12-24T10:00:00Z"\#(tasks)}"#
        }
        return "{\"events\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    /// Below and at the COPY threshold (64 events), on both backends: refused with file, line and
    /// field, and nothing imported.
    @Test(arguments: [(3, false), (70, false), (70, true)])
    func aNULByteIsRefusedAtImportOnBothBackends(count: Int, inTask: Bool) throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/in.json"
        try Self.plannerWithNUL(count: count, inTask: inTask).write(toFile: path, atomically: true, encoding: .utf8)
        let field = inTask ? "tasks[1].text" : "title"
        for store in [sandbox.store, try TestPostgres.shared().makeDatabase()] {
            let run = sandbox.run(["import", path], storePath: store)
            #expect(run.code == 65, "\(store): \(run.err)")
            #expect(run.err == "datebook: \(path):\(count + 1): events[\(count - 1)].\(field): contains a NUL byte (U+0000), "
                    + "which the store cannot keep; remove it\n", "\(store)")
            #expect(try StoreOpener.open(store).eventCount() == 0)
        }
    }

    @Test func storeCopyRefusesANULByteAndWritesNothing() throws {
        let sandbox = Sandbox()
        try #require(sandbox.run(["add", "Tea", "--at", "tomorrow 10:00"]).code == 0)
        let source = try Store(path: sandbox.store)
        try source.db.execute("UPDATE events SET title = 'Tea' || char(0) || 'Cake'")
        let target = try TestPostgres.shared().makeDatabase()
        let run = sandbox.run(["store", "copy", sandbox.store, target])
        #expect(run.code == 65)
        #expect(run.err.contains("in the source \(sandbox.store) contains a NUL byte (U+0000)"), "\(run.err)")
        #expect(run.err.contains("event '") && run.err.contains("' title"), "\(run.err)")
        #expect(try PostgresStore(url: target).eventCount() == 0)
    }

    @Test func aBogusSSLModeExitsAsAMistakeNotAsRetryLater() throws {
        let sandbox = Sandbox()
        let url = try TestPostgres.shared().makeDatabase()
        let run = sandbox.run(["list"], storePath: url.replacingOccurrences(of: "postgres@", with: "postgres:s3cret@") + "?sslmode=bogus")
        #expect(run.code == 65, "\(run.err)")
        #expect(run.err.contains("invalid sslmode value"), "\(run.err)")
        #expect(!run.err.contains("s3cret"), "\(run.err)")
    }

    /// libpq's keyword form would otherwise become a SQLite file named after the password.
    @Test func theKeywordFormIsRefusedWithoutItsPasswordAndWithoutAFile() throws {
        let sandbox = Sandbox()
        let run = sandbox.run(["list"], storePath: "host=db password='se cr#t' dbname=team")
        #expect(run.code == 65)
        #expect(run.err == "datebook: store host=db password=**** dbname=team: the keyword form is not a store; "
                + "write postgresql://USER@HOST:PORT/DATABASE (a password in PGPASSFILE) — nothing was created\n")
        #expect(!FileManager.default.fileExists(atPath: "host=db password='se cr#t' dbname=team"))
    }

    @Test func argumentScrubMasksOnlyWhatTheRedactedFormHides() {
        func masked(_ text: String) -> String {
            String(decoding: ArgumentScrub.mask(Array(text.utf8), like: Array(StoreLocation.redacted(text).utf8)), as: UTF8.self)
        }
        #expect(masked("postgresql://ann:secret@db/team") == "postgresql://ann:******@db/team")
        #expect(masked("postgresql://ann:s@db/team") == "postgresql://ann:*@db/team")
        #expect(masked("postgresql://ann@db/team?password=x#y&sslmode=require") == "postgresql://ann@db/team?password=***&sslmode=require")
        #expect(masked("postgresql://ann:******@db/team") == "postgresql://ann:******@db/team")
        #expect(masked("/home/ann/store.sqlite3") == "/home/ann/store.sqlite3")
    }
}
