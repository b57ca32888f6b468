import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// Long outages (issue 27): a channel answering 500 for a simulated hour or more, with passes every
/// minute of the injected clock. Retries last until `alerts.lateness` with windows of at most 30 min.
struct OutageTests {
    /// (outage minutes, jitter): every jitter, up to the worst (windows used to their end).
    static let outages: [(Int, Double)] = [(10, 0.5), (30, 0.999), (60, 0.999), (60, 0.01), (300, 0.999)]

    @Test(arguments: outages)
    func anAlertOutlastsAnOutageShorterThanTheLatenessAndIsSentOnceAfterIt(_ minutes: Int, _ jitter: Double) throws {
        let h = try Harness(zone: "Europe/Berlin")
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        let due = utc("2026-12-01T11:00:00Z")
        let back = due.addingTimeInterval(Double(minutes) * 60)
        h.fake.outcome = { [unowned fake = h.fake] _, _ in .http(HTTPResponse(status: fake.now < back ? 500 : 204)) }
        var now = due
        var codes: [TickReport] = []
        while now <= due.addingTimeInterval(7 * 3600) {
            h.fake.now = now
            codes.append(try h.scheduler(random: { jitter }).tick(now: now))
            now = now.addingTimeInterval(60)
        }
        let key = h.alertKey(event, "1h")
        let attempts = h.fake.times(key)
        let entry = try #require(try h.state(key))
        #expect(entry.state == .sentLate)
        #expect(attempts.filter { $0 >= back }.count == 1)
        #expect(attempts.last.map { $0.timeIntervalSince(back) <= 1800 + 60 } == true)  // at most one window after it ends
        #expect(zip(attempts, attempts.dropFirst()).allSatisfy { $1.timeIntervalSince($0) <= 1800 + 60 })
        #expect(codes.allSatisfy { $0.gaveUp == 0 && $0.failed == 0 })
    }

    @Test func anOutageLongerThanTheLatenessEndsAsFailedAtTheDeadlineAndThatPassSaysItGaveUp() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        h.fake.outcome = { _, _ in .http(HTTPResponse(status: 503)) }
        var gaveUp: [Date] = []
        var now = utc("2026-12-01T11:00:00Z")
        while now <= utc("2026-12-01T18:00:00Z") {
            if try h.tick(now).gaveUp > 0 { gaveUp.append(now) }
            now = now.addingTimeInterval(60)
        }
        let key = h.alertKey(event, "1h")
        #expect(try h.state(key)?.state == .failed)
        #expect(h.fake.times(key).last == utc("2026-12-01T17:00:00Z"))
        #expect(gaveUp == [utc("2026-12-01T17:00:00Z")])
    }

    /// An email whose whole message went out but whose end the server never answered: recorded
    /// `sent` with an "uncertain" reason (status lists it), never sent again.
    @Test func aDeliveryTheServerNeverAnsweredIsRecordedUncertainAndNotSentAgain() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let event = try h.add("Review", at: .instant(utc("2026-12-01T12:00:00Z")))
        h.fake.outcome = { _, _ in
            .transport(TransportError(kind: .unanswered, destination: "smtp://127.0.0.1:25"))
        }
        try h.run(from: utc("2026-12-01T11:00:00Z"), to: utc("2026-12-01T13:00:00Z"), every: 60)
        let key = h.alertKey(event, "1h")
        #expect(h.fake.count(key) == 1)
        let entry = try #require(try h.state(key))
        #expect(entry.state == .sent)
        #expect(entry.reason == "uncertain: smtp://127.0.0.1:25: sent, but the server did not answer; "
                + "not sent again (the server may have it): check that it arrived")
    }
}
