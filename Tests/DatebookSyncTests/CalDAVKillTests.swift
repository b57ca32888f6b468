import DatebookCore
import DatebookDelivery
import DatebookInterchange
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook caldav sync` killed (SIGKILL) at random moments while changes go both ways; one clean
/// sync afterwards leaves both sides equal, nothing lost, nothing duplicated.
struct CalDAVKillTests {
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path
    static let count = 2_200

    func datebook(_ store: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--store", store, "--tz", "UTC", "--now", "2026-11-30 09:00"] + arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Reaper.watch(process)
        defer { Reaper.stop(process) }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// A `caldav sync` started in the background (output dropped), watched by the reaper.
    func startSync(_ store: String, environment: [String: String]) throws -> Process {
        try CalDAVDaemonTests().datebook(["--now", "2026-11-30 09:00", "caldav", "sync"], store, environment)
    }

    static func event(_ n: Int, _ title: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:event-\(n)\r\nDTSTAMP:20261101T100000Z\r\n"
            + "DTSTART:202612\(String(format: "%02d", 1 + n % 28))T090000Z\r\nSUMMARY:\(title)\r\nX-KEEP:\(n)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    /// Changes each way: `edits` events changed, `removals` removed and `additions` made, on each side.
    static let edits = 850, removals = 100, additions = 50
    static let kills = 50

    @Test func killedSyncsLeaveNothingLostOrDuplicated() throws {
        let started = Date()
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        let folder = server.directory.appendingPathComponent("collections/collection-root/ann/personal")
        for n in 0..<Self.count {
            try Data(Self.event(n, "Event \(n)").utf8).write(to: folder.appendingPathComponent("event-\(n).ics"))
        }
        try server.warm("personal")
        let scratch = ScratchFolder("kill")
        let store = scratch.file("store.sqlite3")
        let environment = ["DAV_PASSWORD": server.password, "SWIFT_BACKTRACE": "enable=no", "HOME": scratch.path]
        let added = try datebook(store, ["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                                         "--password-env", "DAV_PASSWORD"], environment: environment)
        #expect(added.0 == 0, "\(added.2)")
        let first = Date()
        let synced = try datebook(store, ["caldav", "sync"], environment: environment)
        #expect(synced.0 == 0, "\(synced.2)")
        let firstSync = Date().timeIntervalSince(first)

        // Local: the first `edits` events changed, the next `removals` removed, `additions` new ones;
        // on the server the same for the next ones. (The last 200 stay as they were.)
        let (local, server0) = (0, Self.edits + Self.removals)
        do {
            let db = try Store(path: store)
            let calendar = try #require(try db.calDAVCalendars(account: "home").first)
            try db.save(try (local..<local + Self.edits).map { n in
                var event = try #require(try db.events(titled: "Event \(n)").first)
                event.title = "Local \(n)"
                return event
            })
            for n in local + Self.edits..<server0 { #expect(try db.delete(id: try #require(try db.events(titled: "Event \(n)").first).id)) }
            for n in 0..<Self.additions {
                let uid = "new-\(n)@datebook"
                let event = Event(id: PlannerICS.eventID(uid: uid, calendar: calendar.sourceCalendar), title: "New here \(n)",
                                  start: .instant(Date(timeIntervalSince1970: 1_796_000_000 + Double(n) * 3600)), timeZone: "UTC",
                                  symbol: .star, color: .green)
                try db.save(event, into: calendar, uid: uid)
            }
        }
        // Written into Radicale's folder (a thousand PUTs would take most of a minute here); it
        // notices changed files by their content.
        let changing = Date()
        for n in server0..<server0 + Self.edits {
            try Data(Self.event(n, "Server \(n)").utf8).write(to: folder.appendingPathComponent("event-\(n).ics"))
        }
        for n in server0 + Self.edits..<server0 + Self.edits + Self.removals {
            try FileManager.default.removeItem(at: folder.appendingPathComponent("event-\(n).ics"))
        }
        for n in 0..<Self.additions {
            try Data(Self.event(10_000 + n, "New there \(n)").replacingOccurrences(of: "UID:event-\(10_000 + n)", with: "UID:phone-\(n)")
                .utf8).write(to: folder.appendingPathComponent("phone-\(n).ics"))
        }
        try server.warm("personal")
        let changed = Date().timeIntervalSince(changing)

        // Kills within 1.5 times the first (pull-only) sync, which the thousand PUTs of the push
        // outlast: each killed sync sends some more. The last ones wait up to three times as long,
        // so that once the push is through they land in the pull and its transaction as well.
        let short = UInt32(min(2, max(0.6, 1.5 * firstSync)) * 1_000_000)
        var finished = 0
        let killing = Date()
        for round in 0..<Self.kills {
            let longest = round < Self.kills * 4 / 5 ? short : 3 * short
            let process = try startSync(store, environment: environment)
            usleep(UInt32.random(in: 5_000...longest))
            Reaper.stop(process)
            if process.terminationReason == .exit { finished += 1 }
        }
        #expect(finished < Self.kills * 4 / 5, "only \(Self.kills - finished) of \(Self.kills) syncs were killed before they finished")
        let killed = Date().timeIntervalSince(killing)
        let cleaning = Date()
        let clean = try datebook(store, ["caldav", "sync"], environment: environment)
        #expect(clean.0 == 0, "\(clean.2)")
        let cleaned = Date().timeIntervalSince(cleaning)
        #expect(try datebook(store, ["caldav", "sync"], environment: environment).1 == "caldav 'home' Personal: unchanged\n")
        func seconds(_ time: TimeInterval) -> String { String(format: "%.1f s", time) }
        print("caldav kill test: first sync \(seconds(firstSync)), server changes \(seconds(changed)), \(Self.kills - finished) of "
              + "\(Self.kills) syncs killed in \(seconds(killed)), clean sync \(seconds(cleaned)) (\(clean.1.prefix(120))), "
              + "whole test \(seconds(Date().timeIntervalSince(started)))")

        let expected = Self.count - 2 * Self.removals + 2 * Self.additions
        let db = try Store(path: store)
        #expect(try db.eventCount() == expected, "killed \(Self.kills - finished) of \(Self.kills)")
        var titles: [String: Int] = [:]
        try db.forEachEvent { titles[$0.title, default: 0] += 1 }
        #expect(titles.values.allSatisfy { $0 == 1 }, "a duplicate")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ics") }
        #expect(files.count == expected)
        for n in [local, local + Self.edits - 1] {
            #expect(titles["Local \(n)"] == 1)
            let text = try #require(try server.get("personal", "event-\(n).ics"))
            #expect(text.contains("SUMMARY:Local \(n)") && text.contains("X-KEEP:\(n)"))
        }
        for n in [server0, server0 + Self.edits - 1] { #expect(titles["Server \(n)"] == 1) }
        for n in [local + Self.edits, server0 + Self.edits] { #expect(try server.get("personal", "event-\(n).ics") == nil) }
        for n in [0, Self.additions - 1] {
            #expect(titles["New here \(n)"] == 1 && titles["New there \(n)"] == 1)
            #expect(try server.get("personal", "new-\(n)datebook.ics")?.contains("SUMMARY:New here \(n)") == true)
        }
    }

    /// Kills that land in the push itself: each round's `caldav sync` is killed as soon as the
    /// server has seen one more PUT from it (its edit or new resource sent, its ETag maybe not yet
    /// recorded). After one clean sync every change is on the server once: no event twice on
    /// either side, none lost, and the sync after it sends nothing. On both test servers.
    @Test(arguments: CalDAVPullTests.servers)
    func syncsKilledWhileTheyPutLoseAndDuplicateNothing(_ kind: String) throws {
        let server: any CalDAVTestServer = kind == "xandikos" ? try Xandikos() : try Radicale()
        try server.makeCalendar(named: "personal", displayName: "Personal")
        let count = 40, additions = 5
        for n in 0..<count { try server.put("personal", "event-\(n).ics", Self.event(n, "Event \(n)")) }
        let scratch = ScratchFolder("kill-push")
        let store = scratch.file("store.sqlite3")
        let environment = ["DAV_PASSWORD": server.password, "SWIFT_BACKTRACE": "enable=no", "HOME": scratch.path]
        let added = try datebook(store, ["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                                         "--password-env", "DAV_PASSWORD", "--calendar", "Personal"], environment: environment)
        #expect(added.0 == 0, "\(added.2)")
        #expect(try datebook(store, ["caldav", "sync"], environment: environment).0 == 0)
        do {
            let db = try Store(path: store)
            let calendar = try #require(try db.calDAVCalendars(account: "home").first { $0.displayName == "Personal" })
            try db.save(try (0..<count).map { n in
                var event = try #require(try db.events(titled: "Event \(n)").first)
                event.title = "Local \(n)"
                return event
            })
            for n in 0..<additions {
                let uid = "new-\(n)@datebook"
                try db.save(Event(id: PlannerICS.eventID(uid: uid, calendar: calendar.sourceCalendar), title: "New here \(n)",
                                  start: .instant(Date(timeIntervalSince1970: 1_796_000_000 + Double(n) * 3600)), timeZone: "UTC",
                                  symbol: .star, color: .green), into: calendar, uid: uid)
            }
        }
        func puts() -> Int { server.requests().filter { $0.hasPrefix("PUT ") }.count }
        var killed = 0
        for _ in 0..<(count + additions) {
            let before = puts()
            let process = try startSync(store, environment: environment)
            // Wait for the state: one more PUT seen by the server, or the sync done (nothing left to put).
            while process.isRunning, puts() == before { usleep(2_000) }
            let running = process.isRunning
            Reaper.stop(process)
            guard running else { break }
            killed += 1
        }
        #expect(killed > 0, "no sync was killed while it put")
        let clean = try datebook(store, ["caldav", "sync"], environment: environment)
        #expect(clean.0 == 0, "\(clean.2)")
        #expect(try datebook(store, ["caldav", "sync"], environment: environment).1 == "caldav 'home' Personal: unchanged\n")
        let db = try Store(path: store)
        var titles: [String: Int] = [:]
        try db.forEachEvent { titles[$0.title, default: 0] += 1 }
        #expect(titles.values.allSatisfy { $0 == 1 } && titles.count == count + additions, "\(titles.filter { $0.value != 1 })")
        for n in 0..<count { #expect(try server.get("personal", "event-\(n).ics")?.contains("SUMMARY:Local \(n)\r\n") == true, "event \(n)") }
        let listing = try server.send("PROPFIND", server.calendarPath("personal"), body: "",
                                      headers: [HTTPRequest.Header("Depth", "1")])
        let resources = String(decoding: listing.body, as: UTF8.self).components(separatedBy: ".ics</").count - 1
        #expect(resources == count + additions, "resources on the server after \(killed) kills")
    }
}
