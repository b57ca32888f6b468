@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// Calendars come and go on the server (issue 31): a deleted one no longer blocks its account, a
/// new one is found by `caldav add` again or `caldav edit`, the config's `calendars` is followed.
struct CalDAVCalendarsTests {
    static let meeting = CalDAVCommandTests.dentist.replacingOccurrences(of: "dentist-1", with: "meeting-1")
        .replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Meeting")

    /// A server of `kind` with calendars 'Personal' (the dentist) and 'Work' (a meeting), both synced by account 'home'.
    func twoCalendars(_ kind: String = "radicale") throws -> (Sandbox, any CalDAVTestServer, [String: String]) {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.put("personal", "dentist.ics", CalDAVCommandTests.dentist)
        try server.makeCalendar(named: "job", displayName: "Work")
        try server.put("job", "meeting.ics", Self.meeting)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env", "DAV_PASSWORD"],
                              environment: environment)
        #expect(add.code == 0 && add.out.contains("with 2 calendars:"), "\(add.out)\(add.err)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        return (sandbox, server, environment)
    }

    @Test(arguments: CalDAVCommandTests.servers) func aCalendarDeletedOnTheServerIsReportedItsEventsStayAndTheOthersKeepSyncing(_ kind: String) throws {
        let (sandbox, server, environment) = try twoCalendars(kind)
        #expect(sandbox.run(["edit", "Meeting", "--title", "Meeting (moved)"]).code == 0)
        #expect(try server.send("DELETE", server.calendarPath("job"), body: "", headers: []).isSuccess)
        try server.put("personal", "dentist.ics", CalDAVCommandTests.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("caldav 'home' Personal: 1 received, 0 removed, 1 event\n"), "\(run.out)")
        #expect(run.err.hasPrefix("datebook: warning: caldav 'home' Work: the calendar is gone from the server (")
                && run.err.contains("answered HTTP 404); its 1 event stays in datebook, no longer synced, with the changes made here that were not sent;"),
                "\(run.err)")
        let list = sandbox.run(["list"]).out
        #expect(list.contains("Meeting (moved)") && list.contains("Dentist (moved)"), "\(list)")
        #expect(sandbox.run(["caldav", "list"]).out.contains(server.calendarPath("job") + "  (not synced)\n"), "still listed, not synced")
        #expect(sandbox.run(["caldav", "status"]).out.contains("Work  the calendar is gone from the server"))
        // Once reported, the account syncs as before: one request, no warning, no failure.
        let count = server.requests().count
        let again = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(again.code == 0 && again.out == "caldav 'home' Personal: unchanged\n" && again.err.isEmpty, "\(again.err)")
        #expect(server.requests().count == count + 1)

        // The calendar made again on the server and chosen again: datebook's copy goes up, the server's new event comes down.
        try server.makeCalendar(named: "job", displayName: "Work")
        try server.put("job", "review.ics", Self.meeting.replacingOccurrences(of: "meeting-1", with: "review-1")
            .replacingOccurrences(of: "SUMMARY:Meeting", with: "SUMMARY:Review"))
        let edit = sandbox.run(["caldav", "edit", "home"], environment: environment)
        #expect(edit.code == 0 && edit.out.contains("2 calendars on the server:"), "\(edit.err)")
        let back = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(back.code == 0 && back.out.contains("caldav 'home' Work: 1 sent, 0 removed on the server\n"), "\(back.out)\(back.err)")
        #expect(try server.get("job", "meeting-1.ics")?.contains("SUMMARY:Meeting (moved)") == true)
        #expect(sandbox.run(["list"]).out.contains("Review"))
    }

    @Test(arguments: CalDAVCommandTests.servers) func aCalendarMadeOnTheServerLaterIsSyncedAfterCaldavAddAgainOrEdit(_ kind: String) throws {
        let (sandbox, server, environment) = try twoCalendars(kind)
        try server.makeCalendar(named: "chores", displayName: "Chores")
        try server.put("chores", "bins.ics", Self.meeting.replacingOccurrences(of: "meeting-1", with: "bins-1")
            .replacingOccurrences(of: "SUMMARY:Meeting", with: "SUMMARY:Bins"))
        // Added again with the same URL and login: the account stays, its calendars are found again.
        let again = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env", "DAV_PASSWORD",
                                 "--calendar", "Chores", "--calendar", "Personal"], environment: environment)
        #expect(again.code == 0 && again.out.contains("3 calendars on the server:"), "\(again.err)")
        #expect(again.out.contains(server.calendarPath("job") + "  (not synced)\n"), "\(again.out)")
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out.contains("caldav 'home' Chores: 1 received, 0 removed, 1 event\n") && !run.out.contains("Work"), "\(run.out)")
        #expect(sandbox.run(["list"]).out.contains("Bins"))
        // Another URL under the same name is refused; an unknown calendar name too.
        #expect(sandbox.run(["caldav", "add", "home", server.baseURL + "/other/", "--username", server.username, "--password-env", "DAV_PASSWORD"],
                            environment: environment).code == 64)
        let unknown = sandbox.run(["caldav", "edit", "home", "--calendar", "Chors"], environment: environment)
        #expect(unknown.code == 65 && unknown.err.contains("no calendar named 'Chors'"), "\(unknown.err)")
        #expect(sandbox.run(["caldav", "edit", "home"], environment: environment).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.contains("caldav 'home' Work: unchanged\n"))
    }

    @Test(arguments: CalDAVCommandTests.servers) func aCalendarNamedInTheConfigOfARegisteredAccountIsSynced(_ kind: String) throws {
        let (sandbox, server, environment) = try twoCalendars(kind)
        func config(_ calendars: String) throws {
            try """
                { caldav: [ { name: "office", url: "\(server.baseURL)/", username: "ann", password: { env: "DAV_PASSWORD" },
                              calendars: [\(calendars)], every: "30m" } ] }
                """.write(toFile: sandbox.home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        try config("\"Personal\"")
        let first = sandbox.run(["caldav", "sync", "office"], environment: environment)
        #expect(first.code == 0 && !first.out.contains("office' Work"), "\(first.out)\(first.err)")
        try config("\"Personal\", \"Work\"")
        let second = sandbox.run(["caldav", "sync", "office"], environment: environment)
        #expect(second.code == 0 && second.out.contains("caldav 'office' Work: 1 received"), "\(second.out)\(second.err)")
        // The config's every is the account's.
        #expect(sandbox.run(["caldav", "list"]).out.contains("office  \(server.baseURL)/  ann  every 30m"))
    }

    /// Each synced calendar with a to-do of its own has a to-do list, "Tasks", on no date: the export writes
    /// the events with a UID each and the lists' to-dos alone, and reads back as the same events and lists.
    @Test(arguments: CalDAVCommandTests.servers) func anExportOfTwoCalendarsWithToDosHasOneUIDPerEvent(_ kind: String) throws {
        let (sandbox, server, environment) = try twoCalendars(kind)
        try server.put("personal", "milk.ics", CalDAVCommandTests.milk)
        try server.put("job", "report.ics", CalDAVCommandTests.milk.replacingOccurrences(of: "milk-1", with: "report-1")
            .replacingOccurrences(of: "Buy milk", with: "Write report"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let path = sandbox.home + "/export.ics"
        #expect(sandbox.run(["export", "--format", "ics", "-o", path]).code == 0)
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n")
        let uids = lines.indices.filter { lines[$0] == "BEGIN:VEVENT" }.compactMap { start in
            lines[start...].first { $0.hasPrefix("UID:") }
        }
        #expect(uids.count == 2 && Set(uids).count == 2, "\(uids)")
        let todos = lines.indices.filter { lines[$0] == "BEGIN:VTODO" }.compactMap { start in lines[start...].first { $0.hasPrefix("UID:") } }
        #expect(todos.count == 2 && Set(todos + uids).count == 4, "\(todos)")
        // Read back, the same two events and two lists (each to-do's UID names its list).
        let again = Sandbox()
        #expect(again.run(["import", path]).code == 0)
        let list = again.run(["list", "--period", "all"]).out
        #expect(list.components(separatedBy: "Tasks").count - 1 == 2 && list.contains("To-do lists\n") && !list.contains("Past\n"), "\(list)")
    }

    /// A to-do whose RELATED-TO names no event is warned about when it comes, not at every later rebuild.
    @Test(arguments: CalDAVCommandTests.servers) func aWarningAboutAResourceIsGivenOnceUntilItChanges(_ kind: String) throws {
        let (sandbox, server, environment) = try CalDAVCommandTests().added(kind)
        let orphan = { (title: String) in
            CalDAVCommandTests.milk.replacingOccurrences(of: "milk-1", with: "orphan-1").replacingOccurrences(of: "Buy milk", with: title)
                .replacingOccurrences(of: "END:VTODO", with: "RELATED-TO:nothing-1\r\nEND:VTODO")
        }
        try server.put("personal", "orphan.ics", orphan("Pack"))
        let first = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(first.code == 0 && first.err.contains("UID orphan-1: ") && first.err.contains("nothing-1"), "\(first.err)")
        try server.put("personal", "dentist.ics", CalDAVCommandTests.dentist.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved)"))
        let second = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(second.out.contains("1 received") && second.err.isEmpty, "\(second.err)")
        try server.put("personal", "orphan.ics", orphan("Pack bags"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).err.contains("UID orphan-1: "))
    }

    /// An account that syncs all its calendars has a calendar made on the server found by the scheduler's
    /// first sync of a day (not at each sync: one request when nothing changed the rest of the day).
    @Test(arguments: CalDAVCommandTests.servers) func theSchedulerFindsACalendarMadeOnTheServerOnceADay(_ kind: String) throws {
        let (sandbox, server, environment) = try twoCalendars(kind)
        try server.makeCalendar(named: "chores", displayName: "Chores")
        try server.put("chores", "bins.ics", Self.meeting.replacingOccurrences(of: "meeting-1", with: "bins-1")
            .replacingOccurrences(of: "SUMMARY:Meeting", with: "SUMMARY:Bins"))
        var later = sandbox
        later.now = "2026-11-30 09:20"
        #expect(later.run(["tick"], environment: environment).code == 0)
        #expect(!sandbox.run(["list"]).out.contains("Bins"), "not looked for again the same day")
        later.now = "2026-12-01 08:00"
        let tick = later.run(["tick"], environment: environment)
        #expect(tick.code == 0 && tick.err.contains("caldav 'home': found calendar 'Chores' on the server; syncing it"), "\(tick.err)")
        #expect(later.run(["list"]).out.contains("Bins"))
    }

    /// A config account whose first registration fails (the server answers 503) is held without
    /// calendars and backs off: the next pass within the wait asks the server nothing.
    @Test func aConfigAccountWhoseRegistrationFailsBacksOff() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { withExtendedLifetime(sink) {} }
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.home + "/config/datebook", withIntermediateDirectories: true)
        try """
            { caldav: [ { name: "home", url: "\(sink.baseURL)/status/503/", username: "ann", password: { env: "DAV_PASSWORD" } } ] }
            """.write(toFile: sandbox.home + "/config/datebook/config.json5", atomically: true, encoding: .utf8)
        let environment = ["DAV_PASSWORD": "secret"]
        let first = sandbox.run(["tick"], environment: environment)
        #expect(first.err.contains("caldav 'home' (config): "), "\(first.err)")
        let count = try sink.records().count
        #expect(count > 0)
        var later = sandbox
        later.now = "2026-11-30 09:05"
        _ = later.run(["tick"], environment: environment)
        #expect(try sink.records().count == count, "no request within the backoff")
        #expect(later.run(["caldav", "status"]).out.contains("backing off after 1 failed sync: next attempt"))
        later.now = "2026-11-30 09:30"
        _ = later.run(["tick"], environment: environment)
        #expect(try sink.records().count > count, "tried again after its wait")
    }
}
