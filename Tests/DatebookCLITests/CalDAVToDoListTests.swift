@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// Stand-alone to-dos (issue 31): a calendar's VTODOs without an event are its to-do list, on no
/// date; those with a DUE show in its period, with their PRIORITY; a to-do of a to-do keeps its
/// RELATED-TO. Another device (the Python `caldav` library) reads the server back. Now is Monday
/// 2026-11-30 09:00 (Europe/Berlin).
struct CalDAVToDoListTests {
    static let ready = TestPython.imports(["caldav", "icalendar"])

    static func todo(_ uid: String, _ summary: String, _ extra: String = "") -> String {
        calendar(vtodo(uid, summary, extra))
    }

    static func vtodo(_ uid: String, _ summary: String, _ extra: String = "") -> String {
        "BEGIN:VTODO\r\nUID:\(uid)\r\nDTSTAMP:20261101T100000Z\r\nSUMMARY:\(summary)\r\nSTATUS:NEEDS-ACTION\r\n\(extra)END:VTODO\r\n"
    }

    static func calendar(_ components: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\n" + components + "END:VCALENDAR\r\n"
    }

    /// "SUMMARY\tDUE\tPRIORITY\tRELATED-TO\tSTATUS" per VTODO, as the peer reads the calendar.
    static func peer(_ server: Radicale) throws -> [String] {
        try CalDAVOccurrenceTests.runPeer("caldav-todos.py", server, ["Personal"])
    }

    /// The passport (due Friday, priority 1), its part "Get photos" (RELATED-TO it) and the milk (no DUE).
    func synced() throws -> (Sandbox, Radicale, [String: String]) {
        let (sandbox, server, environment) = try CalDAVCommandTests().added()
        try server.put("personal", "passport.ics", Self.todo("passport-1", "Renew passport", "DUE;VALUE=DATE:20261204\r\nPRIORITY:1\r\n"))
        try server.put("personal", "photos.ics", Self.todo("photos-1", "Get photos", "RELATED-TO:passport-1\r\n"))
        let sync = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(sync.code == 0 && sync.err.isEmpty, "\(sync.err)")
        return (sandbox, server, environment)
    }

    @Test func aDueToDoShowsInItsPeriodAndTheListIsNeverInPast() throws {
        let (sandbox, _, _) = try synced()
        let list = sandbox.run(["list"]).out
        let sections = list.components(separatedBy: "\n\n")
        let next7 = try #require(sections.first { $0.hasPrefix("Next 7 Days\n") }, "\(list)")
        #expect(next7.contains("[ ] Renew passport"), "\(list)")
        #expect(next7.contains("Fri 2026-12-04 all day  to-do of Tasks, priority 1"), "\(list)")
        #expect(!next7.contains("Buy milk") && !next7.contains("Get photos"))
        #expect(!list.contains("Past\n"), "\(list)")
        let lists = try #require(sections.first { $0.hasPrefix("To-do lists\n") }, "\(list)")
        #expect(lists.contains("Tasks  3 left\n"), "\(lists)")
        #expect(lists.contains("    [ ] Renew passport  due Fri 2026-12-04 all day, priority 1\n      [ ] Get photos\n"), "\(lists)")
        #expect(lists.contains("    [ ] Buy milk\n"), "\(lists)")
        // A week later the open passport is overdue: in Past by its due date, and still on its list.
        var week = sandbox
        week.now = "2026-12-07 09:00"
        let later = week.run(["list"]).out
        #expect(later.contains("Past\n") && later.contains("To-do lists\n"), "\(later)")
        #expect(sandbox.run(["list", "--period", "past"]).out.hasPrefix("No events in Past"))
    }

    /// A list imported from a file, with a due date, a priority and a part of a to-do, comes back
    /// the same through both export formats (the iCalendar one writes the to-dos alone, their UIDs
    /// naming the list), and is a list again: on no date.
    @Test func aToDoListRoundTripsThroughTheExport() throws {
        let sandbox = Sandbox()
        let file = sandbox.home + "/todos.ics"
        let text = Self.calendar(Self.vtodo("passport-1", "Renew passport", "DUE;VALUE=DATE:20261204\r\nPRIORITY:1\r\n")
            + Self.vtodo("photos-1", "Get photos", "RELATED-TO:passport-1\r\n") + Self.vtodo("milk-1", "Buy milk"))
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        let json = sandbox.run(["export"]).out
        #expect(json.contains("\"due\": \"2026-12-04\", \"priority\": 1 }") && json.contains("\"taskList\": true"), "\(json)")
        #expect(json.contains("\"parent\": "), "\(json)")
        try RoundTripTests.checkRoundTrips(of: sandbox, name: "to-do list")
    }

    @Test(.enabled(if: ready)) func aToDoMadeInDatebookGoesUpWithoutAParentWithItsDueAndPriority() throws {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        try server.put("personal", "dentist.ics", CalDAVCommandTests.dentist)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        #expect(sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                             "--password-env", "DAV_PASSWORD"], environment: environment).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let add = sandbox.run(["task", "add", "--list", "Personal", "Renew passport", "--due", "2026-12-04", "--priority", "2"])
        #expect(add.code == 0, "\(add.err)")
        #expect(add.out.hasPrefix("added to-do 1 'Renew passport', due Fri 2026-12-04 all day, priority 2 to "), "\(add.out)")
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        #expect(try Self.peer(server) == ["Renew passport\t2026-12-04\t2\t-\tNEEDS-ACTION"])
        // Read back from the server: one to-do, on its list and in Next 7 Days; nothing more to send.
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        let list = sandbox.run(["list"]).out
        #expect(list.components(separatedBy: "Renew passport").count == 3, "\(list)")
        #expect(sandbox.run(["show", "Tasks"]).out.contains("1. [ ] Renew passport"))
        let wrong = sandbox.run(["task", "add", "--list", "Personal", "Other", "--priority", "12"])
        #expect(wrong.code == 64 && wrong.err.contains("--priority expects 1 (highest) … 9 (lowest), got '12'"), "\(wrong.err)")
        #expect(sandbox.run(["task", "add", "Dentist", "Card", "--due", "tomorrow"]).code == 64)
    }

    @Test(.enabled(if: ready)) func aPartOfAToDoKeepsItsParentOnTheServer() throws {
        let (sandbox, server, environment) = try synced()
        #expect(sandbox.run(["task", "done", "Tasks", "Get photos"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        #expect(try Self.peer(server) == ["Buy milk\t-\t-\t-\tNEEDS-ACTION", "Get photos\t-\t-\tpassport-1\tCOMPLETED",
                                          "Renew passport\t2026-12-04\t1\t-\tNEEDS-ACTION"])
        // Its parent moved a day on the phone: the due date and the part both come down.
        try server.put("personal", "passport.ics", Self.todo("passport-1", "Renew passport", "DUE;VALUE=DATE:20261205\r\nPRIORITY:1\r\n"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let show = sandbox.run(["list"]).out
        #expect(show.contains("Sat 2026-12-05 all day  to-do of Tasks, priority 1"), "\(show)")
        #expect(show.contains("Tasks  2 left\n"), "\(show)")
    }
}
