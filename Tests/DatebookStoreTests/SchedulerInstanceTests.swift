import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The schedulers table and who settled each delivery, on both backends.
struct SchedulerInstanceTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

    @Test(arguments: Backend.allCases)
    func schedulersAreRecordedRefreshedListedWhileFreshAndRemoved(_ backend: Backend) throws {
        let store = try backend.open()
        let started = Self.now.addingTimeInterval(-3600)
        var first = SchedulerInstance(host: "kitchen", pid: 41, version: "0.1.0", started: started, lastSeen: started)
        let second = SchedulerInstance(host: "attic", pid: 7, version: "0.1.0", started: started, lastSeen: Self.now.addingTimeInterval(-30))
        try store.recordScheduler(first)
        try store.recordScheduler(second)
        let window = Self.now.addingTimeInterval(-SchedulerInstance.staleAfter)
        #expect(try store.schedulers(seenSince: window) == [second], "the first one's heartbeat is an hour old")
        first.lastSeen = Self.now
        try store.recordScheduler(first)
        #expect(try store.schedulers(seenSince: window) == [second, first])
        try store.removeScheduler(host: "attic", pid: 7)
        #expect(try store.schedulers(seenSince: .distantPast) == [first])
    }

    @Test(arguments: Backend.allCases)
    func theLedgerKeepsWhoSettledEachDelivery(_ backend: Backend) throws {
        let store = try backend.open()
        for key in ["a", "b"] {
            try store.plan(LedgerEntry(key: key, kind: .digest, digest: "morning", channel: "c", dueAt: Self.now), now: Self.now)
        }
        let claimed = try store.transaction { try store.claimDue(now: Self.now, lease: 60, claimant: "kitchen:41") }
        #expect(claimed.map(\.key) == ["a", "b"])
        #expect(claimed.allSatisfy { $0.settledBy == nil })
        try store.transaction {
            try store.settle(key: "a", claimant: "kitchen:41", as: .sent, reason: nil, nextAttempt: nil, now: Self.now)
            try store.settle(key: "b", claimant: "attic:7", as: .sent, reason: nil, nextAttempt: nil, now: Self.now)
        }
        #expect(try store.delivery(key: "a")?.settledBy == "kitchen:41")
        #expect(try store.delivery(key: "a")?.claimedBy == nil)
        #expect(try store.delivery(key: "b")?.settledBy == nil, "not its claim: unchanged")
        #expect(try store.delivery(key: "b")?.state == .sending)
    }
}
