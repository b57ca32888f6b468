import DatebookCore
import DatebookICal
@testable import DatebookSync
import Foundation
import Testing

struct ICalPatchTests {
    static let event = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Old\r\nX-LONG:abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\r
         tuvwxyz\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nSUMMARY:alarm's own\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:a\r
        RECURRENCE-ID:20261203T130000Z\r\nSUMMARY:Moved one\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
        """

    @Test(arguments: [
        // Replaced in place; the VALARM's SUMMARY, the override and the folded X- line untouched.
        ([ICalPatch.Change("SUMMARY", "SUMMARY:New")], event.replacingOccurrences(of: "SUMMARY:Old", with: "SUMMARY:New")),
        // Added before END:VEVENT of the master when missing.
        ([ICalPatch.Change("LOCATION", "LOCATION:Here")],
         event.replacingOccurrences(of: "END:VALARM\r\nEND:VEVENT", with: "END:VALARM\r\nLOCATION:Here\r\nEND:VEVENT")),
        // Removed.
        ([ICalPatch.Change("SUMMARY", nil)], event.replacingOccurrences(of: "SUMMARY:Old\r\n", with: "")),
    ])
    func onlyTheMastersOwnLinesChange(changes: [ICalPatch.Change], expected: String) {
        #expect(ICalPatch.apply(changes, to: Self.event, component: "VEVENT") == expected)
    }

    @Test func aLongNewLineIsFoldedAndReadBackUnfolded() {
        let title = String(repeating: "é", count: 60)
        let patched = ICalPatch.apply([ICalPatch.Change("SUMMARY", "SUMMARY:" + title)], to: Self.event, component: "VEVENT")
        #expect(patched.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        #expect(ICalPatch.line("SUMMARY", in: patched, component: "VEVENT") == "SUMMARY:" + title)
        #expect(ICalPatch.line("X-LONG", in: Self.event, component: "VEVENT")?.hasSuffix("xyztuvwxyz") == true)
    }

    @Test func dateLinesAreUTCOrDates() {
        #expect(ICalPatch.dateLine("DTSTART", .instant(Date(timeIntervalSince1970: 1_796_302_800))) == "DTSTART:20261203T130000Z")
        #expect(ICalPatch.dateLine("DTEND", .allDay(.init(year: 2026, month: 12, day: 3))) == "DTEND;VALUE=DATE:20261203")
    }

    static let alarms = """
        BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEXDATE:20261201T130000Z\r\nEXDATE:20261202T130000Z\r\nBEGIN:VALARM\r
        ACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nBEGIN:VALARM\r\nX-DATEBOOK-ALERT:1\r\nTRIGGER:-PT1H\r\nEND:VALARM\r
        END:VEVENT\r\nEND:VCALENDAR\r\n
        """

    @Test func datebooksOwnAlarmsAreReplacedAndTheOthersStay() {
        let ours = ICalPatch.alarm(.beforeStart(7200), title: "Dentist")
        #expect(ours == ["BEGIN:VALARM", "X-DATEBOOK-ALERT:1", "ACTION:DISPLAY", "DESCRIPTION:Dentist", "TRIGGER:-PT2H", "END:VALARM"])
        let patched = ICalPatch.apply([ICalPatch.Change(ICalPatch.ownAlarms, lines: ours)], to: Self.alarms, component: "VEVENT")
        #expect(patched == Self.alarms.replacingOccurrences(
            of: "BEGIN:VALARM\r\nX-DATEBOOK-ALERT:1\r\nTRIGGER:-PT1H\r\nEND:VALARM\r\nEND:VEVENT",
            with: ours.joined(separator: "\r\n") + "\r\nEND:VEVENT"))
        #expect(ICalPatch.value(ICalPatch.ownAlarms, in: patched, component: "VEVENT") == ours.joined(separator: "\n"))
        let none = ICalPatch.apply([ICalPatch.Change(ICalPatch.ownAlarms, lines: [])], to: Self.alarms, component: "VEVENT")
        #expect(none.contains("TRIGGER:-PT15M") && !none.contains("X-DATEBOOK-ALERT"))
    }

    @Test func aRepeatedPropertyIsReplacedByAllItsNewLines() {
        let patched = ICalPatch.apply([ICalPatch.Change("EXDATE", lines: ["EXDATE:20261205T130000Z"])], to: Self.alarms, component: "VEVENT")
        #expect(patched.contains("UID:a\r\nEXDATE:20261205T130000Z\r\nBEGIN:VALARM") && !patched.contains("20261201"))
        #expect(ICalPatch.value("EXDATE", in: Self.alarms, component: "VEVENT") == "EXDATE:20261201T130000Z\nEXDATE:20261202T130000Z")
    }

    /// A server's VALARM named by its TRIGGER (written the way datebook writes it, or otherwise:
    /// `VALUE=DURATION`, days as hours) is removed alone; datebook's own and the others stay.
    @Test func aServersAlarmIsRemovedByItsTriggerAlone() {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nBEGIN:VALARM\r\nTRIGGER;VALUE=DURATION:-PT24H\r\nX-A:1\r\nEND:VALARM\r\n"
            + "BEGIN:VALARM\r\nTRIGGER;RELATED=END:-PT10M\r\nEND:VALARM\r\nBEGIN:VALARM\r\nX-DATEBOOK-ALERT:1\r\nTRIGGER:-P1D\r\nEND:VALARM\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let removed = ICalPatch.apply([.init(ICalPatch.serverAlarmsRemoved, lines: ["TRIGGER:-P1D"])], to: text, component: "VEVENT")
        #expect(removed == text.replacingOccurrences(of: "BEGIN:VALARM\r\nTRIGGER;VALUE=DURATION:-PT24H\r\nX-A:1\r\nEND:VALARM\r\n", with: ""))
        let table: [(String, ICalAlarm?)] = [
            ("TRIGGER:-PT15M", .beforeStart(900)), ("TRIGGER;RELATED=END:PT5M", .beforeEnd(-300)), ("TRIGGER:-P1W", .beforeStart(604_800)),
            ("TRIGGER:-P1DT1H30M", .beforeStart(91_800)), ("TRIGGER;VALUE=DATE-TIME:20261224T080000Z", .at(ISOInstant.parse("2026-12-24T08:00:00Z")!)),
            ("TRIGGER:-P15M", nil), ("TRIGGER:-PT", nil), ("TRIGGER:15M", nil), ("TRIGGER;VALUE=DATE-TIME:20261224T080000", nil),
        ]
        for (line, alarm) in table { #expect(ICalPatch.alarm(trigger: line) == alarm, "\(line)") }
    }
}
