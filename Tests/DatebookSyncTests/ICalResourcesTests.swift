import DatebookSync
import Foundation
import Testing

struct ICalResourcesTests {
    @Test func combiningKeepsEveryComponentAndFoldedLineAndDropsCalendarProperties() {
        let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Long\r\n  title\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let todo = "BEGIN:VCALENDAR\nVERSION:2.0\nMETHOD:PUBLISH\nBEGIN:VTODO\nUID:b\nBEGIN:VALARM\nACTION:DISPLAY\nEND:VALARM\nEND:VTODO\nEND:VCALENDAR\n"
        let combined = String(decoding: ICalResources.combine([event, todo]), as: UTF8.self)
        #expect(combined == """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//CalDAV//EN\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Long\r\n  title\r
            END:VEVENT\r\nBEGIN:VTODO\r\nUID:b\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n
            """)
    }

    /// Lines are worked on as bytes: names in either case, empty lines dropped, a tab folds too,
    /// and every other byte (non-ASCII text, a lone CR) goes through as it was.
    @Test func combiningKeepsTheBytesOfEachLine() {
        let event = "begin:VCALENDAR\r\nbegin:vevent\r\nUID:é-1\r\n\r\nSUMMARY:Café\rbar ☕\r\n\tmore\r\nend:vevent\r\nEND:VCALENDAR"
        let combined = String(decoding: ICalResources.combine([event]), as: UTF8.self)
        #expect(combined == "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//datebook//CalDAV//EN\r\nbegin:vevent\r\nUID:é-1\r\n"
            + "SUMMARY:Café\rbar ☕\r\n\tmore\r\nend:vevent\r\nEND:VCALENDAR\r\n")
        #expect(ICalResources.uid(of: event) == "é-1")
        #expect(ICalResources.uid(of: "UID:ab\r\n\tc☕\r\nSUMMARY:x") == "abc☕")
    }

    @Test func uidIsUnfoldedAndMayHaveParameters() {
        #expect(ICalResources.uid(of: "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:abc\r\n def\r\nEND:VEVENT\r\n") == "abcdef")
        #expect(ICalResources.uid(of: "BEGIN:VTODO\nuid;X-A=1:xyz\nEND:VTODO\n") == "xyz")
        #expect(ICalResources.uid(of: "BEGIN:VTODO\nEND:VTODO\n") == nil)
    }
}
