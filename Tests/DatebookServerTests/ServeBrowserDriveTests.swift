import DatebookTestSupport
import Foundation
import Testing

/// The web planner used as a person uses it, in headless Chromium driven through the DevTools
/// protocol (`Browser`): links and buttons clicked with the mouse, the form typed into, each page
/// waited for by its load event and its DOM checked. Screenshots of the form, the event and the
/// month at 375 and 1280 px, light and dark, go to .build/test-artifacts/serve/driven/.
@Suite(.serialized) struct ServeBrowserDriveTests {
    static let artifacts = ServeBrowserTests.artifacts + "/driven"

    /// Screenshots of the page as it is, in every look; each must be a real picture.
    static func shoot(_ browser: Browser, as name: String) throws {
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        for (width, dark) in [(375, false), (1280, false), (375, true), (1280, true)] {
            try browser.look(width: width, height: width < 600 ? 800 : 900, dark: dark)
            let bytes = try browser.screenshot(artifacts + "/\(name)-\(width)\(dark ? "-dark" : "").png")
            #expect(bytes > 10_000, "\(name) at \(width) px is \(bytes) bytes")
        }
        try browser.look(width: 1280, height: 900, dark: false)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ServeBrowserTests.chromium), "chromium is missing: run scripts/setup.sh --test"))
    func aPersonMakesEditsMovesAndDeletesAnEventAndPagesThroughTheMonths() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()
        let browser = try Browser(chromium: ServeBrowserTests.chromium)
        defer { browser.close() }
        let site = "http://127.0.0.1:\(sandbox.port)"
        try browser.look(width: 1280, height: 900, dark: false)

        // Create: from the agenda's "+ New event" link, the form typed into and saved.
        try browser.open(site + "/")
        try browser.click("nav.bar a[href=\"/events/new\"]")
        #expect(try browser.evaluate("location.pathname") as? String == "/events/new")
        try Self.shoot(browser, as: "new-event")
        for (field, text) in [("#f-title", "Choir practice"), ("#f-start", "2026-12-07 19:00"), ("#f-end", "2026-12-07 21:00"),
                              ("#f-location", "St. Mary's hall"), ("#f-recurrence", "FREQ=WEEKLY;BYDAY=MO"), ("#f-tasks", "Learn the alto part")] {
            try browser.type(field, text)
        }
        try browser.click("button.primary")
        let eventPath = try #require(browser.evaluate("location.pathname") as? String)
        #expect(eventPath.hasPrefix("/events/"), "after saving: \(eventPath)")
        let made = try browser.html()
        for text in ["Choir practice", "St. Mary's hall", "Every Monday", "Learn the alto part"] {
            #expect(made.contains(text), "the new event's page lacks \(text)")
        }
        try Self.shoot(browser, as: "event")
        #expect(try sandbox.run(["list"]).out.contains("Choir practice"), "the command line sees the event")

        // Edit the whole series: its title.
        try browser.click("a.button[href$=\"/edit\"]")
        #expect(try browser.evaluate("document.querySelector('#f-title').value") as? String == "Choir practice")
        try browser.type("#f-title", "Choir rehearsal")
        try browser.click("button.primary")
        let edited = try browser.html()
        #expect(edited.contains("Choir rehearsal") && !edited.contains("Choir practice"))

        // Move one occurrence: the first (7 Dec) to Tuesday 8 Dec.
        try browser.click("a.button[href*=\"/edit?occurrence=\"]")
        #expect(try browser.evaluate("document.querySelector('#f-recurrence') === null") as? Bool == true, "one occurrence's form has no repeat rule")
        try browser.type("#f-start", "2026-12-08 19:00")
        try browser.type("#f-end", "2026-12-08 21:00")
        try browser.click("button.primary")
        #expect(try browser.html().contains("Tue, Dec 8"), "the moved occurrence's page")

        // The months, by their ‹ › links: December shows the 8th, not the 7th, and January the series.
        try browser.open(site + "/month/2026-12")
        try browser.click(".month-nav a[href=\"/month/2027-01\"]")
        let january = try browser.html()
        #expect(january.contains("January 2027") && january.contains("Choir rehearsal"))
        try browser.click(".month-nav a[href=\"/month/2026-12\"]")
        let december = try browser.html()
        let days = december.components(separatedBy: "has-events\"><a href=\"/day/").dropFirst().map { String($0.prefix(10)) }
        #expect(december.contains("December 2026") && days.contains("2026-12-08") && !days.contains("2026-12-07") && days.contains("2026-12-14"),
                "\(days)")
        try Self.shoot(browser, as: "month")

        // Delete the series from its page.
        try browser.open(site + eventPath)
        try browser.click("button.danger")
        let agenda = try browser.html()
        #expect(try browser.evaluate("location.pathname") as? String == "/")
        #expect(!agenda.contains("?at=2026-12-14T18:00:00Z") && agenda.contains("Pagliacci"), "the series left the agenda")
        try Self.shoot(browser, as: "agenda-after-delete")
        #expect(!(try sandbox.run(["list"]).out.contains("Mon 2026-12-14 19:00")))
    }
}
