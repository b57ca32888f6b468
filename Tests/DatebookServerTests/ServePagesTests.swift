import Foundation
import Testing

/// `datebook serve` on the sample planner, through real HTTP: pages, forms, the CLI seeing the change.
@Suite(.serialized) struct ServePagesTests {
    static func demo() throws -> ServeSandbox {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        return sandbox
    }

    @Test func theAgendaShowsPeriodsBadgesAndATaskFormPerTask() throws {
        let sandbox = try Self.demo()
        try #require(sandbox.run(["done", "Pagliacci"]).status == 0)
        let page = try sandbox.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Cache-Control") == "no-store")
        #expect(page.header("Content-Security-Policy") == "default-src 'self'; script-src 'self'; frame-ancestors 'none'")
        for text in ["Next 7 Days", "Next 30 Days", "Future", "Pagliacci", "2 left", "✓", "webcal://127.0.0.1:\(sandbox.port)/calendar.ics", "<table class=\"month\">"] {
            #expect(page.text.contains(text), "no \(text) on the agenda page")
        }
        #expect(!page.text.contains("<h2 class=\"period\" id=\"past\""), "Past shows only as Overdue")
        #expect(!page.text.contains("<script"), "no script")
        #expect(!page.text.contains("style=\""), "no inline style (the CSP forbids it)")
        let forms = page.text.components(separatedBy: "<form method=\"post\" action=\"/events/").count - 1
        #expect(forms >= 15, "one form per task, got \(forms)")
        let css = try sandbox.get("/static/site.css")
        #expect(css.status == 200 && css.text.contains("prefers-color-scheme: dark") && css.text.contains(".c-yellow { border-left-color: #FFCC00; }"))
    }

    /// Future shows each series once, at its next occurrence, and that row says so (issue 26), as `list`
    /// and the digest do; the rows of single occurrences do not.
    @Test func theAgendaSaysRepeatsOnTheFutureRowOfASeries() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["add", "Standup", "--at", "2026-12-01 09:30", "--repeat", "weekly"]).status == 0)
        try sandbox.start()
        let page = try sandbox.get("/").text
        #expect(page.components(separatedBy: "🔁").count == 2, "\(page)")
        let future = try #require(page.components(separatedBy: "id=\"future\"").last)
        #expect(future.contains("🔁") && future.contains("Standup"), "\(future)")
    }

    @Test func aFormPostMarksATaskDoneAndListShowsTheNewBadge() throws {
        let sandbox = try Self.demo()
        #expect(try sandbox.run(["list", "--period", "next7"]).out.contains("2 left"))
        let page = try sandbox.get("/").text
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: page))
        let id = try #require(firstMatch(#"href="/events/([0-9a-f]+)(?:\?at=[^"]*)?">Pagliacci<"#, in: page))
        let task = try #require(firstMatch(#"name="task" value="([0-9a-f]+)"><input type="hidden" name="next" value="/(?:#[^"]*)?"><button[^>]*aria-label="Mark done: Get tickets""#, in: page))
        let response = try sandbox.post("/events/\(id)/task", form: ["csrf": csrf, "task": task, "status": "done", "next": "/"])
        #expect(response.status == 303)
        #expect(response.header("Location") == "/")
        let list = try sandbox.run(["list", "--period", "next7"]).out
        let row = try #require(list.split(separator: "\n").first { $0.contains("Pagliacci") })
        #expect(row.contains("1 left"), "\(row)")
        #expect(try sandbox.get("/").text.contains("aria-label=\"Mark not done: Get tickets\""))
    }

    @Test func aPostWithoutTheCSRFTokenChangesNothing() throws {
        let sandbox = try Self.demo()
        let page = try sandbox.get("/").text
        let id = try #require(firstMatch(#"href="/events/([0-9a-f]+)(?:\?at=[^"]*)?">Pagliacci<"#, in: page))
        let task = try #require(firstMatch(#"name="task" value="([0-9a-f]+)"><input type="hidden" name="next" value="/(?:#[^"]*)?"><button[^>]*aria-label="Mark done: Get tickets""#, in: page))
        let before = try sandbox.run(["list", "--json"]).out
        for csrf in [nil, "0000", String(repeating: "a", count: 64)] {
            var form = ["task": task, "status": "done"]
            form["csrf"] = csrf
            #expect(try sandbox.post("/events/\(id)/task", form: form).status == 403)
        }
        #expect(try sandbox.run(["list", "--json"]).out == before)
    }

    @Test func theEventPageChangesATaskAndAddsOne() throws {
        let sandbox = try Self.demo()
        let agenda = try sandbox.get("/").text
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: agenda))
        let id = try #require(firstMatch(#"href="/events/([0-9a-f]+)(?:\?at=[^"]*)?">Camping Trip<"#, in: agenda))
        let page = try sandbox.get("/events/\(id)")
        #expect(page.status == 200)
        for text in ["Camping Trip", "5 left", ">To do</button>", ">Doing</button>", ">Done</button>", "<label for=\"new-task\">New task</label>"] {
            #expect(page.text.contains(text), "no \(text) on the event page")
        }
        let added = try sandbox.post("/events/\(id)/tasks", form: ["csrf": csrf, "text": "Pack the <tent> & poles"])
        #expect(added.status == 303 && added.header("Location") == "/events/\(id)")
        let after = try sandbox.get("/events/\(id)").text
        #expect(after.contains("6 left") && after.contains("Pack the &lt;tent&gt; &amp; poles"))
        let shown = try sandbox.run(["show", id]).out
        #expect(shown.contains("Pack the <tent> & poles"))
        #expect(try sandbox.post("/events/\(id)/tasks", form: ["csrf": csrf, "text": "   "]).status == 400)
        #expect(try sandbox.get("/events/ffffffffffffffff").status == 404)
    }

    @Test func anEventTitleWithMarkupShowsAsText() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["add", "<img src=x onerror=alert(1)>", "--at", "tomorrow 10:00", "--task", "<script>alert(2)</script>"]).status == 0)
        try sandbox.start()
        let page = try sandbox.get("/").text
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(page.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
        #expect(!page.contains("<img") && !page.contains("<script"))
    }

    @Test func sigtermStopsTheServerWithExitZero() throws {
        let sandbox = try Self.demo()
        #expect(try sandbox.get("/healthz").text == "ok\n")
        #expect(sandbox.stop() == 0)
        #expect(sandbox.logText.contains("GET /healthz 200 "))
        #expect(sandbox.logText.contains("stopping: in-flight requests finished"))
    }

    /// A stop sent the moment the server says where it listens is handled: the signal handling
    /// is in place before the server answers (it used to come after, and such a SIGTERM was lost).
    @Test(arguments: [["serve"], ["run", "--serve"]])
    func aStopRightAfterStartIsNeverLost(command: [String]) throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        for _ in 0..<8 {
            try sandbox.start(command: command)
            #expect(sandbox.stop() == 0, "\(sandbox.logText)")
        }
    }

    @Test func runServeAnswersInTheDaemonsProcess() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start(command: ["run", "--serve"])
        #expect(try sandbox.get("/healthz").status == 200)
        #expect(try sandbox.get("/").text.contains("Pagliacci"))
        #expect(sandbox.stop() == 0)
        #expect(sandbox.logText.contains("started (pid"))
    }
}
