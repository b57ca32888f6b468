import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `datebook caldav sync` killed (SIGKILL) at random moments while changes go both ways; one clean
/// sync afterwards leaves both sides equal, nothing lost, nothing duplicated.
struct CalDAVKillTests {
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path
    static let count = 200

    func datebook(_ store: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--store", store, "--tz", "UTC", "--now", "2026-11-30 09:00"] + arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static func event(_ n: Int, _ title: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:event-\(n)\r\nDTSTAMP:20261101T100000Z\r\n"
            + "DTSTART:202612\(String(format: "%02d", 1 + n % 28))T090000Z\r\nSUMMARY:\(title)\r\nX-KEEP:\(n)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    @Test func killedSyncsLeaveNothingLostOrDuplicated() throws {
        let server = try Radicale()
        try server.makeCalendar("personal", displayName: "Personal")
        let folder = server.directory.appendingPathComponent("collections/collection-root/ann/personal")
        for n in 0..<Self.count {
            try Data(Self.event(n, "Event \(n)").utf8).write(to: folder.appendingPathComponent("event-\(n).ics"))
        }
        let store = NSTemporaryDirectory() + "datebook-kill-\(UUID().uuidString).sqlite3"
        let environment = ["DAV_PASSWORD": server.password, "SWIFT_BACKTRACE": "enable=no", "HOME": NSTemporaryDirectory()]
        #expect(try datebook(store, ["caldav", "add", "home", server.baseURL + "/", "--username", server.username,
                                     "--password-env", "DAV_PASSWORD"], environment: environment).0 == 0)
        #expect(try datebook(store, ["caldav", "sync"], environment: environment).0 == 0)

        // 40 events changed here, 40 others on the server, 10 removed here, 10 others removed there.
        do {
            let local = try Store(path: store)
            for n in 0..<40 {
                var event = try #require(try local.events(titled: "Event \(n)").first)
                event.title = "Local \(n)"
                try local.save(event)
            }
            for n in 80..<90 { #expect(try local.delete(id: try #require(try local.events(titled: "Event \(n)").first).id)) }
        }
        for n in 40..<80 { try server.put("personal", "event-\(n).ics", Self.event(n, "Server \(n)")) }
        for n in 90..<100 { try server.delete("personal", "event-\(n).ics") }

        var finished = 0
        for round in 0..<50 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["--store", store, "--tz", "UTC", "--now", "2026-11-30 09:00", "caldav", "sync"]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 5_000...(round < 25 ? 150_000 : 600_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .exit { finished += 1 }
        }
        #expect(finished < 40, "only \(50 - finished) of 50 syncs were killed before they finished")
        let clean = try datebook(store, ["caldav", "sync"], environment: environment)
        #expect(clean.0 == 0, "\(clean.2)")
        #expect(try datebook(store, ["caldav", "sync"], environment: environment).1 == "caldav 'home' Personal: unchanged\n")

        let local = try Store(path: store)
        #expect(try local.eventCount() == Self.count - 20, "killed \(50 - finished) of 50")
        var titles: [String: Int] = [:]
        try local.forEachEvent { titles[$0.title, default: 0] += 1 }
        #expect(titles.values.allSatisfy { $0 == 1 }, "a duplicate")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ics") }
        #expect(files.count == Self.count - 20)
        for n in [0, 39] {
            #expect(titles["Local \(n)"] == 1)
            let text = try #require(try server.get("personal", "event-\(n).ics"))
            #expect(text.contains("SUMMARY:Local \(n)") && text.contains("X-KEEP:\(n)"))
        }
        for n in [40, 79] { #expect(titles["Server \(n)"] == 1) }
        for n in [80, 95] { #expect(try server.get("personal", "event-\(n).ics") == nil) }
    }
}
