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

    @Test func theAgendaPageListsTheToDoListsAndADueToDoInItsPeriod() throws {
        let sandbox = try ServeSandbox()
        let file = sandbox.directory + "/todos.ics"
        try Self.todos.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try sandbox.run(["import", file])
        try #require(imported.status == 0, "\(imported.err)")
        try sandbox.start()
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
}
