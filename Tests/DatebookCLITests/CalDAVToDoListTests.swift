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
    static func peer(_ server: any CalDAVTestServer) throws -> [String] {
        try CalDAVOccurrenceTests.runPeer("caldav-todos.py", server, ["Personal"])
    }

    /// The passport (due Friday, priority 1), its part "Get photos" (RELATED-TO it) and the milk (no
    /// DUE), on a server of `kind` (`CalDAVCommandTests.servers`: Radicale, and Xandikos where installed).
    func synced(_ kind: String) throws -> (Sandbox, any CalDAVTestServer, [String: String]) {
        let (sandbox, server, environment) = try CalDAVCommandTests().added(kind)
        try server.put("personal", "passport.ics", Self.todo("passport-1", "Renew passport", "DUE;VALUE=DATE:20261204\r\nPRIORITY:1\r\n"))
        try server.put("personal", "photos.ics", Self.todo("photos-1", "Get photos", "RELATED-TO:passport-1\r\n"))
        let sync = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(sync.code == 0 && sync.err.isEmpty, "\(sync.err)")
        return (sandbox, server, environment)
    }

    @Test(arguments: CalDAVCommandTests.servers) func aDueToDoShowsInItsPeriodAndTheListIsNeverInPast(_ kind: String) throws {
        let (sandbox, _, _) = try synced(kind)
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

    /// A store with the list of `synced()` imported from a file: the passport (due Friday, priority
    /// 1), its part "Get photos" and the milk.
    static func imported() throws -> Sandbox {
        let sandbox = Sandbox()
        let file = sandbox.home + "/todos.ics"
        try calendar(vtodo("passport-1", "Renew passport", "DUE;VALUE=DATE:20261204\r\nPRIORITY:1\r\n")
            + vtodo("photos-1", "Get photos", "RELATED-TO:passport-1\r\n") + vtodo("milk-1", "Buy milk"))
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        return sandbox
    }

    /// A list imported from a file, with a due date, a priority and a part of a to-do, comes back
    /// the same through both export formats (the iCalendar one writes the to-dos alone, their UIDs
    /// naming the list), and is a list again: on no date.
    @Test func aToDoListRoundTripsThroughTheExport() throws {
        let sandbox = try Self.imported()
        let json = sandbox.run(["export"]).out
        #expect(json.contains("\"due\": \"2026-12-04\", \"priority\": 1 }") && json.contains("\"taskList\": true"), "\(json)")
        #expect(json.contains("\"parent\": "), "\(json)")
        try RoundTripTests.checkRoundTrips(of: sandbox, name: "to-do list")
    }

    /// `list --json` holds what `list` shows: a due to-do as a row of its period (its list's id, its
    /// text as the title, the to-do as its one task with `due`, `priority`, `parent`) and the lists
    /// with open to-dos under `taskLists`, with the whole agenda only.
    @Test func listJSONHoldsTheDueToDosAndTheLists() throws {
        let sandbox = try Self.imported()
        #expect(sandbox.run(["edit", "Tasks", "--symbol", "heart.fill"]).code == 0)
        let run = sandbox.run(["list", "--json"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], "\(run.out)")
        let periods = try #require(root["periods"] as? [[String: Any]])
        #expect(periods.map { $0["period"] as? String } == ["next7"], "\(run.out)")
        let rows = try #require(periods.first?["events"] as? [[String: Any]])
        let row = try #require(rows.first)
        let lists = try #require(root["taskLists"] as? [[String: Any]], "\(run.out)")
        let list = try #require(lists.first)
        #expect(lists.count == 1 && list["title"] as? String == "Tasks" && list["badge"] as? Int == 3 && list["taskList"] as? Bool == true)
        #expect(row["id"] as? String == list["id"] as? String && row["title"] as? String == "Renew passport", "\(row)")
        #expect(row["start"] as? String == "2026-12-04T00:00:00+01:00" && row["allDay"] as? Bool == true && row["taskList"] as? Bool == true)
        #expect(row["symbol"] as? String == "heart.fill" && row["emoji"] as? String == list["emoji"] as? String, "the list's look: \(row)")
        let todo = try #require((row["tasks"] as? [[String: Any]])?.first)
        #expect(todo["due"] as? String == "2026-12-04" && todo["priority"] as? Int == 1 && todo["status"] as? String == "todo", "\(todo)")
        let tasks = try #require(list["tasks"] as? [[String: Any]])
        let passport = try #require(tasks.first { $0["text"] as? String == "Renew passport" })
        let photos = try #require(tasks.first { $0["text"] as? String == "Get photos" })
        #expect(photos["parent"] as? String == passport["id"] as? String && photos["due"] is NSNull && photos["priority"] is NSNull, "\(tasks)")
        // A single period: the due row, no lists (as `list --period` prints them).
        let week = try #require(try JSONSerialization.jsonObject(with: Data(sandbox.run(["list", "--json", "--period", "next7"]).out.utf8))
                                as? [String: Any])
        #expect(week["taskLists"] == nil && (week["periods"] as? [Any])?.count == 1)
        #expect(sandbox.run(["list", "--json", "--period", "future"]).out.contains("\"periods\": []"))
    }

    @Test(.enabled(if: ready), arguments: CalDAVCommandTests.servers)
    func aToDoMadeInDatebookGoesUpWithoutAParentWithItsDueAndPriority(_ kind: String) throws {
        let (sandbox, server, environment) = try CalDAVCommandTests().added(kind)
        try server.delete("personal", "milk.ics")
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

    @Test(.enabled(if: ready), arguments: CalDAVCommandTests.servers) func aPartOfAToDoKeepsItsParentOnTheServer(_ kind: String) throws {
        let (sandbox, server, environment) = try synced(kind)
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

    /// `task add … --under TASK` and `task edit EVENT TASK --parent TASK|--no-parent` make a task a
    /// part of another task of the same event or list; a loop, the task itself and a task of
    /// another event are refused, naming what is wrong.
    @Test func aTaskBecomesAPartOfAnotherTaskOfItsOwnListOnly() throws {
        let sandbox = try Self.imported()
        #expect(sandbox.run(["add", "Dentist", "--at", "2026-12-02 10:00", "--task", "Bring card"]).code == 0)
        let add = sandbox.run(["task", "add", "Tasks", "Sign form", "--under", "Renew passport"])
        #expect(add.code == 0 && add.out.hasPrefix("added task 4 under 1 'Renew passport' of "), "\(add.out)\(add.err)")
        let edit = sandbox.run(["task", "edit", "Tasks", "Buy milk", "--parent", "2"])
        #expect(edit.code == 0 && edit.out.hasPrefix("task 3 'Buy milk' under 2 'Get photos' of "), "\(edit.out)\(edit.err)")
        #expect(sandbox.run(["list"]).out.contains(
            "    [ ] Renew passport  due Fri 2026-12-04 all day, priority 1\n      [ ] Get photos\n        [ ] Buy milk\n      [ ] Sign form\n"))
        let refused: [([String], String)] = [
            (["task", "edit", "Tasks", "Renew passport", "--parent", "Buy milk"],
             "--parent Buy milk: 'Renew passport' cannot be a part of 'Buy milk', which is a part of it already; move that one first"),
            (["task", "edit", "Tasks", "1", "--parent", "Renew"], "--parent Renew: 'Renew passport' cannot be a part of itself"),
            (["task", "add", "Dentist", "Pay", "--under", "Renew passport"],
             "--under names a task of the same event or list ('datebook show' lists them): no task of 'Dentist' match 'Renew passport'"),
            (["task", "edit", "Tasks", "Buy milk"], "task edit expects one of --parent TASK or --no-parent"),
            (["task", "done", "Tasks", "1", "--parent", "2"], "--parent goes with 'task edit EVENT TASK'"),
            (["task", "edit", "Tasks", "9", "--no-parent"], "task number 9 is out of range for 'Tasks': expected 1…4"),
        ]
        for (arguments, message) in refused {
            let run = sandbox.run(arguments)
            #expect(run.code == 64 && run.err.contains(message), "\(arguments): \(run.err)")
        }
        // A chain as deep as an outline shows (8 levels) is taken; a ninth level is refused, also when
        // it comes from moving a task with parts of its own.
        for level in 1...5 {
            let deeper = sandbox.run(["task", "add", "Tasks", "Level \(level + 3)", "--under", level == 1 ? "Buy milk" : "Level \(level + 2)"])
            #expect(deeper.code == 0, "\(deeper.err)")
        }
        let tooDeep = sandbox.run(["task", "add", "Tasks", "Level 9", "--under", "Level 8"])
        #expect(tooDeep.code == 64 && tooDeep.err.contains("--under Level 8: 'Level 9' and its parts would go 9 levels deep under 'Level 8'; "
                                                           + "an outline has at most 8"), "\(tooDeep.err)")
        let moved = sandbox.run(["task", "edit", "Tasks", "Get photos", "--parent", "Sign form"])
        #expect(moved.code == 64 && moved.err.contains("--parent Sign form: 'Get photos' and its parts would go 9 levels deep under 'Sign form'"),
                "\(moved.err)")
        #expect(sandbox.run(["task", "edit", "Tasks", "Level 5", "--parent", "Sign form"]).code == 0)
        for _ in 4...8 { #expect(sandbox.run(["task", "rm", "Tasks", "5"]).code == 0) }
        let top = sandbox.run(["task", "edit", "Tasks", "Buy milk", "--no-parent"])
        #expect(top.code == 0 && top.out.hasPrefix("task 3 'Buy milk' is a part of no other task of "), "\(top.out)\(top.err)")
        #expect(sandbox.run(["list"]).out.contains("      [ ] Get photos\n      [ ] Sign form\n    [ ] Buy milk\n"))
    }

    /// The parent link goes up as RELATED-TO (the parent's UID, or none), as the `caldav` library reads it.
    @Test(.enabled(if: ready), arguments: CalDAVCommandTests.servers) func aPartMadeHereGoesUpAsRelatedTo(_ kind: String) throws {
        let (sandbox, server, environment) = try synced(kind)
        #expect(sandbox.run(["task", "add", "Tasks", "Sign form", "--under", "Renew passport"]).code == 0)
        #expect(sandbox.run(["task", "edit", "Tasks", "Buy milk", "--parent", "Renew passport"]).code == 0)
        #expect(sandbox.run(["task", "edit", "Tasks", "Get photos", "--no-parent"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 3 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        #expect(try Self.peer(server) == ["Buy milk\t-\t-\tpassport-1\tNEEDS-ACTION", "Get photos\t-\t-\t-\tNEEDS-ACTION",
                                          "Renew passport\t2026-12-04\t1\t-\tNEEDS-ACTION", "Sign form\t-\t-\tpassport-1\tNEEDS-ACTION"])
        // Read back: the same outline, nothing more to send.
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasSuffix("unchanged\n"))
        #expect(sandbox.run(["list"]).out.contains("    [ ] Renew passport  due Fri 2026-12-04 all day, priority 1\n"))
        let list = sandbox.run(["list"]).out
        #expect(list.contains("      [ ] Buy milk\n") && list.contains("      [ ] Sign form\n") && list.contains("    [ ] Get photos\n"), "\(list)")
    }

    /// A part made here meets a change of the same to-do on the other device (its ETag moved: the
    /// `PUT` answers 412): the merge keeps both, the parent link from here and the priority from there,
    /// and the next sync has nothing to send.
    @Test(.enabled(if: ready), arguments: CalDAVCommandTests.servers) func aPartMadeHereSurvivesAChangeOnTheServer(_ kind: String) throws {
        let (sandbox, server, environment) = try synced(kind)
        #expect(sandbox.run(["task", "edit", "Tasks", "Buy milk", "--parent", "Renew passport"]).code == 0)
        try server.put("personal", "milk.ics", Self.todo("milk-1", "Buy milk", "PRIORITY:3\r\nLAST-MODIFIED:20261130T080500Z\r\n"))
        // The push comes first: its PUT carries the ETag of the last sync, answered 412, merged, sent again.
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        let peer = try Self.peer(server)
        #expect(peer.contains("Buy milk\t-\t3\tpassport-1\tNEEDS-ACTION"), "\(peer)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasSuffix("unchanged\n"))
        let list = sandbox.run(["list"]).out
        #expect(list.contains("    [ ] Renew passport  due Fri 2026-12-04 all day, priority 1\n"), "\(list)")
        #expect(list.contains("      [ ] Buy milk, priority 3\n"), "\(list)")
    }

    /// A list's symbol and colour go out on each of its to-dos (`X-DATEBOOK-SYMBOL`, `COLOR`: the list
    /// has no component of its own) and come back with an import into an empty store.
    @Test func aListsSymbolAndColourRoundTripThroughTheExport() throws {
        let sandbox = Sandbox()
        let file = sandbox.home + "/todos.ics"
        try Self.calendar(Self.vtodo("passport-1", "Renew passport", "PRIORITY:1\r\n") + Self.vtodo("milk-1", "Buy milk"))
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", file]).code == 0)
        let edit = sandbox.run(["edit", "Tasks", "--symbol", "heart.fill", "--event-color", "mint"])
        #expect(edit.code == 0, "\(edit.err)")
        let ics = sandbox.run(["export", "--format", "ics"]).out
        #expect(ics.components(separatedBy: "COLOR:darkturquoise\r\nX-DATEBOOK-SYMBOL:heart.fill\r\nEND:VTODO\r\n").count == 3, "\(ics)")
        #expect(!ics.contains("BEGIN:VEVENT"), "a list is on no date: no VEVENT")
        try RoundTripTests.checkRoundTrips(of: sandbox, name: "a list's look")
    }

    /// The same through a server: a list's look set here goes up on its to-dos (patched on those the
    /// server has, written on a new one), and another datebook syncing the calendar shows the list so.
    @Test(.enabled(if: ready), arguments: CalDAVCommandTests.servers) func aListsLookGoesUpOnItsToDos(_ kind: String) throws {
        let (sandbox, server, environment) = try synced(kind)
        #expect(sandbox.run(["edit", "Tasks", "--symbol", "heart.fill", "--event-color", "mint"]).code == 0)
        #expect(sandbox.run(["task", "add", "--list", "Personal", "Sign form"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 4 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        let passport = try #require(try server.get("personal", "passport.ics"))
        #expect(passport.contains("\r\nCOLOR:darkturquoise\r\n") && passport.contains("\r\nX-DATEBOOK-SYMBOL:heart.fill\r\n"), "\(passport)")
        #expect(passport.contains("\r\nRELATED-TO") == false && passport.contains("\r\nPRIORITY:1\r\n"), "the rest of the server's text stays")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasSuffix("unchanged\n"))
        let other = Sandbox()
        #expect(other.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env", "DAV_PASSWORD",
                           "--calendar", "Personal"], environment: environment).code == 0)
        #expect(other.run(["caldav", "sync"], environment: environment).code == 0)
        let list = try #require(try other.exportedEvents().first { $0["taskList"] as? Bool == true })
        #expect(list["symbol"] as? String == "heart.fill" && list["color"] as? String == "mint", "\(list)")
        #expect((list["tasks"] as? [Any])?.count == 4)
    }
}
