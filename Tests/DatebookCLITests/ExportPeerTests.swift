@testable import DatebookCLI
import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// What datebook writes, read back by an independent reader (issue 26): Python's `icalendar` and
/// `recurring-ical-events` expand the exported file, occurrence by occurrence.
struct ExportPeerTests {
    static let peerReady = TestPython.imports(["icalendar", "recurring_ical_events"])

    /// "SUMMARY\tSTART\tEND" lines of `file` as the peer expands it in `[from, to)`.
    static func peer(_ file: String, from: String, to: String, zone: String = "UTC") throws -> [String] {
        let python = try #require(TestPython.executable)
        let script = cliFixtures.appendingPathComponent("ics-occurrences.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, file, from, to, zone]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: error, as: UTF8.self))")
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Writes `text` into the sandbox as `name` and returns its path.
    static func write(_ text: String, _ name: String, in sandbox: Sandbox) throws -> String {
        let path = sandbox.home + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func export(_ sandbox: Sandbox) throws -> String {
        let path = sandbox.home + "/export.ics"
        let run = sandbox.run(["export", "--format", "ics", "-o", path])
        #expect(run.code == 0, "\(run.err)")
        return path
    }

    static let movedStandup = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//test//EN\r
        BEGIN:VEVENT\r
        UID:standup-1\r
        DTSTAMP:20261101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20261201T093000\r
        DTEND;TZID=Europe/Berlin:20261201T094500\r
        RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR\r
        SUMMARY:Standup\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup-1\r
        DTSTAMP:20261101T000000Z\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261210T093000\r
        DTSTART;TZID=Europe/Berlin:20261210T140000\r
        DTEND;TZID=Europe/Berlin:20261210T141500\r
        SUMMARY:Standup (moved)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test(.enabled(if: peerReady)) func aMovedOccurrenceIsWrittenAsAnOverrideOnly() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let source = try Self.write(Self.movedStandup, "standup.ics", in: sandbox)
        #expect(sandbox.run(["import", source]).code == 0)
        let exported = try Self.export(sandbox)
        let window = ("2026-11-30T00:00:00Z", "2027-01-29T00:00:00Z")
        let theirs = try Self.peer(exported, from: window.0, to: window.1)
        #expect(theirs == (try Self.peer(source, from: window.0, to: window.1)))
        // 43 weekdays from Dec 1 to Jan 28, the moved one among them at its new time.
        #expect(theirs.count == 43, "\(theirs)")
        #expect(theirs.contains("Standup (moved)\tT:1796907600\tT:1796908500"), "\(theirs)")
        #expect(!(try String(contentsOfFile: exported, encoding: .utf8)).contains("EXDATE"))
    }

    @Test(.enabled(if: peerReady)) func anAllDayEndIsTheLastDayInsideAndTheDayAfterInICalendar() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Holidays", "--at", "2026-12-24", "--end", "2026-12-26"]).code == 0)
        #expect(sandbox.run(["add", "One day", "--at", "2026-12-28", "--end", "2026-12-28"]).code == 0)
        #expect(sandbox.run(["add", "No length", "--at", "2026-12-29 10:00", "--end", "2026-12-29 10:00"]).code == 0)
        #expect(sandbox.run(["show", "Holidays"]).out.contains("Thu 2026-12-24 all day – Sat 2026-12-26 all day"))
        let exported = try Self.export(sandbox)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("DTEND;VALUE=DATE:20261227\r\n"), "\(text)")
        #expect(!text.contains("DTEND;VALUE=DATE:20261228") && !text.contains("DTEND;VALUE=DATE:20261229"), "\(text)")
        #expect(!text.contains("DTEND:20261229T090000Z") && !text.contains("DTEND;TZID=Europe/Berlin:20261229T100000"), "\(text)")
        let theirs = try Self.peer(exported, from: "2026-12-01T00:00:00Z", to: "2027-01-01T00:00:00Z")
        #expect(theirs.contains("Holidays\tD:2026-12-24\tD:2026-12-27"), "\(theirs)")
        #expect(theirs.contains { $0.hasPrefix("One day\tD:2026-12-28\t") && !$0.contains("D:2026-12-28\tD:2026-12-28") }, "\(theirs)")
        // Imported back: the same last day.
        let again = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: again.home) }
        #expect(again.run(["import", exported]).code == 0)
        #expect(again.run(["show", "Holidays"]).out.contains("Thu 2026-12-24 all day – Sat 2026-12-26 all day"))
        #expect(!again.run(["show", "One day"]).out.contains(" – "))
    }

    @Test func aDateStartWithATimedEndKeepsItsLength() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let file = try Self.write("""
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//test//EN\r
            BEGIN:VEVENT\r
            UID:leave-1\r
            DTSTAMP:20261101T000000Z\r
            DTSTART;VALUE=DATE:20270701\r
            DTEND:20270722T000000Z\r
            SUMMARY:Parental leave\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:fair-1\r
            DTSTAMP:20261101T000000Z\r
            DTSTART;VALUE=DATE:20270801\r
            DTEND;VALUE=DATE:20270804\r
            SUMMARY:Fair\r
            END:VEVENT\r
            END:VCALENDAR\r

            """, "leave.ics", in: sandbox)
        #expect(sandbox.run(["import", file]).code == 0)
        #expect(sandbox.run(["show", "Parental leave"]).out.contains("Thu 2027-07-01 all day – Wed 2027-07-21 all day"))
        #expect(sandbox.run(["show", "Fair"]).out.contains("Sun 2027-08-01 all day – Tue 2027-08-03 all day"))
        #expect((try String(contentsOfFile: Self.export(sandbox), encoding: .utf8)).contains("DTEND;VALUE=DATE:20270722\r\n"))
    }

    /// Imported series split by RANGE=THISANDFUTURE overrides are written back so: the master with
    /// the rule the parts were split from, each part as an override without a rule of its own
    /// (recurring-ical-events never expands an override's RRULE, and would see one occurrence).
    @Test(.enabled(if: peerReady), arguments: ["thisandfuture.ics", "thisandfuture-chain.ics"])
    func aSeriesSplitByThisAndFutureIsWrittenBackSoAndMeansTheSame(_ fixture: String) throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let source = RoundTripTests.testsFolder.appendingPathComponent("DatebookICalTests/Fixtures/" + fixture).path
        #expect(sandbox.run(["import", source]).code == 0)
        let exported = try Self.export(sandbox)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("RECURRENCE-ID;RANGE=THISANDFUTURE"), "\(text)")
        for block in text.components(separatedBy: "BEGIN:VEVENT").filter({ $0.contains("RANGE=THISANDFUTURE") }) {
            #expect(!block.contains("RRULE:"), "\(block)")
        }
        let window = ("2026-11-01T00:00:00Z", "2027-06-01T00:00:00Z")
        let theirs = try Self.peer(exported, from: window.0, to: window.1)
        let original = try Self.peer(source, from: window.0, to: window.1)
        #expect(theirs == original, "only in the export: \(Set(theirs).subtracting(original).sorted()); only in the source: \(Set(original).subtracting(theirs).sorted())")
    }

    /// "SUMMARY\tSTART" of each occurrence `list --json` shows in Next 7 and Next 30 Days.
    static func listed(_ sandbox: Sandbox, storePath: String? = nil) throws -> [String] {
        var rows: [String] = []
        for period in ["next7", "next30"] {
            let json = sandbox.run(["list", "--period", period, "--json"], storePath: storePath).out
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            for section in object["periods"] as? [[String: Any]] ?? [] {
                for event in section["events"] as? [[String: Any]] ?? [] {
                    let title = event["title"] as? String ?? "", start = event["start"] as? String ?? ""
                    let instant = try #require(ISO8601DateFormatter().date(from: start))
                    rows.append(title + "\tT:\(Int(instant.timeIntervalSince1970))")
                }
            }
        }
        return rows.sorted()
    }

    /// A weekly review moved to Tuesdays from Dec 21 on by a RANGE=THISANDFUTURE override.
    static let splitReview = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//test//EN\r
        BEGIN:VEVENT\r
        UID:review-1\r
        DTSTAMP:20261101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20261207T100000\r
        DTEND;TZID=Europe/Berlin:20261207T110000\r
        RRULE:FREQ=WEEKLY;UNTIL=20270301T090000Z\r
        SUMMARY:Review\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:review-1\r
        DTSTAMP:20261101T000000Z\r
        RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20261221T100000\r
        DTSTART;TZID=Europe/Berlin:20261222T110000\r
        DTEND;TZID=Europe/Berlin:20261222T120000\r
        SUMMARY:Review (Tuesdays)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// A part whose rule is not the master's (`edit --from … --repeat daily`) cannot be written as a
    /// RANGE=THISANDFUTURE override: the parts of that series go out as series of their own UIDs,
    /// which another reader reads as `list` shows them.
    @Test(.enabled(if: peerReady)) func aPartNoOneRuleCarriesIsWrittenAsASeriesOfItsOwn() throws {
        var sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["import", try Self.write(Self.splitReview, "review.ics", in: sandbox)]).code == 0)
        let edit = sandbox.run(["edit", "Review (Tuesdays)", "--from", "2027-01-12", "--repeat", "daily", "--title", "Review (daily)"])
        #expect(edit.code == 0, "\(edit.err)")
        let exported = try Self.export(sandbox)
        #expect(!(try String(contentsOfFile: exported, encoding: .utf8)).contains("RANGE=THISANDFUTURE"))
        sandbox.now = "2027-01-04 08:00"
        let ours = try Self.listed(sandbox)
        #expect(ours.count == 1 + 22, "\(ours)")
        try Self.expectPeerSees(ours, in: exported, from: "2027-01-04T07:00:00Z", to: "2027-02-03T07:00:00Z")
    }

    /// Expects the peer to read exactly `ours` ("SUMMARY\tSTART", sorted; `listed`) from `file` in `[from, to)`.
    static func expectPeerSees(_ ours: [String], in file: String, from: String, to: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let theirs = try peer(file, from: from, to: to).map { $0.split(separator: "\t").prefix(2).joined(separator: "\t") }.sorted()
        #expect(theirs == ours, "only ours: \(Set(ours).subtracting(theirs).sorted()); only theirs: \(Set(theirs).subtracting(ours).sorted())",
                sourceLocation: sourceLocation)
    }

    /// `edit --from` on a series whose source splits series with RANGE=THISANDFUTURE: the new part is
    /// one more such override of the original series (its RECURRENCE-ID the original instance, not
    /// where the earlier part moved it), and another reader sees what `list` shows.
    @Test(.enabled(if: peerReady)) func editFromWritesAThisAndFutureOverrideWhereTheSourceHadThem() throws {
        var sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        let source = try Self.write(Self.splitReview, "review.ics", in: sandbox)
        #expect(sandbox.run(["import", source]).code == 0)
        let edit = sandbox.run(["edit", "Review (Tuesdays)", "--from", "2027-01-12", "--at", "2027-01-12 09:00",
                                "--title", "Review (Tuesday mornings)"])
        #expect(edit.code == 0, "\(edit.err)")
        let exported = try Self.export(sandbox)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        // The original instance of Tue 2027-01-12 11:00 is Mon 2027-01-11 10:00 Berlin.
        #expect(text.contains("RECURRENCE-ID;RANGE=THISANDFUTURE:20270111T090000Z\r\n"), "\(text)")
        #expect(text.components(separatedBy: "BEGIN:VEVENT").dropFirst().filter { $0.contains("\r\nRRULE:") }.count == 1, "one rule, the master's: \(text)")
        sandbox.now = "2027-01-04 08:00"
        let ours = try Self.listed(sandbox)
        // Until Thu 2027-02-04 08:00 Berlin: Jan 5 (11:00), then Tuesdays at 9:00 from Jan 12 to Feb 2.
        #expect(ours.count == 5 && ours.filter { $0.hasPrefix("Review (Tuesday mornings)\t") }.count == 4, "\(ours)")
        try Self.expectPeerSees(ours, in: exported, from: "2027-01-04T07:00:00Z", to: "2027-02-03T07:00:00Z")
        // Read back by datebook: the same occurrences.
        let restored = sandbox.home + "/restored.sqlite3"
        #expect(sandbox.run(["import", exported], storePath: restored).code == 0)
        #expect(try Self.listed(sandbox, storePath: restored) == ours)
    }

    /// An edit keeps the event's own zone: a weekly Berlin meeting moved in March is written on
    /// Berlin's wall clock, so other programs keep it at 10:00 after the DST change (written in
    /// UTC it was an hour off there); one moved occurrence and the part from `--from` on alike.
    @Test(.enabled(if: peerReady)) func anEditedSeriesKeepsItsZoneAcrossTheDSTChange() throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Planning", "--at", "2027-03-01 09:00", "--end", "2027-03-01 09:30", "--repeat", "weekly"]).code == 0)
        for arguments in [["edit", "Planning", "--at", "2027-03-08 10:00", "--end", "2027-03-08 10:30"],
                          ["edit", "Planning", "--occurrence", "2027-03-15", "--at", "2027-03-16 11:00", "--title", "Planning (moved)"],
                          ["edit", "Planning", "--from", "2027-04-12", "--at", "2027-04-12 12:00"]] {
            let run = sandbox.run(arguments)
            #expect(run.code == 0, "\(arguments): \(run.err)")
        }
        let exported = try Self.export(sandbox)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20270308T100000\r\n"), "\(text)")
        #expect(!text.contains("DTSTART:2027"), "a start written in UTC: \(text)")
        let theirs = try Self.peer(exported, from: "2027-03-01T00:00:00Z", to: "2027-04-27T00:00:00Z")
            .map { $0.split(separator: "\t").prefix(2).joined(separator: "\t") }
        // Berlin is UTC+1 until Sun 2027-03-28, UTC+2 after.
        let instant = { (day: String, hour: Int, offset: Int) -> String in
            let date = ISO8601DateFormatter().date(from: day + "T00:00:00Z") ?? Date()
            return (hour == 11 ? "Planning (moved)" : "Planning") + "\tT:\(Int(date.timeIntervalSince1970) + (hour - offset) * 3600)"
        }
        #expect(theirs == [instant("2027-03-08", 10, 1), instant("2027-03-16", 11, 1), instant("2027-03-22", 10, 1),
                           instant("2027-03-29", 10, 2), instant("2027-04-05", 10, 2), instant("2027-04-12", 12, 2),
                           instant("2027-04-19", 12, 2), instant("2027-04-26", 12, 2)].sorted(), "\(theirs)")
    }

    /// A time edit typed in the reader's zone moves the event to that instant and keeps the event's
    /// own zone (its later occurrences follow New York's daylight-saving change, not Berlin's);
    /// `--tz` on the same line moves the event into that zone.
    @Test func aTimeEditTypedInAnotherZoneKeepsTheEventsOwnZone() throws {
        var sandbox = Sandbox()
        sandbox.tz = ""
        let berlin = ["DATEBOOK_TZ": "Europe/Berlin"]
        #expect(sandbox.run(["--tz", "America/New_York", "add", "Standup", "--at", "2027-03-01 09:00", "--repeat", "weekly"]).code == 0)
        let moved = sandbox.run(["edit", "Standup", "--at", "2027-03-01 16:00"], environment: berlin)
        #expect(moved.code == 0, "\(moved.err)")
        let event = { () throws -> [String: Any] in
            let json = try JSONSerialization.jsonObject(with: Data(sandbox.run(["export", "--format", "json"], environment: berlin).out.utf8))
            return try #require(((json as? [String: Any])?["events"] as? [[String: Any]])?.first)
        }
        // 16:00 in Berlin (UTC+1) is 15:00 UTC, 10:00 in New York (UTC-5).
        #expect(try event()["timeZone"] as? String == "America/New_York")
        #expect(try event()["start"] as? String == "2027-03-01T15:00:00Z")
        var later = sandbox
        later.now = "2027-03-12 09:00"
        let occurrences = later.run(["list", "--period", "next7", "--json"], environment: ["DATEBOOK_TZ": "America/New_York"]).out
        // After New York's change (Sun 2027-03-14) the standup is still at 10:00 there.
        #expect(occurrences.contains("\"start\": \"2027-03-15T10:00:00-04:00\""), "\(occurrences)")
        let rezoned = sandbox.run(["--tz", "Asia/Tokyo", "edit", "Standup", "--at", "2027-03-02 09:00"], environment: berlin)
        #expect(rezoned.code == 0, "\(rezoned.err)")
        #expect(try event()["timeZone"] as? String == "Asia/Tokyo")
        #expect(try event()["start"] as? String == "2027-03-02T00:00:00Z")
    }

    /// A zone that matches no IANA name (a file's own VTIMEZONE of +01:30, of -03:45) is kept as that
    /// offset and exported with a VTIMEZONE of it (RFC 5545 §3.2.19): another reader sees every
    /// occurrence at the instant the original file means, in any viewer's zone.
    @Test(.enabled(if: peerReady), arguments: ["UTC", "America/New_York"])
    func aZoneWithNoIANANameIsExportedWithItsOwnVTIMEZONE(_ zone: String) throws {
        var sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        sandbox.tz = zone
        let source = RoundTripTests.testsFolder.appendingPathComponent("DatebookICalTests/Fixtures/offset-zones.ics").path
        #expect(sandbox.run(["import", source]).code == 0)
        let exported = try Self.export(sandbox)
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:GMT+0130\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n"
                              + "TZOFFSETFROM:+0130\r\nTZOFFSETTO:+0130\r\n"), "\(text)")
        #expect(text.contains("DTSTART;TZID=GMT+0130:20261201T090000\r\n") && text.contains("TZOFFSETTO:-0345\r\n"), "\(text)")
        let window = ("2026-11-01T00:00:00Z", "2027-03-01T00:00:00Z")
        let theirs = try Self.peer(exported, from: window.0, to: window.1, zone: zone)
        #expect(theirs.count == 6, "\(theirs)")
        #expect(theirs == (try Self.peer(source, from: window.0, to: window.1, zone: zone)))
        #expect(theirs.contains("Weekly at +01:30 (moved)\tT:1797933600\tT:1797937200"), "\(theirs)")
    }

    @Test(.enabled(if: peerReady), arguments: [("2028-01-01T00:00:00Z", "2029-01-01T00:00:00Z", "2028-12-01"),
                                                ("2036-01-01T00:00:00Z", "2037-01-01T00:00:00Z", "2036-12-01"),
                                                ("2126-01-01T00:00:00Z", "2127-01-01T00:00:00Z", "2126-12-01")])
    func theExportedSeriesReachesAsFarAsTheListDoes(_ from: String, _ to: String, _ day: String) throws {
        let sandbox = Sandbox()
        defer { try? FileManager.default.removeItem(atPath: sandbox.home) }
        #expect(sandbox.run(["add", "Jubilee", "--at", "2026-12-01", "--repeat", "yearly"]).code == 0)
        #expect(sandbox.run(["add", "Old class", "--at", "2019-01-07 18:00", "--repeat", "weekly", "--until", "2021-11-29"]).code == 0)
        let exported = try Self.export(sandbox)
        #expect(try Self.peer(exported, from: from, to: to).map { $0.split(separator: "\t").prefix(2).joined(separator: " ") }
                == ["Jubilee D:" + day])
        let old = try Self.peer(exported, from: "2021-11-01T00:00:00Z", to: "2022-01-01T00:00:00Z")
        #expect(old.map { $0.prefix(9) } == ["Old class", "Old class", "Old class", "Old class", "Old class"], "\(old)")
    }
}
