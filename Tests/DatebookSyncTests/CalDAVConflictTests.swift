import DatebookCore
import DatebookStore
@testable import DatebookSync
import DatebookTestSupport
import Foundation
import Testing

/// The later change wins a conflict (issue 31): each field of a CalDAV event is timed when it is
/// saved here (`CalDAVEdits`), and a 412's merge compares that time with the server's
/// `LAST-MODIFIED` (else `DTSTAMP`) property by property.
struct CalDAVConflictTests {
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }

    static let base = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20261101T100000Z\r\nSUMMARY:Dentist\r\n"
        + "DESCRIPTION:old\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    /// The server's copy: the title changed, stamped `stamp` (`LAST-MODIFIED:…` or `DTSTAMP:…`).
    static func server(_ stamp: String) -> String {
        base.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (phone)")
            .replacingOccurrences(of: "DTSTAMP:20261101T100000Z", with: stamp.hasPrefix("DTSTAMP") ? stamp : "DTSTAMP:20261101T100000Z\r\n" + stamp)
    }

    @Test(arguments: [
        // (the server's stamp, when datebook's title was changed (nil: not timed), who keeps SUMMARY)
        ("LAST-MODIFIED:20261130T080002Z", "2026-11-30T08:00:00Z", "server"),
        ("LAST-MODIFIED:20261130T080000Z", "2026-11-30T08:00:02Z", "datebook"),
        ("LAST-MODIFIED:20261130T080000Z", "2026-11-30T08:00:00Z", "datebook"),  // a tie: the change being sent
        ("DTSTAMP:20261130T080005Z", "2026-11-30T08:00:00Z", "server"),  // no LAST-MODIFIED: its DTSTAMP
        ("LAST-MODIFIED:20261130T080002Z", nil, "datebook"),  // not timed: made at the sync (08:10)
    ] as [(String, String?, String)])
    func theLaterChangeOfAPropertyWins(_ stamp: String, _ here: String?, _ winner: String) {
        let changes = [ICalPatch.Change("SUMMARY", "SUMMARY:Dentist (datebook)"), ICalPatch.Change("DESCRIPTION", "DESCRIPTION:new")]
        let merged = CalDAVSync.merge(changes, base: Self.base, server: Self.server(stamp), component: "VEVENT",
                                      now: Self.utc("2026-11-30T08:10:00Z")) { name in
            name == "SUMMARY" ? here.map(Self.utc) : nil
        }
        let summary = merged.changes.first { $0.name == "SUMMARY" }
        #expect(summary == (winner == "datebook" ? changes[0] : nil))
        // The description was changed here only: it goes up whoever wins the title.
        #expect(merged.changes.contains(changes[1]))
        #expect(merged.lost.count == 1)
        let kept = winner == "server" ? "the server's is kept, datebook's 'SUMMARY:Dentist (datebook)' lost"
            : "datebook's is kept, the server's 'SUMMARY:Dentist (phone)' lost"
        #expect(merged.lost.first?.hasPrefix("SUMMARY changed on both sides; " + kept + " (changed here ") == true, "\(merged.lost)")
    }

    /// Each field changed by a save is timed at the store's `editTime`, one by one, and only for an
    /// event of a CalDAV calendar; the sync's own writes time nothing.
    @Test(arguments: Backend.allCases)
    func aSaveTimesEachFieldItChangesOfACalDAVEvent(_ backend: Backend) throws {
        let store = try backend.open()
        let calendar = CalDAVCalendar(account: "home", url: "http://127.0.0.1:9/ann/personal/", displayName: "Personal", components: ["VEVENT"])
        try store.addCalDAVAccount(CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:X"),
                                   calendars: [calendar])
        var event = Event(id: "e1", title: "Dentist", start: .instant(Self.utc("2026-12-03T13:00:00Z")), timeZone: "UTC",
                          symbol: .star, color: .red, tasks: [EventTask(id: "t1", text: "Card", status: .todo)])
        try store.save(event, into: calendar, uid: "dentist-1")
        var own = Event(id: "e2", title: "Lunch", start: .instant(Self.utc("2026-12-03T12:00:00Z")), timeZone: "UTC", symbol: .star, color: .red)
        try store.save(own)
        #expect(try store.calDAVEditTimes(of: ["e1", "e2"]).isEmpty, "a new event has no field changed")

        store.editTime = Self.utc("2026-11-30T08:00:00Z")
        event.title = "Dentist at 3"
        event.tasks[0].status = .doing
        try store.save(event)
        own.title = "Long lunch"
        try store.save(own)
        store.editTime = Self.utc("2026-11-30T08:05:00Z")
        event.notes = "Bring the card"
        try store.transaction { try store.saveInTransaction(event) }
        let times = try store.calDAVEditTimes(of: ["e1", "e2"])
        #expect(times == ["e1": ["SUMMARY": Self.utc("2026-11-30T08:00:00Z"), "VTODO t1 STATUS": Self.utc("2026-11-30T08:00:00Z"),
                                 "DESCRIPTION": Self.utc("2026-11-30T08:05:00Z")]])
        #expect(CalDAVSync.editField("STATUS", task: "t1") == "VTODO t1 STATUS" && CalDAVSync.editField("COMPLETED", task: "t1") == "VTODO t1 STATUS")
        #expect(CalDAVSync.editField("DURATION", task: nil) == "DTEND" && CalDAVSync.editField(ICalPatch.ownAlarms, task: nil) == "VALARM")

        // Gone with its event once a pull rebuilt the calendar without it.
        try store.applyCalDAVChanges(to: calendar, changed: [], removed: [], events: ICSImport(events: [], uids: [:], warnings: []), syncToken: "t", ctag: nil)
        #expect(try store.calDAVEditTimes(of: ["e1"]).isEmpty)
    }
}
