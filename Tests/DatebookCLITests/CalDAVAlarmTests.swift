@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// Alarms other than "a lead before the start" (issue 31): `TRIGGER;RELATED=END` and
/// `TRIGGER;VALUE=DATE-TIME` come down as alerts before the end and at an instant, go up as the
/// same VALARMs, and an alarm of the server's removed in datebook is removed on the server alone.
/// Another device (the Python `caldav` library with `icalendar`) reads the server back. On both servers.
struct CalDAVAlarmTests {
    static let ready = CalDAVOccurrenceTests.peerReady && TestPython.imports(["xandikos"])
    static let servers = ["radicale", "xandikos"]

    /// The dentist with two alarms of the phone's: 10 minutes before the end, and at 08:00Z that day.
    static let dentist = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20261101T100000Z\r
        DTSTART:20261203T130000Z\r\nDTEND:20261203T140000Z\r\nSUMMARY:Dentist\r\nX-PHONE-THING:keep me\r
        ATTENDEE;CN=Bob:mailto:bob@example.org\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT10M\r
        DESCRIPTION:phone alarm\r\nX-PHONE-ALARM:1\r\nEND:VALARM\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r
        TRIGGER;VALUE=DATE-TIME:20261203T080000Z\r\nDESCRIPTION:watch alarm\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
        """

    /// A server of `kind` with calendar 'Personal' holding the dentist, and a sandbox that synced it.
    static func synced(_ kind: String) throws -> (any CalDAVTestServer, Sandbox, [String: String]) {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.store("personal", "dentist.ics", dentist)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env", "DAV_PASSWORD",
                               "--calendar", "Personal"], environment: environment)
        #expect(add.code == 0, "\(add.err)")
        let sync = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(sync.code == 0, "\(sync.err)")
        return (server, sandbox, environment)
    }

    /// "SUMMARY\tRELATED\tTRIGGER\tDESCRIPTION" per VALARM, as the peer reads the calendar.
    static func peer(_ server: any CalDAVTestServer) throws -> [String] {
        try CalDAVOccurrenceTests.runPeer("caldav-alarms.py", server, ["Personal"])
    }

    @Test(.enabled(if: ready), arguments: servers)
    func alarmsBeforeTheEndAndAtAnInstantComeDownAsAlerts(_ kind: String) throws {
        let (_, sandbox, _) = try Self.synced(kind)
        let show = sandbox.run(["show", "Dentist"]).out
        #expect(show.contains("  alerts   10m before end, at Thu 2026-12-03 09:00\n"), "\(show)")
        let export = sandbox.run(["export", "--format", "json"]).out
        #expect(export.contains(#""alerts": ["end-10m", "@2026-12-03T08:00:00Z"]"#), "\(export)")
    }

    @Test(.enabled(if: ready), arguments: servers)
    func alertsBeforeTheEndAndAtAnInstantGoUpAsTheMatchingVALARMs(_ kind: String) throws {
        let (server, sandbox, environment) = try Self.synced(kind)
        let add = sandbox.run(["add", "Review", "--at", "2026-12-10 10:00", "--end", "2026-12-10 11:00", "--alert", "15m before end",
                               "--alert", "at 2026-12-09 18:00", "--alert", "1h", "--calendar", "Personal"])
        #expect(add.code == 0, "\(add.err)")
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        let read = try Self.peer(server).filter { $0.hasPrefix("Review\t") }
        #expect(read == ["Review\tABSOLUTE\t2026-12-09T17:00:00+00:00\tReview", "Review\tEND\t-900\tReview", "Review\tSTART\t-3600\tReview"],
                "\(read)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(sandbox.run(["show", "Review"]).out.contains("  alerts   1h before, 15m before end, at Wed 2026-12-09 18:00\n"))
    }

    /// `edit --remove-alert` takes one alarm of the server's away: the next sync removes that VALARM
    /// block only (the other, the attendee and the phone's own properties stay); `--clear-alerts`
    /// removes the rest. One PUT each.
    @Test(.enabled(if: ready), arguments: servers)
    func anAlarmOfTheServersRemovedHereIsRemovedThereAlone(_ kind: String) throws {
        let (server, sandbox, environment) = try Self.synced(kind)
        let before = try #require(try server.fetch("personal", "dentist.ics"))
        let wrong = sandbox.run(["edit", "Dentist", "--remove-alert", "5m"])
        #expect(wrong.code == 64 && wrong.err.contains("--remove-alert '5m': the event has no such alert; its alerts are end-10m, @2026-12-03T08:00:00Z"),
                "\(wrong.err)")
        #expect(sandbox.run(["edit", "Dentist", "--remove-alert", "10m before end"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        let after = try #require(try server.fetch("personal", "dentist.ics"))
        #expect(!after.contains("phone alarm") && !after.contains("X-PHONE-ALARM") && !after.contains("RELATED=END"), "\(after)")
        let kept = Set(after.components(separatedBy: "\r\n"))
        let removed = ["TRIGGER;RELATED=END", "DESCRIPTION:phone", "X-PHONE-ALARM", "BEGIN:VALARM", "END:VALARM", "ACTION:DISPLAY",
                       "DTSTAMP", "LAST-MODIFIED"]
        for line in before.components(separatedBy: "\r\n") where !line.isEmpty && !removed.contains(where: line.hasPrefix) {
            #expect(kept.contains(line), "lost: \(line)")
        }
        #expect(try Self.peer(server) == ["Dentist\tABSOLUTE\t2026-12-03T08:00:00+00:00\twatch alarm"])
        #expect(sandbox.run(["show", "Dentist"]).out.contains("  alerts   at Thu 2026-12-03 09:00\n"))
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(sandbox.run(["edit", "Dentist", "--clear-alerts"]).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"))
        #expect(try Self.peer(server).isEmpty)
        let last = try #require(try server.fetch("personal", "dentist.ics"))
        #expect(last.contains("X-PHONE-THING:keep me") && last.contains("ATTENDEE;CN=Bob:mailto:bob@example.org"), "\(last)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(!sandbox.run(["show", "Dentist"]).out.contains("alerts"))
    }
}
