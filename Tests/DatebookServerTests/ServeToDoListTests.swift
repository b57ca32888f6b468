import Foundation
import Testing

/// The agenda page shows the to-do lists (issue 31): an imported file's stand-alone VTODOs are its
/// to-do list, on no date; one with a DUE is also a row of its period; neither is in Past.
struct ServeToDoListTests {
    static let todos = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r
        BEGIN:VTODO\r\nUID:passport-1\r\nDTSTAMP:20261101T100000Z\r\nSUMMARY:Renew passport\r\nDUE;VALUE=DATE:20261204\r\nPRIORITY:1\r\nEND:VTODO\r
        BEGIN:VTODO\r\nUID:photos-1\r\nDTSTAMP:20261101T100000Z\r\nSUMMARY:Get photos\r\nRELATED-TO:passport-1\r\nEND:VTODO\r
        BEGIN:VTODO\r\nUID:milk-1\r\nDTSTAMP:20261101T100000Z\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n
        """

    /// A server over a store with `todos` imported, its clock at `now`.
    static func serving(now: String = "2026-11-30 09:00") throws -> ServeSandbox {
        let sandbox = try ServeSandbox()
        sandbox.now = now
        let file = sandbox.directory + "/todos.ics"
        try todos.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try sandbox.run(["import", file])
        try #require(imported.status == 0, "\(imported.err)")
        try sandbox.start()
        return sandbox
    }

    @Test func theAgendaPageListsTheToDoListsAndADueToDoInItsPeriod() throws {
        let sandbox = try Self.serving()
        let page = try sandbox.get("/")
        #expect(page.status == 200)
        let lists = try #require(page.text.components(separatedBy: "id=\"todo-lists\"").last)
        for text in ["Tasks", "3 left", "Buy milk", "Get photos", "Renew passport", "due Fri, Dec 4 all day", "priority 1"] {
            #expect(lists.contains(text), "no \(text) under To-do lists: \(lists)")
        }
        // Each to-do has its checkbox form, posting to its list.
        #expect(lists.components(separatedBy: "<form method=\"post\" action=\"/events/").count - 1 == 3, "\(lists)")
        let next7 = try #require(page.text.components(separatedBy: "id=\"next7\"").last?.components(separatedBy: "id=\"todo-lists\"").first)
        #expect(next7.contains("Renew passport") && !next7.contains("Buy milk"), "\(next7)")
        #expect(!page.text.contains("id=\"overdue\""), "the list is never overdue")
        // The digest says the same.
        let digest = try sandbox.run(["digest"]).out
        #expect(digest.contains("TO-DO LISTS\nTasks · 3 left\n  [ ] Renew passport · due Fri, Dec 4 all day · priority 1\n    [ ] Get photos\n  [ ] Buy milk\n"),
                "\(digest)")
        let week = try #require(digest.components(separatedBy: "NEXT 7 DAYS").last?.components(separatedBy: "TO-DO LISTS").first)
        #expect(week.contains("Renew passport"), "\(digest)")
        #expect(!digest.contains("OVERDUE"), "\(digest)")
    }

    /// The period pages (where the agenda's "… more" leads) and the day page list a due to-do among
    /// the events of its date, with its priority, linking to its list; the agenda API holds the lists.
    @Test func aPeriodPageListsTheToDosDueInIt() throws {
        let sandbox = try Self.serving()
        let list = try #require(try sandbox.get("/").text.components(separatedBy: "id=\"todo-lists\"").last)
        let listPath = try #require(list.components(separatedBy: "<a class=\"title\" dir=\"auto\" href=\"").dropFirst().first?
            .components(separatedBy: "\"").first)
        let next7 = try sandbox.get("/period/next7")
        #expect(next7.status == 200)
        #expect(next7.text.contains("href=\"\(listPath)?at=") && next7.text.contains(">Renew passport</a>"), "\(next7.text)")
        #expect(next7.text.contains("Fri, Dec 4 all day · priority 1</div>"), "\(next7.text)")
        #expect(!next7.text.contains("Buy milk") && !next7.text.contains("Get photos"), "only a to-do with a due date has a period")
        #expect(try sandbox.get("/day/2026-12-04").text.contains(">Renew passport</a>"))
        #expect(!(try sandbox.get("/day/2026-12-03").text.contains("Renew passport")))
        for period in ["next30", "future", "overdue"] {
            #expect(!(try sandbox.get("/period/" + period).text.contains("Renew passport")), "\(period)")
        }
        // A week later it is overdue: on the Overdue page, with its priority.
        let later = try Self.serving(now: "2026-12-07 09:00")
        let overdue = try later.get("/period/overdue").text
        #expect(overdue.contains(">Renew passport</a>") && overdue.contains("priority 1</div>"), "\(overdue)")
        let agenda = try sandbox.get("/api/v1/agenda").text
        #expect(agenda.contains("\"title\": \"Renew passport\", \"start\": \"2026-12-04T00:00:00+01:00\", \"allDay\": true"), "\(agenda)")
        #expect(agenda.contains("\"taskLists\": [\n    {\"id\": "), "\(agenda)")
    }
}
