import Foundation
import Testing

/// Moving around the planner over real HTTP: months, days, a whole period page by page, and the
/// styled error pages in the reader's language.
@Suite(.serialized) struct ServeNavigationTests {
    @Test func theMonthMovesToOtherMonthsAndItsDaysLinkToDayPages() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try #require(sandbox.run(["add", "Ski trip", "--at", "2027-01-15 08:00"]).status == 0)
        try sandbox.start()
        let agenda = try sandbox.get("/").text
        for link in ["href=\"/month/2026-10\"", "href=\"/month/2026-12\"", "href=\"/day/2026-11-30\""] {
            #expect(agenda.contains(link), "the agenda's month lacks \(link)")
        }
        let december = try sandbox.get("/month/2026-12")
        #expect(december.status == 200)
        #expect(december.text.contains("<caption>") && december.text.contains("December 2026") && december.text.contains("href=\"/month/2027-01\""))
        let january = try sandbox.get("/month/2027-01")
        #expect(january.status == 200 && january.text.contains("January 2027") && january.text.contains(">Ski trip<"))
        #expect(!january.text.contains(">Pagliacci<"))
        #expect(january.text.contains("<td class=\"future has-events\"><a href=\"/day/2027-01-15\">"), "the day with the trip is marked and linked")
        let day = try sandbox.get("/day/2027-01-15")
        #expect(day.status == 200 && day.text.contains("Friday, January 15, 2027") && day.text.contains(">Ski trip<"))
        #expect(day.text.contains("href=\"/month/2027-01\""))
        #expect(try sandbox.get("/day/2027-01-16").text.contains("Nothing planned"))
        for bad in ["/month/2027-13", "/month/soon", "/day/2027-02-30"] {
            #expect(try sandbox.get(bad).status == 404, "\(bad)")
        }
    }

    @Test func andMoreLinksToTheWholePeriodPageByPage() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["add", "Daily run", "--at", "2026-12-08 00:00", "--repeat", "FREQ=HOURLY", "--count", "120"]).status == 0)
        try sandbox.start()
        let agenda = try sandbox.get("/").text
        #expect(agenda.contains("<a href=\"/period/next30\">… "), "the agenda's 'more' links to the period")
        let first = try sandbox.get("/period/next30")
        #expect(first.status == 200 && first.text.contains("Page 1 of 3") && first.text.contains("href=\"/period/next30?page=2\" rel=\"next\""))
        #expect(first.text.components(separatedBy: ">Daily run<").count - 1 == 50)
        #expect(first.text.contains("?at=2026-12-07T23:00:00Z"))
        let last = try sandbox.get("/period/next30?page=3")
        #expect(last.text.components(separatedBy: ">Daily run<").count - 1 == 20)
        #expect(last.text.contains("?at=2026-12-12T22:00:00Z") && last.text.contains("rel=\"prev\"") && !last.text.contains("rel=\"next\""))
        #expect(try sandbox.get("/period/someday").status == 404)
    }

    @Test func errorPagesAreStyledAndInTheReadersLanguage() throws {
        let sandbox = try ServeSandbox(config: "{ locale: \"de_DE\" }")
        try sandbox.start()
        let missing = try sandbox.get("/nowhere")
        #expect(missing.status == 404 && missing.header("Content-Type") == "text/html; charset=utf-8")
        for text in ["<html lang=\"de\">", "Nicht gefunden", "/static/site.css", "<nav class=\"bar\">", "/favicon.svg"] {
            #expect(missing.text.contains(text), "the 404 page lacks \(text)")
        }
        let method = try request(sandbox.port, "PUT", "/")
        #expect(method.status == 405 && method.text.contains("Nicht erlaubt") && method.header("Allow") == "GET")
        let large = try request(sandbox.port, "POST", "/events", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                body: Array(repeating: UInt8(ascii: "a"), count: 1_100_000))
        #expect(large.status == 413 && large.text.contains("Zu groß"))
        let api = try sandbox.get("/api/v1/nowhere")
        #expect(api.status == 404 && !api.text.contains("<html"), "the API answers without a page")
        let icon = try sandbox.get("/favicon.ico")
        #expect(icon.status == 200 && icon.header("Content-Type") == "image/svg+xml" && icon.text.hasPrefix("<svg"))
    }

    @Test func theLoginPageHasTheTopBar() throws {
        let sandbox = try ServeSandbox(config: "{ serve: { token: \"s3cret-token-of-enough-length-2026\" } }")
        try sandbox.start()
        let login = try sandbox.get("/month/2026-12")
        #expect(login.status == 401 && login.text.contains("<nav class=\"bar\">") && login.text.contains("name=\"token\""))
    }
}

/// An id from an imported planner may hold `/`, `?`, `#` and `%`: every link to it is percent-encoded
/// and leads to it (the server keeps `%2F` and `%25` encoded until a path is split into segments).
@Suite(.serialized) struct ServeOddIDTests {
    @Test func anIDWithSlashQuestionHashAndPercentGivesWorkingLinks() throws {
        let sandbox = try ServeSandbox()
        let planner = sandbox.directory + "/odd.json"
        try #"""
            {"datebook": 1, "events": [{"id": "odd/id?x#y%z%2F", "title": "Odd one", "start": "2026-12-02T09:00:00Z", "allDay": false,
             "end": null, "timeZone": "Europe/Berlin", "symbol": "clock.fill", "color": "primary", "notes": "", "alerts": [],
             "recurrence": null, "tasks": [{"id": "0f3448e5", "text": "One", "status": "todo"}]}]}
            """#.write(toFile: planner, atomically: true, encoding: .utf8)
        try #require(sandbox.run(["import", planner]).status == 0)
        try sandbox.start()
        let encoded = "odd%2Fid%3Fx%23y%25z%252F"
        let agenda = try sandbox.get("/").text
        #expect(agenda.contains("href=\"/events/\(encoded)?at=2026-12-02T09:00:00Z\">Odd one<"), "the agenda's link is percent-encoded")
        #expect(agenda.contains("action=\"/events/\(encoded)/task\""))
        let page = try sandbox.get("/events/\(encoded)")
        #expect(page.status == 200 && page.text.contains("Odd one"))
        #expect(page.text.contains("href=\"/events/\(encoded)/edit\""))
        #expect(try sandbox.get("/events/\(encoded)/edit").status == 200)
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: page.text))
        let task = try sandbox.post("/events/\(encoded)/task", form: ["csrf": csrf, "task": "0f3448e5", "status": "done", "next": "/events/\(encoded)"])
        #expect(task.status == 303 && task.header("Location") == "/events/\(encoded)")
        #expect(try sandbox.run(["show", "odd/id?x#y%z%2F"]).out.contains("[x] One"))
        #expect(try sandbox.get("/api/v1/events/\(encoded)").text.contains("\"id\": \"odd/id?x#y%z%2F\""))
        #expect(try sandbox.get("/events/odd/id").status == 404)
    }
}
