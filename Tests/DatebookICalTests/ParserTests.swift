import DatebookICal
import Foundation
import Testing

@Suite struct ParserTests {
    @Test func readsZonedEventWithAlarmAndEscapedText() throws {
        let doc = try TestSupport.parse("dst.ics")
        #expect(doc.warnings.isEmpty)
        #expect(doc.events.count == 2)
        let event = try #require(doc.events.first)
        #expect(event.uid == "berlin-weekly")
        #expect(event.summary == "Standup, Berlin")
        #expect(event.start == .zoned(TestSupport.instant(2026, 3, 2, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin"))
        #expect(event.end == .zoned(TestSupport.instant(2026, 3, 2, 9, 30, zone: "Europe/Berlin"), tzid: "Europe/Berlin"))
        #expect(event.rrule == "FREQ=WEEKLY;COUNT=40")
        #expect(event.alarms == [900])
        #expect(event.sourceLine == 4)
        let ny = doc.events[1]
        #expect(ny.sourceLine == 17)
        #expect(ny.end == .zoned(TestSupport.instant(2026, 3, 2, 10, zone: "America/New_York"), tzid: "America/New_York"))
    }

    @Test func bomBareLineFeedsAndFoldedLines() throws {
        let doc = try TestSupport.parse("folded-bom-lf.ics")
        #expect(doc.warnings.isEmpty)
        let event = try #require(doc.events.first)
        #expect(event.summary == "A very long summary that is folded across several lines with Grüße and more")
        #expect(event.description == "Line one\nLine two, with comma; and semicolon\\ backslash")
        #expect(event.location == "Café Müller")
        #expect(event.url == "https://example.org/a?b=c")
        #expect(event.rrule == "FREQ=WEEKLY;BYDAY=MO,WE")
        #expect(event.start.resolve(in: .current) == TestSupport.instant(2026, 3, 2, 9, zone: "Europe/Berlin"))
        #expect(event.sourceLine == 4)
    }

    @Test func windowsAndPrefixedZoneNamesMapToIANA() throws {
        let doc = try TestSupport.parse("windows.ics", zone: "Asia/Tokyo")
        let byUID = Dictionary(uniqueKeysWithValues: doc.events.map { ($0.uid, $0) })
        #expect(byUID["win-berlin"]?.start == .zoned(TestSupport.instant(2026, 7, 15, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin"))
        #expect(byUID["win-eastern"]?.start == .zoned(TestSupport.instant(2026, 1, 15, 9, zone: "America/New_York"), tzid: "America/New_York"))
        #expect(byUID["mozilla-prefix"]?.start == .zoned(TestSupport.instant(2026, 1, 15, 9, zone: "Europe/Berlin"), tzid: "Europe/Berlin"))
        #expect(byUID["tokyo-india"]?.start == .zoned(TestSupport.instant(2026, 1, 15, 9, zone: "Asia/Tokyo"), tzid: "Asia/Tokyo"))
        #expect(byUID["tokyo-india"]?.end == .zoned(TestSupport.instant(2026, 1, 15, 6, zone: "Asia/Kolkata"), tzid: "Asia/Kolkata"))
    }

    @Test func shippedVTIMEZONEWithNonIANANameIsEvaluatedByLibical() throws {
        let doc = try TestSupport.parse("windows.ics", zone: "Asia/Tokyo")
        let event = try #require(doc.events.first { $0.uid == "custom-zone" })
        // July: the custom zone is at -04:00, so 09:00 local is 13:00 UTC.
        #expect(event.start.resolve(in: .current) == TestSupport.instant(2026, 7, 15, 13, zone: "UTC"))
        #expect(doc.warnings.contains { $0.uid == "custom-zone" && $0.message.contains("Customized Time Zone") })
        // Repeats use an IANA zone with the same offsets (US Eastern rules), not a fixed offset.
        guard case let .zoned(_, tzid) = event.start else { Issue.record("not zoned"); return }
        let zone = TestSupport.zone(tzid)
        #expect(tzid.hasPrefix("America/"), "\(tzid)")
        #expect(zone.secondsFromGMT(for: TestSupport.instant(2026, 1, 15, zone: "UTC")) == -5 * 3600)
        #expect(zone.secondsFromGMT(for: TestSupport.instant(2026, 7, 15, zone: "UTC")) == -4 * 3600)
    }

    @Test func unknownTZIDIsReadInDefaultZoneWithWarningNeverUTC() throws {
        let doc = try TestSupport.parse("windows.ics", zone: "Asia/Tokyo")
        let event = try #require(doc.events.first { $0.uid == "unknown-zone" })
        #expect(event.start == .zoned(TestSupport.instant(2026, 1, 15, 9, zone: "Asia/Tokyo"), tzid: "Asia/Tokyo"))
        let warning = try #require(doc.warnings.first { $0.uid == "unknown-zone" })
        #expect(warning.message.contains("Mars/Olympus_Mons"))
        #expect(warning.fileName == "windows.ics")
        #expect(warning.line == 59)
    }

    @Test func brokenComponentsAreSkippedAndTheRestImports() throws {
        let doc = try TestSupport.parse("broken.ics")
        #expect(doc.events.map(\.uid) == ["broken.ics#VEVENT-line-15", "good"])
        let messages = doc.warnings.map(\.description)
        #expect(messages.contains { $0.hasPrefix("broken.ics:4: UID bad-dtstart: DTSTART") && $0.contains("skipped") })
        #expect(messages.contains { $0.hasPrefix("broken.ics:10: UID no-dtstart: no DTSTART") })
        #expect(messages.contains { $0.hasPrefix("broken.ics:15:") && $0.contains("no UID") })
        #expect(messages.contains { $0.hasPrefix("broken.ics:37:") && $0.contains("no END:VEVENT") })
        let good = try #require(doc.events.last)
        // An absolute trigger stays an instant (2 h before the start); RELATED=END -10 min stays 10 min before the end.
        #expect(good.alarms == [.at(TestSupport.instant(2026, 1, 17, 8, zone: "UTC")), .beforeEnd(600)])
        #expect(good.end == .utc(TestSupport.instant(2026, 1, 17, 11, zone: "UTC")))
    }

    @Test func todosMapStatusAndRelation() throws {
        let doc = try TestSupport.parse("todos.ics")
        #expect(doc.todos.map(\.status) == [.todo, .doing, .done, .done])
        #expect(doc.todos.map(\.rawStatus) == ["NEEDS-ACTION", "IN-PROCESS", "COMPLETED", "CANCELLED"])
        #expect(doc.todos.map(\.relatedTo) == ["party", "party", "party", nil])
        #expect(doc.todos[2].due == .date(year: 2026, month: 5, day: 20))
        #expect(doc.todos[0].sourceLine == 10)
        #expect(doc.events.first?.start == .date(year: 2026, month: 6, day: 1))
    }

    @Test(arguments: [
        ("not-ical.html.ics", "not iCalendar (got an HTML page)"),
        ("not-ical.json.ics", "not iCalendar (got JSON)"),
        ("empty.ics", "not iCalendar (the file is empty)"),
    ])
    func refusesFilesThatAreNotICalendar(name: String, expected: String) throws {
        let error = #expect(throws: ICalError.self) { try TestSupport.parse(name) }
        #expect(error?.description.contains(expected) == true)
        #expect(error?.description.hasPrefix(name + ": ") == true)
    }

    @Test func refusesBinaryData() throws {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0xFF])
        let error = #expect(throws: ICalError.self) {
            try ICalParser.parse(data: bytes, fileName: "logo.png", defaultTimeZone: .current)
        }
        #expect(error?.description.contains("not iCalendar (got binary data)") == true)
    }

    @Test func oneMegabyteDescriptionSurvives() throws {
        // libical drops trailing blanks of a value, so the text ends in a letter.
        let long = String(repeating: "Lorem ipsum dolor sit amet, ünïcödé. ", count: 28_000) + "end"
        let folded = ICalWriter.fold("DESCRIPTION:" + ICalWriter.escape(long))
        let text = TestSupport.calendar("BEGIN:VEVENT\r\nUID:big\r\nDTSTART:20260101T100000Z\r\n\(folded)\r\nEND:VEVENT\r\n")
        #expect(text.utf8.count > 1_000_000)
        let doc = try TestSupport.parse(text: text)
        let description = try #require(doc.events.first?.description)
        #expect(description.utf8.count == long.utf8.count)
        #expect(description == long, "1 MB DESCRIPTION changed in parsing")
    }

    @Test func floatingAndUTCValuesKeepTheirKind() throws {
        let text = TestSupport.calendar("""
            BEGIN:VEVENT\r\nUID:f\r\nDTSTART:20260101T100000\r\nDTEND:20260101T110000Z\r\nEND:VEVENT\r\n
            """)
        let doc = try TestSupport.parse(text: text)
        let event = try #require(doc.events.first)
        #expect(event.start == .floating(ICalLocalDateTime(year: 2026, month: 1, day: 1, hour: 10)))
        #expect(event.start.resolve(in: TestSupport.zone("Europe/Berlin")) == TestSupport.instant(2026, 1, 1, 9, zone: "UTC"))
        #expect(event.end == .utc(TestSupport.instant(2026, 1, 1, 11, zone: "UTC")))
    }
}

@Suite struct ParserRobustnessTests {
    /// Every truncation of real fixtures parses or is refused cleanly: no crash, no hang.
    @Test(arguments: ["windows.ics", "broken.ics", "overrides.ics", "folded-bom-lf.ics"])
    func truncatedFilesNeverCrash(name: String) throws {
        let data = try TestSupport.data(name)
        for length in stride(from: 0, through: data.count, by: 5) {
            _ = try? ICalParser.parse(data: data.prefix(length), fileName: name, defaultTimeZone: TestSupport.zone("UTC"))
        }
    }

    @Test func timeZoneDefinedAfterTheEventIsStillUsed() throws {
        let text = TestSupport.calendar("""
            BEGIN:VEVENT\r\nUID:late\r\nDTSTART;TZID=My Zone:20260115T090000\r\nEND:VEVENT\r
            BEGIN:VTIMEZONE\r\nTZID:My Zone\r\nX-LIC-LOCATION:Asia/Kolkata\r\nBEGIN:STANDARD\r
            DTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
            """)
        let doc = try TestSupport.parse(text: text)
        #expect(doc.events.first?.start == .zoned(TestSupport.instant(2026, 1, 15, 9, zone: "Asia/Kolkata"), tzid: "Asia/Kolkata"))
        #expect(doc.warnings.isEmpty)
    }

    @Test func lowercaseKeywordsAndTabsAreAccepted() throws {
        let text = "begin:vcalendar\nversion:2.0\nbegin:vevent\nuid:lc\ndtstart:20260101T100000Z\nsummary:a\n\tb\nend:vevent\nend:vcalendar\n"
        let doc = try TestSupport.parse(text: text)
        #expect(doc.events.first?.summary == "ab")
    }
}
