import DatebookTestSupport
import Foundation
import Testing

/// The JSON API and the iCalendar feed of `datebook serve`, through real HTTP.
@Suite(.serialized) struct ServeAPITests {
    static func pagliacci(_ sandbox: ServeSandbox) throws -> String {
        try #require(firstMatch(#""id": "([0-9a-f]+)", "title": "Pagliacci""#, in: sandbox.run(["list", "--json"]).out))
    }

    /// The sample planner plus a weekly event with an alert (the sample has no alerts).
    static func demoWithAlert() throws -> ServeSandbox {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try #require(sandbox.run(["add", "Standup", "--at", "tomorrow 09:30", "--repeat", "weekly", "--alert", "10m", "--task", "Notes"]).status == 0)
        try sandbox.start()
        return sandbox
    }

    @Test func theAgendaIsWhatListJsonPrints() throws {
        let sandbox = try ServePagesTests.demo()
        for period in ["next7", "next30", "future", "past", "all"] {
            let response = try sandbox.get("/api/v1/agenda?period=\(period)")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.text == (try sandbox.run(["list", "--json", "--period", period]).out), "period \(period)")
        }
        #expect(try sandbox.get("/api/v1/agenda").text == (try sandbox.run(["list", "--json"]).out))
        let bad = try sandbox.get("/api/v1/agenda?period=next8")
        #expect(bad.status == 400)
        #expect(bad.text.contains("\"field\": \"period\"") && bad.text.contains("next7"))
    }

    @Test func anEventAndAPatchOfOneTask() throws {
        let sandbox = try ServePagesTests.demo()
        let id = try Self.pagliacci(sandbox)
        let event = try sandbox.get("/api/v1/events/\(id)")
        #expect(event.status == 200)
        #expect(event.text.contains("\"title\": \"Pagliacci\"") && event.text.contains("\"badge\": 2"))
        let patched = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2", headers: ["Content-Type": "application/json", "X-Datebook-CSRF": "1"],
                                  body: Array(#"{"status": "done"}"#.utf8))
        #expect(patched.status == 200)
        #expect(patched.text.contains("\"badge\": 1"))
        #expect(try sandbox.run(["show", id]).out.contains("1 left"))
    }

    @Test(arguments: [
        (#"{"status": "done""#, 400, "body"), ("not json", 400, "body"), ("[1]", 400, "body"), (#"{"state": "done"}"#, 400, "status"),
        (#"{"status": "finished"}"#, 400, "status"), (#"{"status": 3}"#, 400, "status"),
    ])
    func badPatchesAreJSONErrorsNamingTheFieldAndChangeNothing(body: String, status: Int, field: String) throws {
        let sandbox = try ServePagesTests.demo()
        let id = try Self.pagliacci(sandbox)
        let before = try sandbox.run(["list", "--json"]).out
        let response = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/2", headers: ["X-Datebook-CSRF": "1"], body: Array(body.utf8))
        #expect(response.status == status)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.text.contains("\"field\": \"\(field)\""), "\(response.text)")
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }

    @Test func unknownEventsAndTasksAre404NamingTheField() throws {
        let sandbox = try ServePagesTests.demo()
        let id = try Self.pagliacci(sandbox)
        let missing = try sandbox.get("/api/v1/events/0123456789abcdef")
        #expect(missing.status == 404 && missing.text.contains("\"field\": \"id\""))
        let task = try request(sandbox.port, "PATCH", "/api/v1/events/\(id)/tasks/9", headers: ["X-Datebook-CSRF": "1"], body: Array(#"{"status": "done"}"#.utf8))
        #expect(task.status == 404 && task.text.contains("\"field\": \"n\"") && task.text.contains("expected 1…3"))
        let gone = try request(sandbox.port, "DELETE", "/api/v1/events/0123456789abcdef", headers: ["X-Datebook-CSRF": "1"])
        #expect(gone.status == 404 && gone.text.contains("\"field\": \"id\""))
        #expect(try request(sandbox.port, "PUT", "/api/v1/events/\(id)").status == 405)
    }

    @Test func theFeedHasAnETagAndAnswers304ToIt() throws {
        let sandbox = try Self.demoWithAlert()
        let feed = try sandbox.get("/calendar.ics")
        #expect(feed.status == 200)
        #expect(feed.header("Content-Type") == "text/calendar; charset=utf-8")
        let etag = try #require(feed.header("ETag"))
        #expect(feed.text.hasPrefix("BEGIN:VCALENDAR") && feed.text.contains("BEGIN:VTODO") && feed.text.contains("BEGIN:VALARM")
                && feed.text.contains("RRULE:"))
        let again = try sandbox.get("/calendar.ics", headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == etag)
        try #require(sandbox.run(["task", "done", "Pagliacci", "2"]).status == 0)
        let changed = try sandbox.get("/calendar.ics", headers: ["If-None-Match": etag])
        #expect(changed.status == 200 && changed.header("ETag") != etag)
    }

    @Test func theFeedParsesInPythonAndImportsBackToTheSamePlanner() throws {
        let sandbox = try Self.demoWithAlert()
        let feed = try sandbox.get("/calendar.ics")
        let file = sandbox.directory + "/feed.ics"
        try Data(feed.body).write(to: URL(fileURLWithPath: file))
        let python = try #require(TestPython.executable)
        let script = """
        import icalendar, sys
        cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
        print(len(cal.walk('VEVENT')), len(cal.walk('VTODO')), len(cal.walk('VALARM')))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let counts = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python icalendar could not read the feed (setup.sh --test installs it)")
        let numbers = counts.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(numbers.count == 3 && numbers[0] == 10 && numbers[1] > 10 && numbers[2] == 1, "\(counts)")

        let copy = try ServeSandbox()
        try #require(copy.run(["import", file]).status == 0)
        #expect(try copy.run(["list", "--json"]).out == (try sandbox.run(["list", "--json"]).out))
    }

    @Test func aFeedTokenOpensOnlyTheFeed() throws {
        let sandbox = try ServeSandbox(config: #"{ serve: { token: "s3cret-token-of-enough-length-2026", feedToken: "f33d-t0ken" } }"#)
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        #expect(try sandbox.get("/feeds/f33d-t0ken/calendar.ics").status == 200)
        #expect(try sandbox.get("/calendar.ics?token=f33d-t0ken").status == 200)
        #expect(try sandbox.get("/calendar.ics").status == 401)
        #expect(try sandbox.get("/feeds/wrong/calendar.ics").status == 404)
        #expect(try sandbox.get("/calendar.ics?token=s3cret").status == 401)
        #expect(try sandbox.get("/").status == 401)
        #expect(!sandbox.logText.contains("f33d-t0ken"), "neither the path's token nor the query string reaches the log")
        #expect(sandbox.logText.contains("GET /feeds/****/calendar.ics 200 "))
    }
}
