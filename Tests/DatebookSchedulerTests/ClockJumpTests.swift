import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// A clock that was wrong (issue 27): `--now` sequences both ways, as a pass at a pretended time,
/// a VM restored from a snapshot or a mistaken NTP step would make them.
struct ClockJumpTests {
    /// One event a day at 10:00Z from 2026-12-02 for 35 days, alerted 1 h before.
    static func daily(_ h: Harness) throws -> [Event] {
        try (1...35).map { n in
            try h.add("Day \(n)", at: .instant(utc("2026-12-01T10:00:00Z").addingTimeInterval(Double(n) * 86_400)))
        }
    }

    /// What the wrong pass skipped is sent once at its time; what it sent a month early is sent
    /// again at its time (a reminder a month early is lost in practice), marked as such.
    @Test func aPassThirtyDaysAheadThenTheRightClockSendsEveryAlertAtItsTimeAndAgainWhatWentEarly() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let days = try Self.daily(h)
        // Due 2026-12-31T05:00Z: within the lateness of the wrong pass, which sends it a month early.
        let early = try h.add("Early", at: .instant(utc("2026-12-31T06:00:00Z")))
        try h.tick(utc("2026-12-01T08:00:00Z"))
        let wrong = try h.tick(utc("2026-12-31T08:00:00Z"))
        #expect(wrong.skipped == 29)
        #expect(h.log.first { $0.hasPrefix("warning: 30d0h since the last pass (at 2026-12-01T08:00:00Z)") } != nil)
        #expect(try h.state(h.alertKey(days[0], "1h"))?.state == .skipped)

        try h.tick(utc("2026-12-01T08:05:00Z"))
        #expect(h.log.contains("warning: the clock went back 29d23h: the last pass was at 2026-12-31T08:00:00Z, "
                               + "now is 2026-12-01T08:05:00Z; 29 deliveries it skipped as too late planned again; "
                               + "1 delivery it sent early sent again at its due time"), "\(h.log)")
        #expect(try h.state(h.alertKey(early, "1h"))?.state == .pending)
        #expect(try ClockJump.last(in: h.store) == ClockJump(from: utc("2026-12-31T08:00:00Z"), at: utc("2026-12-01T08:05:00Z")))
        try h.run(from: utc("2026-12-01T09:00:00Z"), to: utc("2027-01-06T09:00:00Z"), every: 3600)
        for event in days {
            let key = h.alertKey(event, "1h")
            #expect(h.fake.times(key) == [event.start.resolved(in: h.calendar).addingTimeInterval(-3600)], "\(event.title)")
            #expect(try h.state(key)?.state == .sent, "\(event.title)")
        }
        #expect(h.fake.times(h.alertKey(early, "1h")) == [utc("2026-12-31T08:00:00Z"), utc("2026-12-31T05:00:00Z")])
        let again = try #require(try h.state(h.alertKey(early, "1h")))
        #expect(again.state == .sent)
        #expect(again.reason == Scheduler.sentEarlyReason)
        #expect(try h.store.allDeliveries().allSatisfy { $0.state == .sent })
    }

    /// A pass 3 hours ahead finds an alert due and its channel failing: the retry it scheduled (and
    /// the deadline counted from its attempt) start over from the due time once the clock is back.
    @Test func aRetryScheduledByAPassAtAWrongTimeStartsOverFromItsDueTime() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let dentist = try h.add("Dentist", at: .instant(utc("2026-12-10T10:00:00Z")))
        let key = h.alertKey(dentist, "1h")
        try h.tick(utc("2026-12-10T08:00:00Z"))
        h.fake.outcome = { _, _ in .http(HTTPResponse(status: 503)) }
        try h.tick(utc("2026-12-10T12:00:00Z"))  // wrong: 3 hours ahead
        #expect(try h.state(key)?.attempts == 1)
        h.fake.outcome = { _, _ in .http(HTTPResponse(status: 204)) }
        try h.tick(utc("2026-12-10T08:30:00Z"))
        #expect(h.log.contains { $0.hasSuffix("; the retries of 1 delivery start over from its due time") }, "\(h.log)")
        let replanned = try #require(try h.state(key))
        #expect(replanned.state == .pending)
        #expect(replanned.attempts == 0)
        #expect(replanned.firstAttemptAt == nil)
        #expect(replanned.nextAttemptAt == utc("2026-12-10T09:00:00Z"))
        try h.tick(utc("2026-12-10T09:00:00Z"))
        #expect(h.fake.times(key) == [utc("2026-12-10T12:00:00Z"), utc("2026-12-10T09:00:00Z")])
        #expect(try h.state(key)?.state == .sent)
    }

    /// A live process elsewhere (pid 1 never goes away) claimed an alert at a wrong time 9 days ahead:
    /// once the clock is back, that claim ends a lease later, so the alert goes out at its due time.
    @Test func aClaimTakenAtAWrongTimeEndsALeaseAfterTheClockCameBack() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let dentist = try h.add("Dentist", at: .instant(utc("2026-12-10T10:00:00Z")))
        let key = h.alertKey(dentist, "1h")
        try h.tick(utc("2026-12-01T08:00:00Z"))
        let wrong = utc("2026-12-10T09:00:00Z")
        try h.store.transaction {
            _ = try h.store.plan(LedgerEntry(key: key, kind: .alert, eventID: dentist.id, occurrenceStart: utc("2026-12-10T10:00:00Z"),
                                             lead: "1h", channel: "hook", dueAt: wrong), now: wrong)
            #expect(try h.store.claimDue(now: wrong, lease: 300, claimant: Scheduler.hostName + ":1", limit: 10).count == 1)
            try h.store.setLastPass(wrong)
        }
        try h.tick(utc("2026-12-01T08:05:00Z"))
        #expect(try h.state(key)?.claimedUntil == utc("2026-12-01T08:10:00Z"))
        try h.tick(utc("2026-12-10T09:00:00Z"))
        #expect(h.fake.times(key) == [utc("2026-12-10T09:00:00Z")])
        #expect(try h.state(key)?.state == .sent)
    }

    @Test func aPassFarAfterTheLastWarnsBeforeItSkipsAndOneWithinTheJumpDoesNot() throws {
        let h = try Harness(zone: "Europe/Berlin")
        h.config.alerts.clockJump = 2 * 86_400
        _ = try Self.daily(h)
        try h.tick(utc("2026-12-01T08:00:00Z"))
        try h.tick(utc("2026-12-02T20:00:00Z"))
        #expect(!h.log.contains { $0.hasPrefix("warning:") })
        #expect(try ClockJump.last(in: h.store) == nil)
        let before = h.log.count
        let report = try h.tick(utc("2026-12-05T20:00:00Z"))
        #expect(report.skipped == 3)
        let lines = h.log.dropFirst(before)
        #expect(lines.first?.hasPrefix("warning: 3d0h since the last pass (at 2026-12-02T20:00:00Z)") == true)
        #expect(lines.dropFirst().count == 3 && lines.dropFirst().allSatisfy { $0.hasPrefix("skipped") })
        #expect(try ClockJump.last(in: h.store)?.isBackward == false)
    }

    @Test func aStepBackWithinTheToleranceIsNoClockJumpAndPlansNothingAgain() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let days = try Self.daily(h)
        try h.tick(utc("2026-12-01T08:00:00Z"))
        try h.tick(utc("2026-12-03T20:00:00Z"))  // the machine was off: two alerts are over the lateness
        try h.tick(utc("2026-12-03T19:57:00Z"))  // another host's clock, 3 minutes behind
        #expect(try h.state(h.alertKey(days[0], "1h"))?.state == .skipped)
        #expect(try h.state(h.alertKey(days[1], "1h"))?.state == .skipped)
        #expect(!h.log.contains { $0.contains("clock went back") })
        #expect(try ClockJump.last(in: h.store)?.isBackward == false)  // the 2.5 days off, noted as a jump ahead
        #expect(h.fake.sent.isEmpty)
    }

    /// After the clock went back, what the wrong pass skipped is judged by the right time: an alert
    /// due an hour before it is sent late, one due a day before stays skipped.
    @Test func aClockThatWentBackSendsLateWhatIsWithinTheLatenessOfTheRightTime() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let days = try Self.daily(h)
        try h.tick(utc("2026-12-02T08:00:00Z"))
        try h.tick(utc("2026-12-03T20:00:00Z"))  // wrong: 10 hours ahead
        try h.tick(utc("2026-12-03T10:00:00Z"))
        #expect(try h.state(h.alertKey(days[0], "1h"))?.state == .skipped)  // due 12-02 09:00: a day before
        #expect(try h.state(h.alertKey(days[1], "1h"))?.state == .sentLate)  // due 12-03 09:00: an hour before
        #expect(h.fake.count(h.alertKey(days[1], "1h")) == 1)
        #expect(h.log.contains { $0.hasPrefix("warning: the clock went back 10h0m") && $0.hasSuffix("1 delivery it skipped as too late planned again") })
    }
}
