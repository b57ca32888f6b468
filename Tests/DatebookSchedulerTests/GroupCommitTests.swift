import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The fan-out's group commit (issue 33): when outcomes are written and which claims are fenced,
/// as a state machine, and the ledger it leaves beside the plain path's (a write at every turn).
struct GroupCommitTests {
    static let start = utc("2026-12-01T11:00:00Z")

    static func commit(claims: Int = 100, hold: Int = 4, holdTime: TimeInterval = 0.05, ahead: Int = 4) -> GroupCommit {
        GroupCommit(claims: claims, holdCount: hold, holdTime: holdTime, fenceAhead: ahead, fenceLife: 1)
    }

    @Test func aFenceTakesTheNextClaimsAndTheyStartWithoutAWrite() {
        var groups = Self.commit()
        let fence = groups.write(starting: [0, 1], at: Self.start)
        #expect(fence == [0, 1, 2, 3, 4, 5])
        groups.written(fenced: fence ?? [], started: Set(fence ?? []), at: Self.start)
        #expect(groups.write(starting: [2, 3], at: Self.start.addingTimeInterval(0.01)) == nil)
        #expect(groups.allowed([2, 3], at: Self.start.addingTimeInterval(0.01)) == [2, 3])
        // Past the fenced ones the next fence goes on from there.
        #expect(groups.write(starting: [6], at: Self.start.addingTimeInterval(0.02)) == [6, 7, 8, 9, 10])
    }

    @Test func outcomesAreHeldUntilTheCountOrTheTimeIsReached() {
        var groups = Self.commit()
        let fence = groups.write(starting: [0], at: Self.start) ?? []
        groups.written(fenced: fence, started: Set(fence), at: Self.start)
        let table: [(held: Int, after: TimeInterval, writes: Bool)] = [
            (1, 0.01, false), (3, 0.01, false), (4, 0.01, true), (1, 0.06, true), (0, 5, false),
        ]
        for row in table {
            var copy = groups
            copy.hold(row.held, at: Self.start)
            #expect((copy.write(starting: [], at: Self.start.addingTimeInterval(row.after)) != nil) == row.writes, "\(row)")
        }
        var progress = groups
        progress.hold(1, at: Self.start)
        #expect(progress.write(starting: [], at: Self.start, mustWrite: true) == [])
    }

    @Test func aFenceOlderThanItsLifeIsTakenAgainAndARefusedClaimNeverStarts() {
        var groups = Self.commit()
        let fence = groups.write(starting: [0], at: Self.start) ?? []
        // Claim 3 was taken over by another process.
        groups.written(fenced: fence, started: Set(fence).subtracting([3]), at: Self.start)
        #expect(groups.allowed([1, 3], at: Self.start) == [1])
        #expect(groups.write(starting: [3], at: Self.start) == nil)
        // Held up for 2 s (SIGSTOP): claim 2's fence is stale and is checked again before it starts.
        let later = Self.start.addingTimeInterval(2)
        #expect(groups.allowed([2], at: later).isEmpty)
        #expect(groups.write(starting: [2], at: later)?.first == 2)
    }

    @Test func theGroupCommitLeavesTheLedgerThePlainPathLeaves() throws {
        var ledgers: [[String]] = []
        for hold in [0, 32] {
            let h = try Harness(zone: "Europe/Berlin")
            for index in 0..<40 { try h.add("Stand-up \(index)", at: .instant(utc("2026-12-01T12:00:00Z"))) }
            h.fake.outcome = { _, key in key.hasSuffix("7") ? .http(HTTPResponse(status: 500)) : .http(HTTPResponse(status: 204)) }
            var options = Scheduler.Options()
            options.outcomeHold = hold
            let scheduler = Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake,
                                      random: { 0.5 }, options: options)
            let report = try scheduler.tick(now: Self.start)
            #expect(report.sent + report.retried == 40)
            ledgers.append(try h.store.allDeliveries().map { "\($0.key) \($0.state) \($0.attempts) \($0.reason ?? "")" })
            #expect(h.fake.sent.count == 40)
        }
        #expect(ledgers[0] == ledgers[1])
    }

    /// A crash can send again what was in flight and what was held: before the deliverer starts a
    /// transfer, at most `outcomeHold` deliveries accepted earlier are not committed yet.
    @Test func atMostTheHeldOutcomesAreUncommittedWhenATransferStarts() throws {
        let h = try Harness(zone: "Europe/Berlin")
        let events = try (0..<20).map { try h.add("Stand-up \($0)", at: .instant(utc("2026-12-01T12:00:00Z"))) }
        let observer = try Store(path: h.store.path, readOnly: true)
        var unrecorded: [Int] = []
        h.fake.beforeTransfer = {
            let accepted = Set(h.fake.sent.map(\.key))
            let recorded = (try? observer.allDeliveries().filter { $0.state == .sent }.map(\.key)) ?? []
            unrecorded.append(accepted.subtracting(recorded).count)
        }
        var options = Scheduler.Options()
        options.outcomeHold = 4
        options.outcomeHoldTime = 3600
        let scheduler = Scheduler(store: h.store, config: h.config, calendar: h.calendar, deliverer: h.fake, options: options)
        let report = try scheduler.tick(now: Self.start)
        #expect(report.sent == events.count)
        #expect(unrecorded.count == events.count)
        #expect(unrecorded.max() == 3, "accepted but not yet committed before a transfer: \(unrecorded)")
        #expect(scheduler.inFlightBound == h.fake.maxInFlight + 4)
    }
}
