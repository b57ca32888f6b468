import DatebookCore
import DatebookICal
@testable import DatebookStore
@testable import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// Recurring events are expanded on another thread, some of them while the import still joins
/// (a later override or duplicate can change them); only the expansion of the very event written
/// may be written. SQLite only: its bulk writer's expansion thread.
struct OccurrenceExpansionsTests {
    let horizon = DateInterval(start: Date(timeIntervalSince1970: 1_767_225_600), duration: 92 * 86_400) // 2026-01-01

    func job(_ rule: String, _ day: Int = 5) -> OccurrenceExpansions.Job {
        let start = EventStart.instant(Date(timeIntervalSince1970: 1_767_225_600 + Double(day) * 86_400 + 9 * 3_600))
        var event = Event(id: "0000000000000001", title: "x", start: start, timeZone: "Europe/Berlin", symbol: .star, color: .red)
        event.recurrence = rule
        return OccurrenceExpansions.Job(event, horizon: horizon)!
    }

    @Test func aStaleOrSupersededJobIsNeverHandedOut() {
        let weekly = job("FREQ=WEEKLY"), daily = job("FREQ=DAILY;COUNT=3"), later = job("FREQ=WEEKLY", 12)
        #expect(weekly.keys.count == 13 && daily.keys.count == 3 && later.keys != weekly.keys)
        let expansions = OccurrenceExpansions()
        expansions.submit(weekly, at: 0)
        expansions.submit(weekly, at: 1)
        expansions.submit(weekly, at: 2)
        expansions.submit(daily, at: 2) // resubmitted: the later job wins
        expansions.close()
        #expect(expansions.keys(weekly, at: 0) == weekly.keys)
        // Asked for another start than the one submitted (a duplicate UID replaced the event).
        #expect(expansions.keys(later, at: 1) == later.keys)
        #expect(expansions.keys(daily, at: 2) == daily.keys)
        // Never submitted: expanded by the caller.
        #expect(expansions.keys(daily, at: 7) == daily.keys)
        // Handed out once; asking again expands again, with the same result.
        #expect(expansions.keys(weekly, at: 0) == weekly.keys)
    }

    @Test func aCallerAheadOfTheHelperExpandsTheJobItself() {
        let expansions = OccurrenceExpansions()
        let jobs = (0..<200).map { job($0 % 2 == 0 ? "FREQ=DAILY" : "FREQ=WEEKLY;INTERVAL=2", $0 % 30) }
        for (n, job) in jobs.enumerated() { expansions.submit(job, at: n) }
        // Taken from the back while the helper works from the front; it is closed only afterwards.
        let got = jobs.indices.reversed().map { expansions.keys(jobs[$0], at: $0) }
        expansions.close()
        #expect(got == jobs.reversed().map(\.keys))
    }

    /// Events made from `ConvertPartsTests.text` plus a recurring UID given twice with different
    /// rules, saved with expansions submitted during the join and without: the same rows.
    @Test(arguments: [1, 18])
    func anImportExpandedWhileJoiningStoresWhatAnImportExpandedAtWriteTimeStores(copies: Int) throws {
        var text = ""
        for copy in 0..<copies {
            let body = ConvertPartsTests.text.components(separatedBy: "PRODID:-//t//EN\r\n")[1]
                .replacingOccurrences(of: "END:VCALENDAR\r\n", with: "")
                .replacingOccurrences(of: "UID:", with: "UID:c\(copy)-")
            text += body
            text += "BEGIN:VEVENT\r\nUID:dup\(copy)\r\nDTSTART:20260107T090000Z\r\nRRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\n"
            text += "BEGIN:VEVENT\r\nUID:dup\(copy)\r\nDTSTART:20260108T090000Z\r\nRRULE:FREQ=DAILY;COUNT=4\r\nEND:VEVENT\r\n"
        }
        let data = Data(("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + text + "END:VCALENDAR\r\n").utf8)
        let zone = TimeZone(identifier: "America/New_York")!
        var rows: [[String]] = []
        for early in [false, true] {
            let folder = ScratchFolder("expansions")
            let store = try Store(path: folder.file("early-\(early).sqlite3"))
            store.recurrenceHorizon = horizon
            let options = PlannerICS.Options(calendar: "import", timeZone: zone, today: CalendarDate(year: 2026, month: 1, day: 1),
                                             existing: { _ in nil }, store: early ? store : nil)
            let result = try PlannerICS.decode(data, fileName: "e.ics", options: options)
            #expect((result.expansions != nil) == early)
            #expect(copies == 1 ? result.events.count < Store.bulkThreshold : result.events.count >= Store.bulkThreshold)
            try store.saveImport(result, calendar: "import")
            var seen: [String] = []
            for table in ["occurrences", "recurrence_spans"] {
                let query = try store.db.prepare("SELECT * FROM \(table) ORDER BY 1, 2")
                while try query.step() { seen.append("\(table) \(query.text(0)) \(query.int64(1))") }
            }
            rows.append(seen)
        }
        #expect(rows[0] == rows[1])
        // The fixture exercises what it claims to: cancelled instances, and the second "dup" wins.
        let dup = PlannerICS.eventID(uid: "dup0", options: PlannerICS.Options(
            calendar: "import", timeZone: zone, today: CalendarDate(year: 2026, month: 1, day: 1), existing: { _ in nil }))
        #expect(rows[1].filter { $0.hasPrefix("occurrences \(dup) ") }.count == 4)
        #expect(rows[1].count > 100 * copies)
    }
}
