@testable import DatebookCLI
import DatebookStore
import DatebookTestSupport
import Foundation
import DatebookStore
import Testing

/// Every bad input gets one clear line on stderr, the right exit code, and changes nothing.
struct ErrorMessageTests {
    static let cases: [(args: [String], message: String, code: Int32)] = [
        (["lst"], "datebook: unknown command 'lst' (did you mean 'list'?)", 64),
        (["lsit"], "datebook: unknown command 'lsit' (did you mean 'list'?)", 64),
        (["list", "--jsno"], "datebook: unknown option '--jsno' for 'list' (did you mean '--json'?)", 64),
        (["list", "--perod", "next7"], "datebook: unknown option '--perod' for 'list' (did you mean '--period'?)", 64),
        (["list", "--period", "nxt7"], "datebook: unknown period 'nxt7' (did you mean 'next7'?); expected next7, next30, future, past or all", 64),
        (["add", "x", "--at", "tomorow 9am"],
         "datebook: cannot read time \"tomorow 9am\": \"tomorow\" is not a date, time or day word (did you mean 'tomorrow'?)", 64),
        (["add", "x"], "datebook: 'add' needs --at WHEN", 64),
        (["add", "x", "--at", "today", "--symbol", "gif.fill"],
         "datebook: unknown symbol 'gif.fill' (did you mean 'gift.fill'?); see 'datebook add --help'", 64),
        (["add", "x", "--at", "today", "--event-color", "purpel"],
         "datebook: unknown color 'purpel' (did you mean 'purple'?); expected primary, gray, red, orange, yellow, green, mint, cyan, indigo or purple", 64),
        (["add", "x", "--at", "today", "--alert", "soon"],
         "datebook: cannot read alert lead time 'soon': expected a duration like 1d, 1h, 10m or 1h30m, '15m before end' or 'at 2026-12-24 09:00'", 64),
        (["add", "x", "y", "--at", "today"], "datebook: unexpected argument 'y' for 'add' (quote a title with spaces)", 64),
        (["show", "Nope"], "datebook: no event matches 'Nope'; 'datebook list' shows ids and titles", 64),
        (["show", "abc"], "datebook: no event matches 'abc' (an id prefix needs at least 4 characters); 'datebook list' shows ids and titles", 64),
        (["task", "done", "Pagliacci", "9"], "datebook: task number 9 is out of range for 'Pagliacci': expected 1…3", 64),
        (["task", "finish", "Pagliacci", "1"], "datebook: unknown task action 'finish'; expected add, done, start, undo, rm or edit", 64),
        (["tasks", "--status", "opn"], "datebook: unknown status 'opn' (did you mean 'open'?); expected todo, doing, done, open or all", 64),
        (["cal", "2026-13"], "datebook: cannot read month '2026-13': expected YYYY-MM, e.g. 2026-12", 64),
        (["list", "--tz", "Europe/Berln"], "datebook: unknown time zone 'Europe/Berln' (did you mean 'Europe/Berlin'?); use an IANA name like Europe/Berlin", 64),
        (["export", "--format", "jsn"], "datebook: unknown export format 'jsn' (did you mean 'json'?); expected json or ics", 64),
        (["import", "/nonexistent/planner.json"], "datebook: /nonexistent/planner.json: no such file; check the path", 66),
    ]

    @Test(arguments: cases)
    func badInputGivesOneClearLineAndExitCode(args: [String], message: String, code: Int32) {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let before = sandbox.run(["export"]).out
        let run = sandbox.run(args)
        #expect(run.code == code, "\(args)")
        #expect(run.err.split(separator: "\n").first.map(String.init) == message, "\(args)")
        #expect(run.out.isEmpty, "\(args)")
        #expect(sandbox.run(["export"]).out == before, "\(args) changed the store")
    }

    /// An alert that cannot be read is refused in the words of the config's `locale` (the catalogue's
    /// `checkLead`, as the web planner says it), naming every form `--alert` takes.
    @Test(arguments: [("de_DE", "datebook: Vorlaufzeit 'soon' nicht lesbar: erwartet wird eine Dauer wie 1d, 1h, 10m oder 1h30m, "
                                + "'15m before end' oder 'at 2026-12-24 09:00'"),
                      ("en_US", "datebook: cannot read alert lead time 'soon': expected a duration like 1d, 1h, 10m or 1h30m, "
                                + "'15m before end' or 'at 2026-12-24 09:00'")])
    func anUnreadableAlertIsRefusedInTheConfigsLanguage(_ locale: String, _ message: String) throws {
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        try "{ locale: \"\(locale)\" }\n".write(toFile: sandbox.home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        let run = sandbox.run(["add", "x", "--at", "today", "--alert", "soon"])
        #expect(run.code == 64)
        #expect(run.err.split(separator: "\n").first.map(String.init) == message, "\(run.err)")
        #expect(!sandbox.run(["list"]).out.contains("x"))
    }

    @Test func ambiguousTitleListsTheCandidates() {
        let sandbox = Sandbox()
        sandbox.run(["add", "Standup", "--at", "tomorrow 9:00"])
        sandbox.run(["add", "Standup", "--at", "wed 9:00"])
        let run = sandbox.run(["show", "Standup"])
        #expect(run.code == 64)
        #expect(run.err.contains("'Standup' matches 2 events: "))
        #expect(run.err.contains("Standup (Tue 2026-12-01 09:00)"))
        #expect(run.err.contains("Standup (Wed 2026-12-02 09:00)"))
    }

    @Test(arguments: [
        ("{\"events\": [\n  {\"title\": \"ok\", \"start\": \"2026-12-01\"},\n  {\"title\": \"x\", \"start\": \"2026-01-01\", \"tasks\": [{\"text\": \"a\", \"status\": \"finished\"}]}\n]}",
         ":3: events[1].tasks[0].status: expected todo, doing or done, got \"finished\""),
        ("{\"events\": [\n  {\"title\": \"ok\",\n", ":2: unclosed object: expected '}' (column 3)"),
        ("[1, 2]", ":1: expected an object, got an array"),
    ])
    func aBadImportNamesThePlaceAndImportsNothing(document: String, suffix: String) throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let before = sandbox.run(["export"]).out
        let path = sandbox.home + "/bad.json"
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["import", path])
        #expect(run.code == 65)
        #expect(run.err == "datebook: " + path + suffix + "\n")
        #expect(sandbox.run(["export"]).out == before)
    }

    @Test func unusableStoresAreRefusedWithExitCode65() throws {
        let sandbox = Sandbox()
        let directory = sandbox.home
        var run = sandbox.run(["list"], storePath: directory)
        #expect(run.code == 65)
        #expect(run.err.hasPrefix("datebook: store \(directory) is a directory"))

        let text = sandbox.home + "/text.sqlite3"
        try String(repeating: "hello\n", count: 200).write(toFile: text, atomically: true, encoding: .utf8)
        run = sandbox.run(["add", "x", "--at", "today"], storePath: text)
        #expect(run.code == 65)
        #expect(run.err.contains("is not a datebook database (not SQLite)"))

        let readOnly = sandbox.home + "/ro.sqlite3"
        sandbox.run(["demo"], storePath: readOnly)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: readOnly)
        run = sandbox.run(["add", "x", "--at", "today"], storePath: readOnly)
        #expect(run.code == 65)
        #expect(run.err.contains("is read-only; make it writable (chmod u+w)"))
        #expect(sandbox.run(["list"], storePath: readOnly).out.contains("Pagliacci"))
    }

    @Test func aStoreThatIsAFIFOIsRefusedWithExitCode65InsteadOfHanging() throws {
        let sandbox = Sandbox()
        let fifo = sandbox.home + "/store.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for arguments in [["list"], ["add", "x", "--at", "today"]] {
            let run = sandbox.run(arguments, storePath: fifo)
            #expect(run.code == 65)
            #expect(run.err == "datebook: store \(fifo) is a FIFO (named pipe), not a regular file; "
                    + "give the path of a database file (--store FILE)\n")
        }
    }

    @Test func aStoreFromANewerDatebookIsRefused() throws {
        let sandbox = Sandbox()
        sandbox.run(["demo"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(TestPython.executable))
        process.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=42'); c.commit()", sandbox.store]
        try process.run()
        process.waitUntilExit()
        let run = sandbox.run(["list"])
        #expect(run.code == 65)
        #expect(run.err.contains("was written by a newer datebook (schema 42, this one knows up to \(Store.schemaVersion))"))
    }

    @Test func everyCommandHasHelp() {
        let sandbox = Sandbox()
        for command in Datebook.commands {
            let run = sandbox.run([command.spec.name, "--help"])
            #expect(run.code == 0)
            #expect(run.out.hasPrefix("Usage: datebook \(command.spec.name)"), "\(command.spec.name)")
            #expect(run.out.contains("Global options:"))
        }
        #expect(sandbox.run(["help", "add"]).out.hasPrefix("Usage: datebook add"))
        for arguments in [["help", "--help"], ["help", "-h"], ["--help", "help"]] {
            let run = sandbox.run(arguments)
            #expect(run.code == 0, "\(arguments): \(run.err)")
            #expect(run.out.hasPrefix("Usage: datebook help [COMMAND]"), "\(arguments)")
        }
        #expect(sandbox.run(["help", "lsit"]).err.hasPrefix("datebook: unknown command 'lsit' (did you mean 'list'?)"))
        #expect(sandbox.run([]).out.contains("Commands:"))
    }

    @Test func versionPrintsTheVersion() {
        let out = StringSink(), err = StringSink()
        #expect(Datebook.main(arguments: ["--version"], environment: [:], stdoutIsTerminal: false, out: out, err: err) == 0)
        #expect(out.text == "datebook \(Datebook.version)\n")
    }
}
