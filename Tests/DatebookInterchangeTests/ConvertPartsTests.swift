import DatebookCore
import DatebookICal
@testable import DatebookStore
@testable import DatebookInterchange
import Foundation
import Testing

/// `PlannerICS.convert` works out each part's components on their own thread; the import must be
/// exactly the one a single part gives, whatever crosses part boundaries.
struct ConvertPartsTests {
    /// Overrides before and after their master, cancelled masters and instances, a UID given twice,
    /// tasks for earlier and later events and for none, a refused rule; 4,800 components.
    static let text: String = {
        var body = ""
        for n in 0..<800 {
            let day = String(format: "%02d", n % 28 + 1)
            switch n % 8 {
            case 0:
                body += "BEGIN:VEVENT\r\nUID:w\(n)\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260112T100000\r\n"
                    + "DTSTART;TZID=Europe/Berlin:20260112T120000\r\nSUMMARY:Moved early \(n)\r\nEND:VEVENT\r\n"
                body += "BEGIN:VEVENT\r\nUID:w\(n)\r\nSUMMARY:Weekly \(n)\r\nDTSTART;TZID=Europe/Berlin:20260105T100000\r\n"
                    + "RRULE:FREQ=WEEKLY;COUNT=5\r\nEND:VEVENT\r\n"
            case 1:
                body += "BEGIN:VEVENT\r\nUID:w\(n - 1)\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260119T100000\r\n"
                    + "DTSTART;TZID=Europe/Berlin:20260119T100000\r\nSTATUS:CANCELLED\r\nEND:VEVENT\r\n"
            case 2: body += "BEGIN:VEVENT\r\nUID:gone\(n)\r\nSTATUS:CANCELLED\r\nDTSTART:202603\(day)T090000Z\r\nEND:VEVENT\r\n"
            case 3: body += "BEGIN:VEVENT\r\nUID:twice\r\nSUMMARY:Version \(n)\r\nDTSTART:202603\(day)T090000Z\r\nEND:VEVENT\r\n"
            case 4: body += "BEGIN:VEVENT\r\nUID:bomb\(n)\r\nDTSTART:202603\(day)T090000Z\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\n"
            case 5: body += "BEGIN:VTODO\r\nUID:t\(n)\r\nSUMMARY:For later \(n)\r\nRELATED-TO:e\(n + 1)\r\nEND:VTODO\r\n"
            case 6:
                body += "BEGIN:VEVENT\r\nUID:e\(n)\r\nSUMMARY:Plain \(n)\r\nDTSTART;VALUE=DATE:202604\(day)\r\nEND:VEVENT\r\n"
                body += "BEGIN:VTODO\r\nUID:t\(n)\r\nSUMMARY:For w\r\nSTATUS:IN-PROCESS\r\nRELATED-TO:w\(n - 6)\r\nEND:VTODO\r\n"
            default: body += "BEGIN:VTODO\r\nUID:\(n).0123456789abcdef@datebook\r\nSUMMARY:Loose \(n)\r\nRELATED-TO:nobody\r\nEND:VTODO\r\n"
            }
        }
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n"
    }()

    @Test(arguments: [2, 3, 4])
    func partsConvertLikeOneDocument(workers: Int) throws {
        let zone = TimeZone(identifier: "America/New_York") ?? .current
        let options = PlannerICS.Options(calendar: "import", timeZone: zone, today: CalendarDate(year: 2026, month: 3, day: 1),
                                         existing: { _ in nil })
        let data = Data(Self.text.utf8)
        let parts = try ICalParser.parseParts(data: data, fileName: "c.ics", defaultTimeZone: zone, workers: workers)
        #expect(parts.count == workers)
        let single = PlannerICS.convert(try ICalParser.parse(data: data, fileName: "c.ics", defaultTimeZone: zone),
                                        fileName: "c.ics", options: options)
        let split = PlannerICS.convert(parts, fileName: "c.ics", options: options)
        #expect(split.events == single.events)
        #expect(split.uids == single.uids)
        #expect(split.warnings == single.warnings)
        // The fixture exercises what it claims to.
        #expect(single.events.contains { $0.title == "Version 795" } && !single.events.contains { $0.title == "Version 3" })
        #expect(single.events.contains { ($0.recurrence ?? "").contains("EXDATE") })
        #expect(single.events.contains { $0.title == "Moved early 0" })
        #expect(!single.events.contains { $0.title.hasPrefix("gone") })
        #expect(single.warnings.contains { $0.contains("SECONDLY") })
        #expect(single.events.first { $0.title == "Tasks" }?.tasks.count == 100)
        #expect(single.events.first { $0.title == "Weekly 0" }?.tasks.map(\.status) == [.doing])
    }
}

/// The join finds events by the number their id spells, and a RELATED-TO by the number its
/// event's id would spell; the two must agree for every kind of UID.
struct JoinKeyTests {
    @Test(arguments: ["import", "feed:work"])
    func relatedToKeysAreTheKeysOfTheIdsEventIDMakes(calendar: String) {
        let options = PlannerICS.Options(calendar: calendar, timeZone: TimeZone(identifier: "UTC")!,
                                         today: CalendarDate(year: 2026, month: 1, day: 1), existing: { _ in nil })
        let calendarKey = PlannerICS.calendarKey(options)
        for uid in ["a", "040000008200E00074C5B7101A82E008@outlook", "0123456789abcdef@datebook", "0123456789ABCDEF@datebook",
                    "x@datebook", "ünïcødé@example.org", ""] {
            let id = PlannerICS.eventID(uid: uid, options: options)
            #expect(Store.hexKey(id) != nil, "\(uid): ids are 16 hex digits")
            #expect(PlannerICS.eventKey(uid: uid, options: options, calendarKey: calendarKey) == PlannerICS.JoinIndex.key(id), "\(uid)")
        }
    }
}

/// The shortcuts the join takes on every VTODO give what the plain String operations give.
struct UIDShortcutTests {
    /// `hasUIDSuffix` is `hasSuffix("@datebook")`: its bytes decide only when they do not end in it,
    /// and a character that joins the `@` (U+0600 ARABIC NUMBER SIGN prepends) leaves it to `hasSuffix`.
    @Test func uidSuffixIsHasSuffix() {
        for uid in ["", "@datebook", "datebook", "x@datebook", "0123456789abcdef@datebook", "t1.0123456789abcdef@datebook",
                    "a@datebook.org", "a@Datebook", "\u{600}@datebook", "x.\u{600}@datebook", "é@datebook", "e\u{301}@datebook",
                    "a@datebook\u{301}", String(repeating: "long uid ", count: 20) + "@datebook", "00000000.1600a35a099950d8@bench.example.org"] {
            #expect(PlannerICS.hasUIDSuffix(uid) == uid.hasSuffix(PlannerICS.uidSuffix), "\(uid.unicodeScalars.map(\.value))")
        }
        #expect(!PlannerICS.hasUIDSuffix("\u{600}@datebook"), "one character, not the suffix")
    }

    /// A hashed task id is the first eight hex digits of the UID's stable id.
    @Test func hashedTaskIDsAreThePrefixOfTheStableID() {
        for uid in ["a", "00000000.1600a35a099950d8@bench.example.org", "ünïcødé", "", ".@datebook"] {
            #expect(PlannerICS.taskID(uid) == String(EventID.stable(uid).prefix(8)), "\(uid)")
        }
        #expect(PlannerICS.taskID("t1.0123456789abcdef@datebook") == "t1")
    }
}
