import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// `tick(now:)` driven by an injected clock through whole simulated days.
struct SimulatedDayTests {
    @Test func aWholeDayInBerlinSendsEachAlertAndDigestOnceAtItsMoment() throws {
        let h = try Harness(zone: "Europe/Berlin",
                            alerts: AlertPolicy(before: [LeadTime(seconds: 3600), LeadTime(seconds: 600)], channels: ["hook"]),
                            digests: [DigestSchedule(name: "morning", at: TimeOfDay(hour: 7, minute: 0), weekdays: Set(1...5), channels: ["hook"])])
        let standup = try h.add("Standup", at: .instant(utc("2026-12-01T08:00:00Z")))
        let lunch = try h.add("Lunch", at: .instant(utc("2026-12-01T11:30:00Z")), alerts: [LeadTime(seconds: 900)])
        let holiday = try h.add("Holiday", at: .allDay(CalendarDate(year: 2026, month: 12, day: 2)))
        try h.run(from: utc("2026-11-30T23:00:00Z"), to: utc("2026-12-01T23:30:00Z"))
        let expected: [(String, String)] = [
            ("digest:morning:2026-12-01:hook", "2026-12-01T06:00:00Z"),
            (h.alertKey(standup, "1h"), "2026-12-01T07:00:00Z"),
            (h.alertKey(standup, "10m"), "2026-12-01T07:50:00Z"),
            (h.alertKey(lunch, "15m"), "2026-12-01T11:15:00Z"),
            // All-day: relative to local midnight of 2026-12-02 (23:00Z the day before).
            (h.alertKey(holiday, "1h"), "2026-12-01T22:00:00Z"),
            (h.alertKey(holiday, "10m"), "2026-12-01T22:50:00Z"),
        ]
        for (key, time) in expected {
            #expect(h.fake.times(key) == [utc(time)], "\(key)")
            #expect(try h.state(key)?.state == .sent, "\(key)")
        }
        #expect(h.fake.sent.count == expected.count)
    }

    /// (zone, digest time, local date, expected instant): spring-forward gaps move on by the gap,
    /// fall-back repeats take the first.
    static let dstDigests: [(String, String, CalendarDate, String)] = [
        ("Europe/Berlin", "02:30", CalendarDate(year: 2027, month: 3, day: 28), "2027-03-28T01:30:00Z"),
        ("Europe/Berlin", "02:30", CalendarDate(year: 2027, month: 10, day: 31), "2027-10-31T00:30:00Z"),
        ("Europe/Berlin", "07:00", CalendarDate(year: 2027, month: 3, day: 28), "2027-03-28T05:00:00Z"),
        ("America/New_York", "02:30", CalendarDate(year: 2027, month: 3, day: 14), "2027-03-14T07:30:00Z"),
        ("America/New_York", "01:30", CalendarDate(year: 2027, month: 11, day: 7), "2027-11-07T05:30:00Z"),
        ("America/New_York", "07:00", CalendarDate(year: 2027, month: 11, day: 7), "2027-11-07T12:00:00Z"),
    ]

    @Test(arguments: dstDigests)
    func aDigestOnADSTDayIsSentOnceAtTheExpectedInstant(_ zone: String, _ at: String, _ date: CalendarDate, _ expected: String) throws {
        let time = try #require(TimeOfDay(at))
        let h = try Harness(zone: zone, digests: [DigestSchedule(name: "d", at: time, channels: ["hook"])])
        try h.run(from: utc(expected).addingTimeInterval(-6 * 3600), to: utc(expected).addingTimeInterval(6 * 3600), every: 600)
        let key = DigestKey.make(name: "d", date: date, channel: "hook")
        #expect(h.fake.times(key) == [utc(expected)])
        #expect(h.fake.sent.count == 1)
    }

    /// `1d` is one calendar day: same wall time the day before, 23 or 25 hours across a change.
    static let dayBefore: [(String, String, String)] = [
        ("Europe/Berlin", "2027-03-28T07:00:00Z", "2027-03-27T08:00:00Z"),
        ("Europe/Berlin", "2027-10-31T08:00:00Z", "2027-10-30T07:00:00Z"),
        ("America/New_York", "2027-03-14T13:00:00Z", "2027-03-13T14:00:00Z"),
        ("America/New_York", "2027-11-07T14:00:00Z", "2027-11-06T13:00:00Z"),
    ]

    @Test(arguments: dayBefore)
    func aOneDayAlertAcrossDSTFiresAtTheSameWallTimeTheDayBefore(_ zone: String, _ start: String, _ due: String) throws {
        let h = try Harness(zone: zone, alerts: AlertPolicy(before: [LeadTime(days: 1)], channels: ["hook"]))
        let event = try h.add("Trip", at: .instant(utc(start)))
        try h.run(from: utc(due).addingTimeInterval(-3 * 3600), to: utc(start), every: 600)
        #expect(h.fake.times(h.alertKey(event, "1d")) == [utc(due)])
    }

    /// Every half hour of a DST day (and the day before and after) has an event with `1h` and `1d` alerts.
    @Test(arguments: [("Europe/Berlin", "2027-03-28T00:00:00Z"), ("Europe/Berlin", "2027-10-31T00:00:00Z"),
                      ("America/New_York", "2027-03-14T05:00:00Z"), ("America/New_York", "2027-11-07T05:00:00Z")])
    func aWholeDSTDayOfHalfHourlyEventsGetsEveryAlertOnceOnTime(_ zone: String, _ dayStart: String) throws {
        let h = try Harness(zone: zone, alerts: AlertPolicy(before: [LeadTime(days: 1), LeadTime(seconds: 3600)], channels: ["hook"]))
        let starts = (0..<48).map { utc(dayStart).addingTimeInterval(Double($0) * 1800) }
        let events = try starts.enumerated().map { try h.add("Slot \($0)", at: .instant($1)) }
        try h.run(from: utc(dayStart).addingTimeInterval(-26 * 3600), to: utc(dayStart).addingTimeInterval(24 * 3600))
        for event in events {
            let start = event.start.resolved(in: h.calendar)
            #expect(h.fake.times(h.alertKey(event, "1h")) == [start.addingTimeInterval(-3600)], "\(event.title)")
            let dayBefore = try #require(h.calendar.date(byAdding: .day, value: -1, to: start))
            #expect(h.fake.times(h.alertKey(event, "1d")) == [dayBefore], "\(event.title)")
        }
        #expect(h.fake.sent.count == 96)
    }

    @Test func afterThreeDaysDownAlertsWithinLatenessAreSentLateAndOlderOnesSkipped() throws {
        let h = try Harness(zone: "Europe/Berlin")
        var events: [Event] = []
        for day in 1...3 {
            for hour in [3, 9, 15, 21] {
                events.append(try h.add("E\(day)-\(hour)", at: .instant(utc(String(format: "2026-12-%02dT%02d:00:00Z", day, hour)))))
            }
        }
        try h.tick(utc("2026-12-01T00:00:00Z"))
        let report = try h.tick(utc("2026-12-04T00:00:00Z"))
        #expect(report.sentLate == 1)
        #expect(report.skipped == 11)
        #expect(h.fake.sent.map(\.key) == [h.alertKey(events[11], "1h")])
        let late = try #require(try h.state(h.alertKey(events[11], "1h")))
        #expect(late.state == .sentLate)
        #expect(late.reason == "sent 4h0m after due")
        let skipped = try #require(try h.state(h.alertKey(events[0], "1h")))
        #expect(skipped.state == .skipped)
        #expect(skipped.reason?.hasPrefix("late: due 2026-12-01T02:00:00Z") == true)
        #expect(skipped.reason?.hasSuffix("over the lateness of 6h0m") == true)
    }

    @Test func aBackwardClockStepSendsNothingTwice() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 600)], channels: ["hook"]))
        let early = try h.add("Early", at: .instant(utc("2026-12-01T09:30:00Z")))
        let later = try h.add("Later", at: .instant(utc("2026-12-01T10:00:00Z")))
        try h.run(from: utc("2026-12-01T09:40:00Z"), to: utc("2026-12-01T09:55:00Z"))
        try h.run(from: utc("2026-12-01T09:00:00Z"), to: utc("2026-12-01T10:30:00Z"))
        #expect(h.fake.count(h.alertKey(early, "10m")) == 1)
        #expect(h.fake.count(h.alertKey(later, "10m")) == 1)
        #expect(h.fake.sent.count == 2)
    }

    /// Found by the concurrency test: a pass a fraction of a millisecond before the due second
    /// stored its time rounded up and the next pass never planned the alert.
    @Test func aPassJustBeforeTheDueSecondDoesNotHideTheAlert() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 600)], channels: ["hook"]))
        let event = try h.add("Precise", at: .instant(utc("2026-12-01T10:00:00Z")))
        try h.tick(utc("2026-12-01T09:49:59Z").addingTimeInterval(0.9996))
        try h.tick(utc("2026-12-01T09:50:00Z").addingTimeInterval(0.005))
        #expect(h.fake.count(h.alertKey(event, "10m")) == 1)
    }

    @Test func quietHoursDeferAnAlertToTheEndOfTheWindowNeverDropIt() throws {
        var policy = AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"])
        policy.quietHours = QuietHours(start: TimeOfDay(hour: 22, minute: 0), end: TimeOfDay(hour: 7, minute: 0))
        let h = try Harness(zone: "Europe/Berlin", alerts: policy)
        let event = try h.add("Night train", at: .instant(utc("2026-12-01T22:30:00Z")))
        try h.run(from: utc("2026-12-01T20:00:00Z"), to: utc("2026-12-02T08:00:00Z"))
        #expect(h.fake.times(h.alertKey(event, "1h")) == [utc("2026-12-02T06:00:00Z")])
        #expect(try h.state(h.alertKey(event, "1h"))?.state == .sent)
    }
}
