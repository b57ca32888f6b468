@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// The delivery tests' scriptable HTTP sink (http_sink.py) with the helpers feed tests read.
extension TestServer {
    func url(_ path: String) -> String { baseURL + path }

    /// The requests recorded so far, in order.
    func requests() throws -> [[String: Any]] { try records() }
}

struct FeedCommandTests {
    /// A sandbox with feed 'work' serving a copy of team.ics through the sink.
    func subscribed() throws -> (Sandbox, TestServer, String) {
        let sandbox = Sandbox.october()
        let sink = try TestServer(script: "http_sink.py")
        let file = sandbox.home + "/work.ics"
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("team.ics").path, toPath: file)
        let run = sandbox.run(["feed", "add", "work", sink.url("/feed?file=" + file)])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasSuffix("feed 'work': 2 events\n"))
        return (sandbox, sink, file)
    }

    @Test func unchangedFeedIsOneConditionalRequestAnswered304() throws {
        let (sandbox, sink, _) = try subscribed()
        let run = sandbox.run(["feed", "refresh", "work"])
        #expect(run.out == "feed 'work': unchanged\n")
        let second = try sink.requests().last?["headers"] as? [[String]]
        #expect(second?.contains { $0[0] == "If-None-Match" } == true)
    }

    @Test func overlaysSurviveARefresh() throws {
        let (sandbox, sink, file) = try subscribed()
        defer { withExtendedLifetime(sink) {} }
        #expect(sandbox.run(["task", "add", "Dentist", "Bring insurance card"]).code == 0)
        #expect(sandbox.run(["edit", "Dentist", "--event-color", "red"]).code == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "130000Z", with: "140000Z")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["feed", "refresh"]).out == "feed 'work': 2 events\n")
        let dentist = try sandbox.exportedEvents().first { $0["title"] as? String == "Dentist" }
        #expect(dentist?["start"] as? String == "2026-10-27T14:00:00Z")
        #expect((dentist?["tasks"] as? [[String: Any]])?.first?["text"] as? String == "Bring insurance card")
        #expect(dentist?["color"] as? String == "red")
    }

    @Test func overlaysWinOverTheFeedsOwnColourAndSymbol() throws {
        let sandbox = Sandbox()
        let path = sandbox.home + "/styled.ics"
        try StylePropertyImportTests.calendar("COLOR:dodgerblue\r\nX-DATEBOOK-SYMBOL:airplane\r\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["feed", "add", "styled", path]).code == 0)
        #expect(sandbox.run(["edit", "Styled", "--color", "red", "--symbol", "gift"]).code == 0)
        try StylePropertyImportTests.calendar("COLOR:dodgerblue\r\nX-DATEBOOK-SYMBOL:airplane\r\nLOCATION:moved\r\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["feed", "refresh", "styled"]).out == "feed 'styled': 1 event\n")
        let event = try sandbox.exportedEvents().first
        #expect(event?["color"] as? String == "red" && event?["symbol"] as? String == "gift.fill")
    }

    @Test func feedEventsAreReadOnly() throws {
        let (sandbox, sink, _) = try subscribed()
        defer { withExtendedLifetime(sink) {} }
        let edit = sandbox.run(["edit", "Dentist", "--title", "Mine now"])
        #expect(edit.code == 64)
        #expect(edit.err.hasPrefix("datebook: cannot edit 'Dentist': it comes from feed 'work' and is read-only"))
        let remove = sandbox.run(["rm", "Dentist"])
        #expect(remove.err.hasPrefix("datebook: cannot remove 'Dentist': it comes from feed 'work' and is read-only"))
        #expect(try sandbox.exportedEvents().count == 2)
    }

    @Test(arguments: [
        ("/status/500", "feed 'work': HTTP 500 from "),
        ("/html", "feed 'work': not iCalendar (got text/html)"),
        ("/endless", "feed 'work': larger than 20 MB"),
        ("/redirect-file", "file://**** (redirected from http://127.0.0.1:"),
        // A redirected fetch names the URL that failed, then the one asked for.
        ("/redirect-to/status/404", "/status/404 (redirected from http://127.0.0.1:"),
        ("/redirect-to/endless", "/**** (redirected from http://127.0.0.1:"),
    ])
    func aFailedRefreshKeepsTheLastGoodCopy(path: String, message: String) throws {
        let (sandbox, sink, file) = try subscribed()
        defer { withExtendedLifetime(sink) {} }
        let before = try sandbox.exportedEvents()
        try path.dropFirst().write(toFile: file + ".mode", atomically: true, encoding: .utf8)
        let run = sandbox.run(["feed", "refresh", "work"])
        #expect(run.code == 75)
        #expect(run.err.hasPrefix("datebook: feed 'work': "))
        #expect(run.err.contains(message), "\(run.err)")
        #expect(run.err.hasSuffix("; the last good copy is kept\n"))
        #expect(try sandbox.exportedEvents().count == before.count)
        #expect(try sandbox.exportedEvents().map { $0["id"] as? String } == before.map { $0["id"] as? String })
        #expect(sandbox.run(["feed", "list"]).out.contains("FAILED: "))
    }

    @Test func aBrokenRefreshAfterAGoodOneKeepsTheEvents() throws {
        let (sandbox, sink, file) = try subscribed()
        defer { withExtendedLifetime(sink) {} }
        try "<!DOCTYPE html><html><body>oops</body></html>".write(toFile: file, atomically: true, encoding: .utf8)
        let run = sandbox.run(["feed", "refresh", "work"])
        #expect(run.code == 75)
        #expect(run.err.contains("feed 'work': not iCalendar"))
        #expect(try sandbox.exportedEvents().count == 2)
    }

    /// A feed whose first fetch fails is not added (there is no copy to keep), and the message says why.
    @Test func aFeedWhoseFirstFetchFailsIsNotAdded() throws {
        let sandbox = Sandbox.october()
        let sink = try TestServer(script: "http_sink.py")
        let missing = sandbox.home + "/missing.ics"
        for (source, reason) in [(missing, "\(missing): no such file"), (sink.url("/html"), "not iCalendar (got text/html)")] {
            let run = sandbox.run(["feed", "add", "work", source])
            #expect(run.code == 65, "\(run.err)")
            #expect(run.out.isEmpty)
            #expect(run.err == "datebook: feed 'work' not added: \(reason); check the URL or path, or add it anyway with --keep\n")
            #expect(sandbox.run(["feed", "list"]).out.hasPrefix("No feeds."))
        }
    }

    @Test func keepAddsAFeedWhoseFirstFetchFailsAndRefreshSaysThereIsNoCopyYet() throws {
        let sandbox = Sandbox.october()
        let missing = sandbox.home + "/later.ics"
        let run = sandbox.run(["feed", "add", "work", missing, "--keep"])
        #expect(run.code == 0)
        #expect(run.out.hasPrefix("added feed 'work' (\(missing))"))
        #expect(run.err.contains("feed 'work': \(missing): no such file; kept (--keep) with no events yet"))
        let refresh = sandbox.run(["feed", "refresh", "work"])
        #expect(refresh.code == 75)
        #expect(refresh.err == "datebook: feed 'work': \(missing): no such file; it has no events yet ('datebook feed rm work' removes it)\n")
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("team.ics").path, toPath: missing)
        #expect(sandbox.run(["feed", "refresh", "work"]).out == "feed 'work': 2 events\n")
    }

    @Test func localPathFeedIsReReadOnlyWhenItChanges() throws {
        let sandbox = Sandbox.october()
        let file = sandbox.home + "/local.ics"
        try FileManager.default.copyItem(atPath: cliFixtures.appendingPathComponent("team.ics").path, toPath: file)
        // The path is stored in its plain form.
        let roundabout = sandbox.home.replacingOccurrences(of: "/", with: "//") + "/./local.ics"
        #expect(sandbox.run(["feed", "add", "home", roundabout, "--every", "1h"]).out.hasSuffix("feed 'home': 2 events\n"))
        #expect(sandbox.run(["feed", "list"]).out.hasPrefix("home  \(file)  every 1h"))
        #expect(sandbox.run(["feed", "refresh", "home"]).out == "feed 'home': unchanged\n")
        #expect(sandbox.run(["feed", "rm", "home"]).code == 0)
        #expect(try sandbox.exportedEvents().isEmpty)
    }

    /// A local path that is not a calendar (a password file, another program's JSON) is refused
    /// without a word of its content in the output or the store; a FIFO is not even opened.
    @Test(arguments: [
        ("shadow", "root:$6$CANARYHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
         "not iCalendar (got plain text without BEGIN:VCALENDAR)"),
        ("config.json", #"{"auths": {"registry.example.org": {"auth": "CANARYTOKEN"}}}"#,
         "not iCalendar (got JSON that is not a planner document)"),
        ("broken.json", #"{"token": CANARYWORD}"#, "not iCalendar (got JSON that cannot be read: line 1, column 11)"),
        ("fifo", "", "not a regular file"),
    ])
    func aLocalFileThatIsNotACalendarIsRefusedWithoutEchoingIt(name: String, content: String, message: String) throws {
        let sandbox = Sandbox.october()
        let file = sandbox.home + "/" + name
        if name == "fifo" {
            #expect(mkfifo(file, 0o600) == 0)
        } else {
            try content.write(toFile: file, atomically: true, encoding: .utf8)
        }
        for arguments in [["feed", "add", "local", file], ["feed", "refresh"], ["feed", "list"]] {
            let run = sandbox.run(arguments)
            #expect(!(run.out + run.err).contains("CANARY"), "\(arguments): \(run.out)\(run.err)")
            if arguments[1] == "add" {
                #expect(run.code != 0)
                #expect(run.err.hasPrefix("datebook: feed 'local' not added: ") && run.err.contains(message), "\(run.err)")
            }
        }
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: sandbox.store + suffix) ?? Data()
            #expect(bytes.range(of: Data("CANARY".utf8)) == nil, "the store\(suffix) holds the file's content")
        }
    }

    @Test(arguments: [
        (["feed", "add", "x", "file:///etc/passwd"], "only https:// and http:// URLs (or a local path) are allowed"),
        (["feed", "add", "x", "/tmp/x.ics", "--every", "10s"], "--every expects a duration of at least 1m"),
        (["feed", "refresh", "nope"], "no feed named 'nope'"),
        (["feed", "fetch"], "unknown feed action 'fetch'"),
    ])
    func usageMistakesAreExplained(arguments: [String], message: String) {
        let run = Sandbox.october().run(arguments)
        #expect(run.code == 64)
        #expect(run.err.contains(message), "\(run.err)")
    }
}
