@testable import DatebookCLI
import DatebookTestSupport
import Foundation
import Testing

/// A property changed on both sides goes to the later change (issue 31): datebook's at the time it
/// was made (the edit's `--now`, recorded with it), the server's at its `LAST-MODIFIED`, set by
/// another device (the Python `caldav` library, `Fixtures/caldav-change.py`). The sync runs minutes
/// after both, so the old rule (datebook's change counted as made at the sync) would keep datebook's
/// every time; `caldav status` lists the loser.
struct CalDAVConflictTimeTests {
    static let peerReady = TestPython.imports(["caldav"])

    /// Another device sets `properties` (`NAME:VALUE`) on the item `uid` of calendar Personal.
    static func change(_ server: any CalDAVTestServer, uid: String, _ properties: [String]) throws {
        _ = try CalDAVOccurrenceTests.runPeer("caldav-change.py", server, ["Personal", uid] + properties)
    }

    /// A sandbox synced with `kind`'s Personal calendar (the dentist and the milk to-do), its clock
    /// at 08:00:00Z.
    static func synced(_ kind: String) throws -> (Sandbox, any CalDAVTestServer, [String: String]) {
        var (sandbox, server, environment) = try CalDAVCommandTests().added(kind)
        sandbox.now = "2026-11-30T07:50:00Z"
        let first = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(first.code == 0, "\(first.err)")
        sandbox.now = "2026-11-30T08:00:00Z"
        return (sandbox, server, environment)
    }

    /// The conflict line of a sync and of `caldav status`: the property, who kept it, what lost, both times.
    static func lost(_ uid: String, _ property: String, kept: String, lost line: String, here: String, server: String) -> String {
        let loser = kept == "server" ? "datebook's" : "the server's"
        return "UID \(uid): \(property) changed on both sides; \(kept == "server" ? "the server's" : "datebook's") is kept, \(loser) '\(line)' lost "
            + "(changed here 2026-11-30 \(here)Z, on the server 2026-11-30 \(server)Z)"
    }

    /// Datebook's change and the other device's, 2 s apart in either order (`serverLater`), then a
    /// sync at 08:10; returns the run and the conflict line it should print.
    static func bothChanged(_ kind: String, serverLater: Bool, here: [String], uid: String, there: [String], property: String,
                            ours: String, theirs: String) throws -> (CLIRun, String, Sandbox, any CalDAVTestServer, [String: String]) {
        var (sandbox, server, environment) = try synced(kind)
        let (early, late) = ("08:00:00", "08:00:02")
        let stamp = "20261130T" + (serverLater ? late : early).filter(\.isNumber) + "Z"
        if !serverLater { try change(server, uid: uid, there + ["LAST-MODIFIED:" + stamp]) }
        sandbox.now = "2026-11-30T\(serverLater ? early : late)Z"
        let edit = sandbox.run(here)
        #expect(edit.code == 0, "\(edit.err)")
        if serverLater { try change(server, uid: uid, there + ["LAST-MODIFIED:" + stamp]) }
        sandbox.now = "2026-11-30T08:10:00Z"
        let run = sandbox.run(["caldav", "sync"], environment: environment)
        #expect(run.code == 0, "\(run.err)")
        let line = lost(uid, property, kept: serverLater ? "server" : "datebook", lost: serverLater ? ours : theirs,
                        here: serverLater ? early : late, server: serverLater ? late : early)
        #expect(run.err.contains("datebook: warning: caldav 'home' Personal: conflict: " + line + "\n"), "\(run.err)")
        #expect(sandbox.run(["caldav", "status"]).out.contains("  Mon 2026-11-30 09:10  Personal  " + line + "\n"))
        return (run, line, sandbox, server, environment)
    }

    @Test(.enabled(if: peerReady), arguments: CalDAVCommandTests.servers, [true, false])
    func theLaterOfTwoTitleChangesWins(_ kind: String, serverLater: Bool) throws {
        let (run, _, sandbox, server, environment) = try Self.bothChanged(
            kind, serverLater: serverLater, here: ["edit", "Dentist", "--title", "Dentist (datebook)"], uid: "dentist-1",
            there: ["SUMMARY:Dentist (phone)"], property: "SUMMARY", ours: "SUMMARY:Dentist (datebook)", theirs: "SUMMARY:Dentist (phone)")
        #expect(run.err.split(separator: "\n").count == 1, "\(run.err)")
        let winner = serverLater ? "Dentist (phone)" : "Dentist (datebook)", loser = serverLater ? "Dentist (datebook)" : "Dentist (phone)"
        #expect(try server.get("personal", "dentist.ics")?.contains("\r\nSUMMARY:\(winner)\r\n") == true)
        let list = sandbox.run(["list"]).out
        #expect(list.contains(winner) && !list.contains(loser), "\(list)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }

    /// "Doing" set here (`task start`) against the to-do completed on the other device.
    @Test(.enabled(if: peerReady), arguments: CalDAVCommandTests.servers, [true, false])
    func theLaterOfDoingHereAndCompletedThereWins(_ kind: String, serverLater: Bool) throws {
        let stamp = serverLater ? "20261130T080002Z" : "20261130T080000Z"
        let (_, _, sandbox, server, environment) = try Self.bothChanged(
            kind, serverLater: serverLater, here: ["task", "start", "Tasks", "1"], uid: "milk-1",
            there: ["STATUS:COMPLETED", "COMPLETED:" + stamp, "PERCENT-COMPLETE:100"], property: "STATUS",
            ours: "STATUS:IN-PROCESS", theirs: "STATUS:COMPLETED")
        let text = try #require(try server.get("personal", "milk.ics"))
        #expect(text.contains(serverLater ? "\r\nSTATUS:COMPLETED\r\n" : "\r\nSTATUS:IN-PROCESS\r\n"), "\(text)")
        #expect(text.contains("\r\nCOMPLETED:") == serverLater, "\(text)")
        let shown = sandbox.run(["show", "Tasks"]).out
        #expect(shown.contains(serverLater ? "1. [x] Buy milk" : "1. [~] Buy milk"), "\(shown)")
        #expect(sandbox.run(["caldav", "sync"], environment: environment).out == "caldav 'home' Personal: unchanged\n")
    }
}
