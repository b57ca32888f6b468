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
