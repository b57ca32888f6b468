import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Edits, retries, dead and unavailable channels, and claims between processes.
struct LedgerTests {
    static func quietPolicy() -> AlertPolicy {
        var policy = AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"])
        policy.quietHours = QuietHours(start: TimeOfDay(hour: 22, minute: 0), end: TimeOfDay(hour: 7, minute: 0))
        return policy
    }

    @Test func aMovedEventCancelsItsOldPendingAlertAndGetsOneForItsNewTime() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: Self.quietPolicy())
        var event = try h.add("Night train", at: .instant(utc("2026-12-01T22:30:00Z")))
        let oldKey = h.alertKey(event, "1h")
        try h.tick(utc("2026-12-01T21:30:00Z"))
        #expect(try h.state(oldKey)?.state == .pending)  // deferred past the quiet hours
        event.start = .instant(utc("2026-12-01T19:00:00Z"))
        try h.store.save(event)
        try h.run(from: utc("2026-12-01T21:35:00Z"), to: utc("2026-12-02T08:00:00Z"))
        #expect(try h.state(oldKey)?.state == .cancelled)
        #expect(try h.state(oldKey)?.reason == "event moved")
        #expect(h.fake.count(oldKey) == 0)

        let h2 = try Harness(zone: "Europe/Berlin")
        var meeting = try h2.add("Meeting", at: .instant(utc("2026-12-01T12:00:00Z")))
        try h2.tick(utc("2026-12-01T09:00:00Z"))
        meeting.start = .instant(utc("2026-12-01T15:00:00Z"))
        try h2.store.save(meeting)
        try h2.run(from: utc("2026-12-01T09:05:00Z"), to: utc("2026-12-01T16:00:00Z"))
        #expect(h2.fake.sent.map(\.key) == [h2.alertKey(meeting, "1h")])
        #expect(h2.fake.sent.first?.at == utc("2026-12-01T14:00:00Z"))
    }

    @Test func aDeletedEventsPendingAlertIsCancelled() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: Self.quietPolicy())
        let event = try h.add("Late show", at: .instant(utc("2026-12-01T22:30:00Z")))
        try h.tick(utc("2026-12-01T21:30:00Z"))
        try h.store.delete(id: event.id)
        try h.run(from: utc("2026-12-01T21:35:00Z"), to: utc("2026-12-02T08:00:00Z"))
        #expect(try h.state(h.alertKey(event, "1h"))?.state == .cancelled)
        #expect(try h.state(h.alertKey(event, "1h"))?.reason == "event deleted")
        #expect(h.fake.sent.isEmpty)
    }

    @Test func aPendingAlertWhoseLeadTimeWasRemovedIsCancelled() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: Self.quietPolicy())
        var event = try h.add("Late show", at: .instant(utc("2026-12-01T22:30:00Z")), alerts: [LeadTime(seconds: 3600)])
        try h.tick(utc("2026-12-01T21:30:00Z"))
        event.alerts = [LeadTime(seconds: 600)]
        try h.store.save(event)
        try h.tick(utc("2026-12-01T21:35:00Z"))
        #expect(try h.state(h.alertKey(event, "1h"))?.state == .cancelled)
        #expect(try h.state(h.alertKey(event, "1h"))?.reason == "lead time 1h no longer set for this event")
    }

    @Test func cancelWhenDoneRecordsTheAlertsOfCompletedEventsAsCancelled() throws {
        var policy = AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"])
        policy.cancelWhenDone = true
        let h = try Harness(zone: "Europe/Berlin", alerts: policy)
        let done = try h.add("Packed", at: .instant(utc("2026-12-01T12:00:00Z")), tasks: [EventTask(id: "a", text: "bag", status: .done)])
        let open = try h.add("Unpacked", at: .instant(utc("2026-12-01T12:00:00Z")), tasks: [EventTask(id: "a", text: "bag")])
        try h.run(from: utc("2026-12-01T10:00:00Z"), to: utc("2026-12-01T12:00:00Z"))
        #expect(try h.state(h.alertKey(done, "1h"))?.state == .cancelled)
        #expect(try h.state(h.alertKey(done, "1h"))?.reason == "all tasks done")
        #expect(h.fake.sent.map(\.key) == [h.alertKey(open, "1h")])
    }

    @Test func aDeadChannelIsRetriedWithBackoffWhileTheOthersAreSentAndFinallyFails() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook", "dead"]))
        h.fake.outcome = { path, _ in .http(HTTPResponse(status: path == "/dead" ? 503 : 204)) }
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        let first = try h.tick(utc("2026-12-01T11:00:00Z"))
        #expect(first.sent == 1)
        #expect(first.retriesRemaining == 1)
        let dead = try #require(try h.state(h.alertKey(event, "1h", channel: "dead")))
        #expect(dead.state == .pending)
        #expect(dead.nextAttemptAt == utc("2026-12-01T11:00:15Z"))  // 30 s window × jitter 0.5
        #expect(dead.reason?.contains("HTTP 503") == true)
        try h.run(from: utc("2026-12-01T11:01:00Z"), to: utc("2026-12-01T18:00:00Z"), every: 60)
        let final = try #require(try h.state(h.alertKey(event, "1h", channel: "dead")))
        #expect(final.state == .failed)
        #expect(final.reason?.contains("HTTP 503 (server error); next retry would pass the delivery deadline") == true)
        // Retried until the lateness (6 h after the first attempt), the last try at that moment.
        let deadKey = h.alertKey(event, "1h", channel: "dead")
        #expect(h.fake.times(deadKey).last == utc("2026-12-01T17:00:00Z"))
        #expect(final.attempts == h.fake.count(deadKey))
        #expect(h.fake.count(h.alertKey(event, "1h")) == 1)
    }

    @Test func aRejectedDeliveryFailsAtOnceAndAMissingSecretFailsNamingTheChannelNotTheSecret() throws {
        let h = try Harness(zone: "Europe/Berlin", alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["dead", "locked"]))
        h.fake.outcome = { _, _ in .http(HTTPResponse(status: 404)) }
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        let report = try h.tick(utc("2026-12-01T11:00:00Z"))
        #expect(report.failed == 2)
        #expect(report.retriesRemaining == 0)
        #expect(try h.state(h.alertKey(event, "1h", channel: "dead"))?.reason == "HTTP 404 (webhook deleted?)")
        let locked = try #require(try h.state(h.alertKey(event, "1h", channel: "locked"))?.reason)
        #expect(locked == "channel unavailable: slack 'locked': environment variable DATEBOOK_TEST_UNSET_URL is not set")
        #expect(!h.log.joined().contains("s3cr3t"))
    }

    /// Two passes of one daemon share a claimant (`host:pid`): the lease a pass gave a claim is its
    /// fencing token, so a pass whose claims another pass took over after their lease ran out (a
    /// batch behind a slow channel) starts none of them, while the other pass is still sending.
    @Test(arguments: [false, true])
    func aPassStartsNothingAnotherPassOfTheSameProcessTookOverAfterItsLease(postgres: Bool) throws {
        let harness = try Harness(zone: "UTC")
        let store: any PlannerStore = postgres ? try StoreOpener.open(try TestPostgres.shared().makeDatabase()) : harness.store
        let now = utc("2026-12-01T11:00:00Z")
        let claimant = Scheduler.hostName + ":\(getpid())"
        let keys = (0..<3).map { "digest:fence-\($0):2026-12-01:hook" }
        let claims = try store.transaction { () -> [LedgerEntry] in
            _ = try store.plan(keys.map { LedgerEntry(key: $0, kind: .digest, digest: "fence", digestDate: "2026-12-01", channel: "hook", dueAt: now) },
                               now: now)
            return try store.claimDue(now: now, lease: 300, claimant: claimant, limit: 10)
        }
        #expect(claims.count == 3)
        // Within its lease the pass starts its own claims, and renews their leases.
        let first = try store.startSending([claims[0]], claimant: claimant, now: now.addingTimeInterval(1), lease: 300)
        #expect(first == [keys[0]])
        #expect(try store.delivery(key: keys[0])?.claimedUntil == now.addingTimeInterval(301))
        // Another pass of the same process takes the other two over once their leases ran out (the first's holds).
        let later = now.addingTimeInterval(300.5)
        let taken = try store.transaction { () -> [LedgerEntry] in
            try store.releaseAbandoned(now: later) { _ in false }
            return try store.claimDue(now: later, lease: 300, claimant: claimant, limit: 10)
        }
        #expect(Set(taken.map(\.key)) == Set(keys.dropFirst()))
        // The first pass, held up, asks at a time its leases seem to hold: the tokens differ, nothing starts.
        #expect(try store.startSending(Array(claims.dropFirst()), claimant: claimant, now: now.addingTimeInterval(2), lease: 300).isEmpty)
        // The pass that holds them starts them; another claimant starts nothing.
        #expect(try store.startSending(taken, claimant: "elsewhere:1", now: later, lease: 300).isEmpty)
        #expect(try store.startSending(taken, claimant: claimant, now: later, lease: 300) == Set(keys.dropFirst()))
        // A lease that ran out starts nothing, though nobody took the claim over yet.
        let renewed = try #require(try store.delivery(key: keys[1]))
        #expect(try store.startSending([renewed], claimant: claimant, now: later.addingTimeInterval(301), lease: 300).isEmpty)
    }

    @Test func aSecondProcessCannotClaimWhatTheFirstClaimedUntilItIsGoneOrItsLeaseEnds() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        let key = h.alertKey(event, "1h")
        let now = utc("2026-12-01T11:00:00Z")
        // Another live process (pid 1) claimed it: nobody else sends it while its lease holds.
        try h.store.transaction {
            _ = try h.store.plan(LedgerEntry(key: key, kind: .alert, eventID: event.id, occurrenceStart: utc("2026-12-01T12:00:00Z"),
                                             lead: "1h", channel: "hook", dueAt: now), now: now)
            #expect(try h.store.claimDue(now: now, lease: 300, claimant: Scheduler.hostName + ":1").count == 1)
        }
        let other = try Store(path: h.store.path)
        let second = Scheduler(store: other, config: h.config, calendar: h.calendar, deliverer: h.fake)
        h.fake.now = now
        try second.tick(now: now.addingTimeInterval(60))
        #expect(h.fake.count(key) == 0)
        try second.tick(now: now.addingTimeInterval(301))
        #expect(h.fake.count(key) == 1)
        #expect(try h.state(key)?.attempts == 2)
        // A claim by a process that no longer exists is taken over at once.
        let event2 = try h.add("Retro", at: .instant(utc("2026-12-01T13:00:00Z")))
        let key2 = h.alertKey(event2, "1h")
        let later = utc("2026-12-01T12:00:00Z")
        try h.store.transaction {
            _ = try h.store.plan(LedgerEntry(key: key2, kind: .alert, eventID: event2.id, occurrenceStart: utc("2026-12-01T13:00:00Z"),
                                             lead: "1h", channel: "hook", dueAt: later), now: later)
            _ = try h.store.claimDue(now: later, lease: 300, claimant: Scheduler.hostName + ":999999")
        }
        try second.tick(now: later.addingTimeInterval(1))
        #expect(h.fake.count(key2) == 1)
        #expect(try h.state(key2)?.state == .sent)
    }

    /// A store locked by another process for longer than the busy timeout (a long import) holds
    /// the next transfer back until the outcome is recorded, instead of failing the pass.
    @Test func anOutcomeIsRecordedAfterTheStoreWasLockedLongerThanTheBusyTimeout() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let events = try (0..<3).map { try h.add("Review \($0)", at: .instant(utc("2026-12-01T12:00:00Z"))) }
        let locked = DispatchSemaphore(value: 0)
        let path = h.store.path
        var transfers = 0
        h.fake.beforeTransfer = {
            transfers += 1
            guard transfers == 2 else { return }
            // Another process takes the write lock for 6 s, past the 5 s busy timeout.
            Thread.detachNewThread {
                guard let other = try? Store(path: path) else {
                    locked.signal()
                    return
                }
                try? other.transaction {
                    locked.signal()
                    Thread.sleep(forTimeInterval: 6)
                }
            }
            locked.wait()
        }
        let report = try h.tick(utc("2026-12-01T11:00:00Z"))
        #expect(report.sent == events.count)
        #expect(h.fake.sent.count == events.count)
        #expect(try events.allSatisfy { try h.state(h.alertKey($0, "1h"))?.state == .sent })
    }
}
