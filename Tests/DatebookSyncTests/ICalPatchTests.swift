import DatebookCore
import DatebookSync
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
}
