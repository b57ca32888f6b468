import DatebookTestSupport
import Foundation
import Testing

/// The `/calendar.ics` feed means, to another program (`icalendar` + `recurring-ical-events`),
/// exactly the occurrences `list --json` shows (issue 26): moved, cancelled and this-and-future
/// occurrences, an all-day multi-day event, a floating and a zoned event.
struct FeedPeerTests {
    @Test(.enabled(if: TestPython.imports(["icalendar", "recurring_ical_events"])))
    func theFeedMeansTheOccurrencesTheListShows() throws {
        let sandbox = try ServeSandbox()
        for arguments in [["add", "Standup", "--at", "2026-12-01 09:30", "--end", "2026-12-01 09:45", "--repeat", "weekly"],
                          ["edit", "Standup", "--occurrence", "2026-12-08", "--at", "2026-12-08 14:00", "--title", "Standup moved"],
                          ["rm", "Standup", "--occurrence", "2026-12-15"],
                          ["edit", "Standup", "--from", "2026-12-22", "--at", "2026-12-22 10:00", "--title", "Standup later"],
                          ["add", "Holidays", "--at", "2026-12-24", "--end", "2026-12-26"]] {
            let run = try sandbox.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.err)")
        }
        sandbox.tz = "America/New_York"
        #expect(try sandbox.run(["add", "Call New York", "--at", "2026-12-03 11:00", "--repeat", "daily", "--count", "3"]).status == 0)
        sandbox.tz = "Europe/Berlin"
        let floating = sandbox.directory + "/floating.ics"
        try ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:floating-1\r\nDTSTAMP:20261101T000000Z\r\n"
             + "DTSTART:20261204T073000\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\nSUMMARY:Floating run\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
            .write(toFile: floating, atomically: true, encoding: .utf8)
        #expect(try sandbox.run(["import", floating]).status == 0)
        var ours: [String] = []
        for period in ["next7", "next30"] {
            let json = try sandbox.run(["list", "--period", period, "--json"]).out
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            for section in object["periods"] as? [[String: Any]] ?? [] {
                for event in section["events"] as? [[String: Any]] ?? [] {
                    let title = event["title"] as? String ?? "", start = event["start"] as? String ?? ""
                    if event["allDay"] as? Bool == true {
                        ours.append(title + "\tD:" + start.prefix(10))
                    } else {
                        let instant = try #require(ISO8601DateFormatter().date(from: start))
                        ours.append(title + "\tT:\(Int(instant.timeIntervalSince1970))")
                    }
                }
            }
        }
        try sandbox.start()
        let feed = try sandbox.get("/calendar.ics")
        #expect(feed.status == 200)
        let file = sandbox.directory + "/feed.ics"
        try Data(feed.body).write(to: URL(fileURLWithPath: file))
        let python = try #require(TestPython.executable)
        let script = repositoryRoot.appendingPathComponent("Tests/DatebookCLITests/Fixtures/ics-occurrences.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        // Next 7 and Next 30 Days of now (Mon 2026-11-30 09:00 Berlin): until Wed 2026-12-30 09:00.
        process.arguments = [script, file, "2026-11-30T08:00:00Z", "2026-12-30T08:00:00Z", "Europe/Berlin"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let theirs = String(decoding: output, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t").prefix(2).joined(separator: "\t") }
        #expect(ours.count == 10, "\(ours)")
        #expect(theirs.sorted() == ours.sorted(), "only ours: \(Set(ours).subtracting(theirs).sorted()); only theirs: \(Set(theirs).subtracting(ours).sorted())")
    }
}
