import DatebookTestSupport
import Foundation
import Testing

/// The web planner's editing in headless Chromium: each step's form is posted as the browser posts
/// it (urlencoded, with the page's CSRF value), and the page it leads to is loaded in Chromium at
/// 375 and 1280 px, light and dark; the DOM Chromium built is checked and the screenshots are kept
/// in .build/test-artifacts/serve/planner/.
@Suite(.serialized) struct ServeBrowserPlannerTests {
    static let artifacts = ServeBrowserTests.artifacts + "/planner"
    static let looks: [(name: String, size: String, extra: [String])] = [
        ("375", "375,1400", []), ("1280", "1280,1000", []),
        ("375-dark", "375,1400", ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]),
        ("1280-dark", "1280,1000", ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]),
    ]

    /// Screenshots of `path` in every look; each must be a real picture.
    static func shoot(_ sandbox: ServeSandbox, _ path: String, as name: String) throws {
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        for look in looks {
            let file = artifacts + "/\(name)-\(look.name).png"
            try? FileManager.default.removeItem(atPath: file)
            let run = try ServeBrowserTests.browse(["--window-size=\(look.size)", "--screenshot=\(file)"] + look.extra
                                                   + ["http://127.0.0.1:\(sandbox.port)\(path)"])
            #expect(run.status == 0)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            #expect(bytes > 10_000, "\(name)-\(look.name).png is \(bytes) bytes")
        }
    }

    /// The DOM of `path` after Chromium loaded it.
    static func dom(_ sandbox: ServeSandbox, _ path: String) throws -> String {
        try ServeBrowserTests.browse(["--window-size=375,1400", "--dump-dom", "http://127.0.0.1:\(sandbox.port)\(path)"]).out
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ServeBrowserTests.chromium), "chromium is missing: run scripts/setup.sh --test"))
    func anEventIsMadeEditedMovedAndDeletedAndTheMonthsMove() throws {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try sandbox.start()

        // The empty form: every input labelled.
        let form = try Self.dom(sandbox, "/events/new")
        for id in ["f-title", "f-start", "f-end", "f-zone", "f-symbol", "f-color", "f-location", "f-url", "f-alerts", "f-recurrence", "f-notes"] {
            #expect(form.contains("<label for=\"\(id)\">"), "no label for \(id)")
        }
        try Self.shoot(sandbox, "/events/new", as: "new-event")
        let csrf = try #require(firstMatch(#"name="csrf" value="([0-9a-f]+)""#, in: form))

        // Create: a weekly event; the browser then loads its page.
        let made = try sandbox.post("/events", form: ["csrf": csrf, "title": "Choir practice", "start": "2026-12-07 19:00", "end": "2026-12-07 21:00",
                                                      "timeZone": "Europe/Berlin", "color": "purple", "symbol": "mic.circle.fill",
                                                      "location": "St. Mary's hall", "url": "https://example.org/choir", "alerts": "1h",
                                                      "recurrence": "FREQ=WEEKLY;BYDAY=MO", "until": "", "count": "", "notes": "Bring the score",
                                                      "tasks": "Learn the alto part", "occurrence": ""])
        #expect(made.status == 303)
        let path = try #require(made.header("Location"))
        let page = try Self.dom(sandbox, path)
        for text in ["Choir practice", "St. Mary's hall", "href=\"https://example.org/choir\"", "Every Monday", "Learn the alto part"] {
            #expect(page.contains(text), "the event page lacks \(text)")
        }
        try Self.shoot(sandbox, path, as: "event")

        // Edit the whole series: a new title.
        let edit = try Self.dom(sandbox, path + "/edit")
        #expect(edit.contains("value=\"Choir practice\"") && edit.contains("value=\"2026-12-07 19:00\""))
        try Self.shoot(sandbox, path + "/edit", as: "edit-event")
        var fields = ["csrf": csrf, "occurrence": "", "symbol": "mic.circle.fill", "color": "purple", "notes": "Bring the score"]
        for name in ["title", "start", "end", "timeZone", "location", "url", "alerts", "recurrence", "until"] {
            fields[name] = firstMatch(#"name="\#(name)" type="text" value="([^"]*)""#, in: edit) ?? ""
        }
        fields["title"] = "Choir rehearsal"
        #expect(try sandbox.post(path, form: fields).status == 303)
        #expect(try Self.dom(sandbox, path).contains("Choir rehearsal"))

        // Move one occurrence (14 Dec → 15 Dec) and cancel another (21 Dec).
        let occurrence = "2026-12-14T18:00:00Z"
        let one = try Self.dom(sandbox, path + "/edit?occurrence=" + occurrence)
        #expect(one.contains("value=\"2026-12-14 19:00\"") && !one.contains("name=\"recurrence\""))
        var moved = fields
        moved["occurrence"] = occurrence
        moved["start"] = "2026-12-15 19:00"
        moved["end"] = firstMatch(#"name="end" type="text" value="([^"]*)""#, in: one) ?? ""
        let override = try sandbox.post(path, form: moved)
        #expect(override.status == 303)
        let overridePath = try #require(override.header("Location"))
        #expect(try Self.dom(sandbox, overridePath).contains("Tue, Dec 15"))
        try Self.shoot(sandbox, overridePath, as: "moved-occurrence")
        #expect(try sandbox.post(path + "/delete", form: ["csrf": csrf, "occurrence": "2026-12-21T18:00:00Z"]).status == 303)
        let series = try Self.dom(sandbox, path)
        #expect(series.contains("except") && series.contains("Dec 21"), "the rule in words names the cancelled date")

        // The months move; December shows the moved occurrence on the 15th and nothing on the 21st.
        let december = try Self.dom(sandbox, "/month/2026-12")
        #expect(december.contains("December 2026") && december.contains("href=\"/month/2027-01\""))
        let onDays = december.components(separatedBy: "has-events\"><a href=\"/day/").dropFirst().map { String($0.prefix(10)) }
        #expect(onDays.contains("2026-12-15") && !onDays.contains("2026-12-21") && onDays.contains("2026-12-28"), "\(onDays)")
        try Self.shoot(sandbox, "/month/2026-12", as: "month-december")
        let january = try Self.dom(sandbox, "/month/2027-01")
        #expect(january.contains("January 2027") && january.contains("Choir rehearsal") && january.contains("href=\"/month/2026-12\""))
        try Self.shoot(sandbox, "/month/2027-01", as: "month-january")

        // Delete the series: its occurrences leave the agenda and the command line (the moved one,
        // an event of its own, stays, as after `datebook rm`).
        #expect(try Self.dom(sandbox, "/").contains("?at=2026-12-07T18:00:00Z"))
        #expect(try sandbox.post(path + "/delete", form: ["csrf": csrf]).status == 303)
        let agenda = try Self.dom(sandbox, "/")
        #expect(!agenda.contains("?at=2026-12-07T18:00:00Z") && agenda.contains("Pagliacci"))
        try Self.shoot(sandbox, "/", as: "agenda-after-delete")
        #expect(!(try sandbox.run(["list"]).out.contains("Mon 2026-12-07 19:00")))
    }
}
