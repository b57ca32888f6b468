@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// One occurrence of a synced series changed or cancelled in datebook (issue 26) reaches the server
/// as the series' own RECURRENCE-ID override or EXDATE, in the event's own zone, and another device
/// (the Python `caldav` library, with `recurring-ical-events`) reads the same occurrences.
struct CalDAVOccurrenceTests {
    static let peerReady = TestPython.imports(["caldav", "icalendar", "recurring_ical_events"])

    static let berlin = """
        BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r
        DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\nBEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r\nTZNAME:CET\r\nDTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r
        END:VTIMEZONE\r\n
        """
    /// Ten daily standups at 09:00 Berlin time from Tuesday 1 December.
    static let standup = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\n" + berlin + """
        BEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20261101T100000Z\r\nDTSTART;TZID=Europe/Berlin:20261201T090000\r
        DTEND;TZID=Europe/Berlin:20261201T091500\r\nRRULE:FREQ=DAILY;COUNT=10\r\nSUMMARY:Standup\r\nX-PHONE-THING:keep me\r
        END:VEVENT\r\nEND:VCALENDAR\r\n
        """

    /// "START\tTZID\tSUMMARY" lines of the standups in December 2026, as the peer reads the calendar.
    static func peer(_ server: any CalDAVTestServer, calendar: String = "Personal") throws -> [String] {
        let output = try runPeer("caldav-occurrences.py", server, [calendar, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"])
        // The standups only (the calendar holds the dentist too).
        return output.filter { $0.contains("\tStandup") }
    }

    /// The lines the peer script `script` (a fixture) prints for the server (base URL, username,
    /// then `arguments`; the password on its stdin); a failure of the script fails the test.
    static func runPeer(_ script: String, _ server: any CalDAVTestServer, _ arguments: [String]) throws -> [String] {
        let python = try #require(TestPython.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [cliFixtures.appendingPathComponent(script).path, server.baseURL + "/", server.username] + arguments
        let input = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        input.fileHandleForWriting.write(Data((server.password + "\n").utf8))
        try input.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: error, as: UTF8.self))")
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func day(_ day: Int, _ time: String = "09:00", _ title: String = "Standup") -> String {
        String(format: "2026-12-%02d", day) + "T\(time):00+01:00\tEurope/Berlin\t\(title)"
    }

    @Test(.enabled(if: peerReady)) func anOccurrenceMovedOrCancelledHereIsAnOverrideOrAnExdateOnTheServer() throws {
        let (sandbox, server, environment) = try CalDAVCommandTests().added()
        try server.put("personal", "standup.ics", Self.standup)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        // A task of the series (a VTODO related to it); the override gets a copy, which stays in datebook.
        #expect(sandbox.run(["task", "add", "Standup", "Prepare notes"]).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent"))
        #expect(sandbox.run(["edit", "Standup", "--occurrence", "2026-12-03", "--at", "2026-12-03 11:00", "--title", "Standup (late)"]).code == 0)
        #expect(sandbox.run(["rm", "Standup", "--occurrence", "2026-12-05"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out == "caldav 'home' Personal: 1 sent, 0 removed on the server\ncaldav 'home' Personal: unchanged\n", "\(run.err)")
        #expect(run.err.isEmpty, "\(run.err)")
        let text = try #require(try server.get("personal", "standup.ics"))
        #expect(text.contains("\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261203T090000\r\n"), "\(text)")
        #expect(text.contains("\r\nDTSTART;TZID=Europe/Berlin:20261203T110000\r\n") && text.contains("\r\nX-PHONE-THING:keep me\r\n"))
        let exdates = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("EXDATE") }
        #expect(exdates.joined().contains("20261205") && !exdates.joined().contains("20261203"), "\(exdates)")
        let moved = (1...10).filter { $0 != 5 }.map { $0 == 3 ? Self.day(3, "11:00", "Standup (late)") : Self.day($0) }
        let read = try Self.peer(server)
        #expect(read == moved, "\(read)")
        // Read back, nothing is left to send, and datebook still shows the moved occurrence (not reverted).
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        let list = sandbox.run(["list"]).out
        #expect(list.contains("Standup (late)") && list.components(separatedBy: "Standup").count - 1 == 9, "\(list)")
        #expect(sandbox.run(["show", "Standup (late)"]).out.contains("[ ] Prepare notes"))

        // The override edited here again: only its own VEVENT changes.
        #expect(sandbox.run(["edit", "Standup (late)", "--title", "Standup (later)"]).code == 0)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"))
        var renamed = moved
        renamed[2] = Self.day(3, "11:00", "Standup (later)")
        let reread = try Self.peer(server)
        #expect(reread == renamed, "\(reread)")

        // Cancelled after all (the override removed): it goes from the resource, an EXDATE takes its place.
        let rm = sandbox.run(["rm", "Standup (later)"])
        #expect(rm.code == 0, "\(rm.err)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"))
        let cancelled = try #require(try server.get("personal", "standup.ics"))
        #expect(!cancelled.contains("RECURRENCE-ID"), "\(cancelled)")
        let last = try Self.peer(server)
        #expect(last == (1...10).filter { $0 != 3 && $0 != 5 }.map { Self.day($0) }, "\(last)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(sandbox.run(["list"]).out.components(separatedBy: "Standup").count - 1 == 8)
    }

    @Test(.enabled(if: peerReady)) func aSeriesMovedHereKeepsItsZoneOnTheServer() throws {
        let (sandbox, server, environment) = try CalDAVCommandTests().added()
        try server.put("personal", "standup.ics", Self.standup)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let edit = sandbox.run(["edit", "Standup", "--at", "2026-12-01 09:30", "--end", "2026-12-01 09:45"])
        #expect(edit.code == 0, "\(edit.err)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"))
        let text = try #require(try server.get("personal", "standup.ics"))
        #expect(text.contains("\r\nDTSTART;TZID=Europe/Berlin:20261201T093000\r\n") && text.contains("\r\nDTEND;TZID=Europe/Berlin:20261201T094500\r\n"),
                "\(text)")
        #expect(text.components(separatedBy: "BEGIN:VTIMEZONE").count == 2, "the VTIMEZONE it had, no second one")
        let read = try Self.peer(server)
        #expect(read == (1...10).map { Self.day($0, "09:30") }, "\(read)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }

    /// `edit --from` splits a synced series: the part from then on is a new series of the same calendar
    /// (a new resource), the old one's rule ends before it; the other device reads every occurrence once.
    @Test(.enabled(if: peerReady)) func aSeriesSplitHereIsTwoSeriesOnTheServer() throws {
        let (sandbox, server, environment) = try CalDAVCommandTests().added()
        try server.put("personal", "standup.ics", Self.standup)
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        let split = sandbox.run(["edit", "Standup", "--from", "2026-12-06", "--at", "2026-12-06 10:00", "--end", "2026-12-06 10:15"])
        #expect(split.code == 0, "\(split.err)")
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.out.hasPrefix("caldav 'home' Personal: 2 sent, 0 removed on the server\n") && run.err.isEmpty, "\(run.out)\(run.err)")
        let read = try Self.peer(server)
        #expect(read == (1...10).map { $0 < 6 ? Self.day($0) : Self.day($0, "10:00") }, "\(read)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
        #expect(sandbox.run(["list"]).out.components(separatedBy: "Standup").count - 1 == 10)
    }

    /// The same on the second server (Xandikos leaves calendar data out of its sync reports: the
    /// multiget path), beside Radicale.
    @Test(.enabled(if: peerReady && TestPython.imports(["xandikos"])), arguments: ["radicale", "xandikos"])
    func anOccurrenceMovedAndOneCancelledReadTheSameOnEachServer(_ kind: String) throws {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        try server.store("personal", "standup.ics", Self.standup)
        let sandbox = Sandbox()
        let environment = ["DAV_PASSWORD": server.password]
        let add = sandbox.run(["caldav", "add", "home", server.baseURL + "/", "--username", server.username, "--password-env", "DAV_PASSWORD",
                               "--calendar", "Personal"], environment: environment)
        #expect(add.code == 0, "\(add.err)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).code == 0)
        #expect(sandbox.run(["edit", "Standup", "--occurrence", "2026-12-03", "--at", "2026-12-03 11:00", "--title", "Standup (late)"]).code == 0)
        #expect(sandbox.run(["rm", "Standup", "--occurrence", "2026-12-05"]).code == 0)
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0 && run.out.hasPrefix("caldav 'home' Personal: 1 sent, 0 removed on the server\n"), "\(run.out)\(run.err)")
        let read = try Self.peer(server)
        #expect(read == (1...10).filter { $0 != 5 }.map { $0 == 3 ? Self.day(3, "11:00", "Standup (late)") : Self.day($0) }, "\(read)")
        let again = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(again.out == "caldav 'home' Personal: unchanged\n", "\(again.out)\(again.err)")
        #expect(sandbox.run(["list"]).out.components(separatedBy: "Standup").count - 1 == 9)
    }
}
