import CICal
@testable import DatebookICal
import Foundation
import Testing

/// The plain-VEVENT fast path must read exactly what libical's component parser reads, warnings
/// included, and must step aside for everything it does not handle.
struct ICalSimpleEventTests {
    static let zone = "America/New_York"

    /// The document both ways: fast paths on, and every component through libical.
    func bothWays(_ data: Data, name: String = "t.ics") throws -> (fast: ICalDocument, libical: ICalDocument) {
        let zone = TestSupport.zone(Self.zone)
        return (try ICalParser.parse(data: data, fileName: name, defaultTimeZone: zone, workers: 1, fastPaths: true),
                try ICalParser.parse(data: data, fileName: name, defaultTimeZone: zone, workers: 1, fastPaths: false))
    }

    func calendar(_ body: String, lf: Bool = false) -> String {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n"
        return lf ? text.replacingOccurrences(of: "\r\n", with: "\n") : text
    }

    /// Whether the fast path takes this VEVENT on its own.
    func takesFastPath(_ vevent: String) -> Bool {
        let bytes = Array(vevent.utf8)
        let reader = ICalComponentReader(fileName: "t.ics", resolver: ICalZoneResolver(defaultTimeZone: TestSupport.zone(Self.zone)))
        return bytes.withUnsafeBufferPointer {
            ICalSimpleEvent.parse($0, chunk: ICalChunk(name: "VEVENT", line: 1, range: 0..<bytes.count), reader: reader)
        } != nil
    }

    @Test func everyFixtureReadsTheSameBothWays() throws {
        let directory = TestSupport.directory.appendingPathComponent("Fixtures")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".ics") }.sorted()
        #expect(names.count >= 10)
        var compared = 0, fastOnes = 0
        for name in names {
            do {
                let data = try TestSupport.data(name)
                let (fast, libical) = try bothWays(data, name: name)
                #expect(fast == libical, "\(name) differs")
                compared += fast.events.count
                let bytes = [UInt8](data)
                for chunk in ICalChunkScanner.scan(bytes.withUnsafeBufferPointer { $0 }, from: 0).chunks where chunk.name == "VEVENT" {
                    fastOnes += bytes.withUnsafeBufferPointer { buffer in
                        let reader = ICalComponentReader(fileName: name, resolver: ICalZoneResolver(defaultTimeZone: TestSupport.zone(Self.zone)))
                        return ICalSimpleEvent.parse(buffer, chunk: chunk, reader: reader) == nil ? 0 : 1
                    }
                }
            } catch let error as ICalError {
                // Refused files (empty, HTML, JSON) are refused before any component is read.
                #expect(name.hasPrefix("not-ical") || name == "empty.ics", "\(name): \(error)")
            }
        }
        #expect(compared >= 20)
        #expect(fastOnes >= 10, "the fixtures should exercise both paths")
    }

    @Test(arguments: [
        "DTSTART;TZID=Europe/Berlin:20270418T121500\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY",
        "DTSTART;TZID=America/New_York:20270314T023000\r\nDTEND;TZID=America/New_York:20270314T040000",
        "DTSTART:20270418T121500Z\r\nDTEND:20270418T131500Z",
        "DTSTART:20270418T121500\r\nDURATION:P1W",
        "DTSTART;VALUE=DATE:20271231\r\nDTEND;VALUE=DATE:20280101",
        "DTSTART;VALUE=DATE:20270228\r\nDURATION:P2D",
        "DTSTART;TZID=Europe/Berlin:20271031T013000\r\nDURATION:P1DT2H30M",
        "DTSTART;TZID=W. Europe Standard Time:20270601T090000\r\nDURATION:PT45M",
        "DTSTART;TZID=Mars/Olympus_Mons:20270601T090000\r\nDURATION:PT45M",
        "dtstart:20270601T090000Z\r\nsummary:lower-case names\r\nduration:PT5M\r\nbegin:valarm\r\ntrigger:-PT5M\r\nend:valarm",
        "DTSTART:20270418T121500Z\r\nSUMMARY:Cake\\, candles\\; a \\\\ card\\nsoon\r\nLOCATION:Ünïcødé ✓\r\nDESCRIPTION:a\\Nb",
        "DTSTART:20270418T121500Z\r\nURL:https://example.org/a?b=c;d\r\nSTATUS:CANCELLED",
        "DTSTART:20270418T121500Z\r\nSTATUS:TENTATIVE\r\nX-ALT-DESC;FMTTYPE=text/html:<p>\r\n folded <b>skipped</b>\r\nATTENDEE;CN=\"A, B\":mailto:a@example.org",
        "DTSTART:20270418T121500Z\r\nDURATION:PT1H\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-P1D\r\nEND:VALARM\r\nBEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER;RELATED=END:PT10M\r\nEND:VALARM",
        "DTSTART;VALUE=DATE:20270418\r\nBEGIN:VALARM\r\nTRIGGER;RELATED=START:-PT15H\r\nDURATION:PT5M\r\nREPEAT:2\r\nEND:VALARM",
    ])
    func plainEventsTakeTheFastPathAndMatchLibical(lines: String) throws {
        let vevent = "BEGIN:VEVENT\r\nUID:e1@example.org\r\nDTSTAMP:20260101T000000Z\r\n\(lines)\r\nEND:VEVENT\r\n"
        #expect(takesFastPath(vevent))
        for lf in [false, true] {
            let (fast, libical) = try bothWays(Data(calendar(vevent, lf: lf).utf8))
            #expect(fast.events.count == 1)
            #expect(fast == libical)
        }
    }

    @Test(arguments: [
        "DTSTART:20270418T121500Z\r\nRDATE:20270501T121500Z",
        "DTSTART:20270418T121500Z\r\nEXDATE:20270501T121500Z\r\nRRULE:FREQ=DAILY",
        "DTSTART:20270418T121500Z\r\nRECURRENCE-ID:20270418T121500Z",
        "DTSTART:20270418T121500Z\r\nSUMMARY:folded\r\n  summary",
        "DTSTART;TZID=\"Europe/Berlin\":20270418T121500",
        "DTSTART;TZID=Europe/Berlin;VALUE=DATE-TIME:20270418T121500",
        "DTSTART:20270418",
        "DTSTART;VALUE=DATE:20270418T121500",
        "DTSTART:20271318T121500Z",
        "DTSTART:20270418T246000Z",
        "dtstart;tzid=Asia/Tokyo:20270601T090000",
        "DTSTART:20270418T121500Z\r\nSUMMARY:",
        "DTSTART:20270418T121500Z\r\nSUMMARY;LANGUAGE=de:Kuchen",
        "DTSTART:20270418T121500Z\r\nSUMMARY:odd \\escape",
        "DTSTART:20270418T121500Z\r\nSTATUS:confirmed",
        "DTSTART:20270418T121500Z\r\nSTATUS:MAYBE",
        "DTSTART:20270418T121500Z\r\nDTEND:20270418T131500Z\r\nDURATION:PT1H",
        "DTSTART:20270418T121500Z\r\nDURATION:1H",
        "DTSTART:20270418T121500Z\r\nRRULE:FREQ=DAILY\r\nRRULE:FREQ=WEEKLY",
        "DTSTART:20270418T121500Z\r\nSUMMARY:one\r\nSUMMARY:two",
        "DTSTART:20270418T121500Z\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM",
        "DTSTART:20270418T121500Z\r\nBEGIN:VALARM\r\nTRIGGER;VALUE=DATE-TIME:20270418T110000Z\r\nEND:VALARM",
        "DTSTART:20270418T121500Z\r\nBEGIN:X-THING\r\nEND:X-THING",
        "SUMMARY:no start",
    ])
    func anythingElseTakesTheLibicalPathWithTheSameResult(lines: String) throws {
        let vevent = "BEGIN:VEVENT\r\nUID:e1@example.org\r\n\(lines)\r\nEND:VEVENT\r\n"
        #expect(!takesFastPath(vevent))
        let (fast, libical) = try bothWays(Data(calendar(vevent).utf8))
        #expect(fast == libical)
    }

    @Test func anEventWithoutUIDIsLeftToLibical() throws {
        let vevent = "BEGIN:VEVENT\r\nDTSTART:20270418T121500Z\r\nEND:VEVENT\r\n"
        #expect(!takesFastPath(vevent))
        let (fast, libical) = try bothWays(Data(calendar(vevent).utf8))
        #expect(fast == libical)
        #expect(fast.warnings.count == 1)
    }

    /// An unknown TZID warns once with the event's line and UID, the same words both ways.
    @Test func zoneWarningsAreTheSame() throws {
        let vevent = "BEGIN:VEVENT\r\nUID:z1\r\nDTSTART;TZID=Nowhere/Special:20270601T090000\r\nDTEND;TZID=Nowhere/Special:20270601T100000\r\nEND:VEVENT\r\n"
        #expect(takesFastPath(vevent))
        let (fast, libical) = try bothWays(Data(calendar(vevent).utf8))
        #expect(fast.warnings == libical.warnings)
        #expect(fast.warnings.map(\.description) == ["t.ics:4: UID z1: unknown TZID 'Nowhere/Special' (no such zone and no VTIMEZONE in the file); time read in America/New_York instead; use an IANA name such as Europe/Berlin"])
    }

    /// The date-time reader that replaced `icaltime_from_string` for plain values gives libical's
    /// own fields (zone included) wherever it reads a value, and reads every form DTSTART is written in.
    @Test func timesReadAsLibicalReadsThem() {
        var values = ["20260303", "20260303T054500", "20260303T054500Z", "00000000", "99991231T235959Z", "20261340T999999",
                      "20260303X054500", "20260303T05450Z", "20260303T054500Y", "20260303T0545001", "2026030", "2026030T054500",
                      "ZZZZZZZZ", "T0260303T054500", "20260303TT54500", "202603031054500Z"]
        // Strings of the shapes `date` lets through: digits, T and Z at every place.
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789TZ".utf8)
        for length in [8, 15, 16] {
            for _ in 0..<300 {
                var bytes = (0..<length).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &generator) }
                for _ in 0..<Int.random(in: 0...2, using: &generator) {
                    bytes[Int.random(in: 0..<length, using: &generator)] = alphabet.randomElement(using: &generator)!
                }
                if length > 8, Bool.random(using: &generator) { bytes[8] = UInt8(ascii: "T") }
                if length == 16, Bool.random(using: &generator) { bytes[15] = UInt8(ascii: "Z") }
                values.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        var read = 0
        for value in values {
            let bytes = Array(value.utf8)
            guard let fast = bytes.withUnsafeBufferPointer({ ICalSimpleEvent.time($0) }) else { continue }
            read += 1
            let libical = icaltime_from_string(value)
            #expect([fast.year, fast.month, fast.day, fast.hour, fast.minute, fast.second, fast.is_date, fast.is_daylight]
                    == [libical.year, libical.month, libical.day, libical.hour, libical.minute, libical.second, libical.is_date,
                        libical.is_daylight], "\(value)")
            #expect(fast.zone == libical.zone, "\(value)")
        }
        for value in ["20260303", "20260303T054500", "20260303T054500Z"] {
            #expect(Array(value.utf8).withUnsafeBufferPointer { ICalSimpleEvent.time($0) } != nil, "\(value)")
        }
        #expect(read >= 300)
    }

    /// A DURATION or TRIGGER read here gives libical's every field; what is not read here, libical reads.
    @Test func durationsReadAsLibicalReadsThem() {
        var values = ["PT1H", "-P1D", "-PT15M", "P1DT2H30M", "P2W", "PT0S", "P0D", "PT999999S", "-P1W", "P15DT5H0M20S", "PT05M",
                      "P", "-P", "PT", "P1DT", "P1W2D", "P1D1D", "PT1M1H", "PT1H1H", "P1H", "PT1D", "P1WT1H", "PT1234567S", "+PT5M",
                      "--P1D", "P-1D", "PT1", "P1", "1D", "PTT1H", "P1DTT1H", "PT1H ", " PT1H", "pt1h", "P1DT1H2M3S4S"]
        // Strings of the grammar with a unit, digit or sign changed, dropped or repeated here and there.
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("-+PTWDHMS0123456789".utf8)
        for _ in 0..<1_500 {
            var text = Bool.random(using: &generator) ? "-P" : "P"
            switch Int.random(in: 0...2, using: &generator) {
            case 0: text += "\(Int.random(in: 0...99, using: &generator))W"
            case 1: text += "\(Int.random(in: 0...400, using: &generator))D"
            default: break
            }
            if Bool.random(using: &generator) {
                text += "T"
                for unit in ["H", "M", "S"] where Bool.random(using: &generator) {
                    text += "\(Int.random(in: 0...99_999, using: &generator))" + unit
                }
            }
            var bytes = Array(text.utf8)
            for _ in 0..<Int.random(in: 0...1, using: &generator) {
                let place = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0 where place < bytes.count: bytes[place] = alphabet.randomElement(using: &generator)!
                case 1 where place < bytes.count: bytes.remove(at: place)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: place)
                }
            }
            values.append(String(decoding: bytes, as: UTF8.self))
        }
        var read = 0
        for value in values {
            guard let fast = Array(value.utf8).withUnsafeBufferPointer({ ICalSimpleEvent.duration($0) }) else { continue }
            read += 1
            let libical = icaldurationtype_from_string(value)
            #expect(icaldurationtype_is_bad_duration(libical) == 0, "\(value)")
            #expect([fast.days, fast.weeks, fast.hours, fast.minutes, fast.seconds]
                    == [libical.days, libical.weeks, libical.hours, libical.minutes, libical.seconds], "\(value)")
            #expect(fast.is_neg == libical.is_neg, "\(value)")
        }
        for value in ["PT1H", "-P1D", "-PT15M", "P1DT2H30M", "P2W", "P15DT5H0M20S"] {
            #expect(Array(value.utf8).withUnsafeBufferPointer { ICalSimpleEvent.duration($0) } != nil, "\(value)")
        }
        #expect(read >= 500)
    }
}

/// The byte checks the plain paths use on every component.
struct ICalBytesTests {
    /// Eight bytes at a time, with the rest one by one: a byte of 0x80 or more anywhere, at any length
    /// and alignment, makes the bytes not ASCII.
    @Test func asciiIsCheckedAtEveryPlace() {
        for length in 0...40 {
            let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: length + 3)
            for offset in 0...3 {
                ascii.withUnsafeBufferPointer { all in
                    #expect(ICalBytes.isASCII(UnsafeBufferPointer(rebasing: all[offset..<(offset + length)])), "\(length)")
                }
                for place in 0..<length {
                    for byte: UInt8 in [0x80, 0xC3, 0xFF] {
                        var bytes = ascii
                        bytes[offset + place] = byte
                        bytes.withUnsafeBufferPointer { all in
                            #expect(!ICalBytes.isASCII(UnsafeBufferPointer(rebasing: all[offset..<(offset + length)])),
                                    "\(length) \(offset) \(place)")
                        }
                    }
                }
            }
        }
    }
}

/// The planner's own properties (RFC 7986 COLOR, X-DATEBOOK-SYMBOL, X-DATEBOOK-TIMEZONE) are
/// written and read back, by the fast path and by libical's.
struct StylePropertyTests {
    @Test func colourSymbolAndZoneAreWrittenAndReadBothWays() throws {
        let plain = ICalEvent(uid: "a@datebook", summary: "Plain", start: .date(year: 2026, month: 12, day: 24),
                              color: "darkturquoise", symbol: "gift.fill", timeZoneName: "Asia/Tokyo")
        var escaped = plain
        escaped.uid = "b@datebook"
        escaped.description = "needs; libical, for the escapes"
        let text = ICalWriter.write(events: [plain, escaped], todos: [], prodID: "-//t//EN")
        #expect(text.contains("\r\nCOLOR:darkturquoise\r\nX-DATEBOOK-SYMBOL:gift.fill\r\nX-DATEBOOK-TIMEZONE:Asia/Tokyo\r\n"))
        let tests = ICalSimpleEventTests()
        let (fast, libical) = try tests.bothWays(Data(text.utf8))
        #expect(fast == libical)
        #expect(tests.takesFastPath(String(text[text.range(of: "BEGIN:VEVENT")!.lowerBound..<text.range(of: "END:VEVENT\r\n")!.upperBound])))
        for event in fast.events {
            #expect(event.color == "darkturquoise" && event.symbol == "gift.fill" && event.timeZoneName == "Asia/Tokyo", "\(event.uid)")
        }
    }
}
