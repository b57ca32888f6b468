import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

private let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

/// The ledger written once (SQLStore+Ledger.swift) on both backends, with batches that take several
/// statements (`SQLBatch`: 300 plans are 256 + 32 + 8 + 4; on PostgreSQL 300 outcomes are one statement
/// over column arrays) and the parts no other suite runs on both.
struct LedgerBatchTests {
    static func entries(_ count: Int) -> [LedgerEntry] {
        (0..<count).map { n in
            LedgerEntry(key: String(format: "k%04d", n), kind: .alert, eventID: "e\(n % 7)", occurrenceStart: now,
                        lead: "1h", channel: "team", dueAt: now.addingTimeInterval(Double(n)))
        }
    }

    @Test func eachBatchSizeIsOneTextWithItsParametersNumberedInOrder() {
        let batch = SQLBatch(shared: 1, columns: [.value, .bigint, .verbatim("$1")]) { "INSERT INTO t (a, b, c) \($0)" }
        #expect(batch.texts.count == SQLBatch.sizes.count)
        #expect(batch.texts.last == "INSERT INTO t (a, b, c) VALUES ($2, CAST($3 AS BIGINT), $1)")
        #expect(batch.texts[batch.texts.count - 2]
                == "INSERT INTO t (a, b, c) VALUES ($2, CAST($3 AS BIGINT), $1), ($4, CAST($5 AS BIGINT), $1)")
        #expect(batch.parameters == 2)
        // A verbatim column's type would be unknown in an array's SELECT: that batch has no array form.
        #expect(batch.arrays == nil)
    }

    @Test func aBatchOfParametersIsOneTextOverOneArrayPerColumn() {
        let batch = SQLBatch(shared: 2, columns: [.value, .bigint]) { "WITH rows (a, b) AS (\($0)) SELECT a, b FROM rows" }
        #expect(batch.arrays == "WITH rows (a, b) AS (SELECT * FROM unnest(CAST($3 AS TEXT[]), CAST($4 AS BIGINT[]))) SELECT a, b FROM rows")
    }

    @Test(arguments: Backend.allCases)
    func manyPlansFencesOutcomesAndProgressTakeSeveralStatementsAndLoseNone(_ backend: Backend) throws {
        let store = try backend.open()
        let entries = Self.entries(300)
        // A repeated key in another statement of the same batch is planned once.
        #expect(try store.plan(entries + [entries[3]], now: now) == Set(entries.map(\.key)))
        #expect(try store.plan(Array(entries[290...]) + Self.entries(301)[300...], now: now) == ["k0300"])
        let claimed = try store.transaction { try store.claimDue(now: now.addingTimeInterval(400), lease: 60, claimant: "a:1", limit: 300) }
        #expect(claimed.map(\.key) == entries.map(\.key))
        // The fence: a claim with another lease end (a stale token) is not started.
        var tokens = claimed
        tokens[5].claimedUntil = now
        let started = try store.startSending(tokens, claimant: "a:1", now: now.addingTimeInterval(401), lease: 60)
        #expect(started == Set(claimed.map(\.key)).subtracting([claimed[5].key]))
        #expect(try store.delivery(key: claimed[0].key)?.claimedUntil == now.addingTimeInterval(461))
        #expect(try store.startSending(claimed, claimant: "b:2", now: now.addingTimeInterval(401), lease: 60).isEmpty)

        try store.recordProgress(claimed.prefix(3).map { DeliveryProgressRecord(key: $0.key, progress: "parts 1") }, claimant: "a:1")
        try store.recordProgress([DeliveryProgressRecord(key: claimed[3].key, progress: "not mine")], claimant: "b:2")
        #expect(try store.delivery(key: claimed[2].key)?.progress == "parts 1")
        #expect(try store.delivery(key: claimed[3].key)?.progress == nil)

        // What an array literal must quote (PostgreSQL's column arrays) comes back as written, beside NULLs.
        let awkward = #" "quoted", {braced} \ NULL"#
        let outcomes = claimed.dropLast().enumerated().map { n, claim in
            Settlement(key: claim.key, state: n % 2 == 0 ? .sent : .failed, reason: n % 2 == 0 ? nil : "gone \(n)" + awkward)
        }
        try store.settle(outcomes, claimant: "a:1", now: now.addingTimeInterval(402))
        let rows = try store.allDeliveries()
        #expect(rows.filter { $0.state == .sent }.count == 150)
        #expect(rows.filter { $0.state == .failed }.map(\.reason) == (0..<149).map { "gone \($0 * 2 + 1)" + awkward })
        #expect(rows.filter { $0.state.isSettled }.allSatisfy { $0.settledBy == "a:1" && $0.claimedBy == nil })
        #expect(try store.settledDeliveries(since: now, excluding: [.failed]).count == 150)
        #expect(try store.openDeliveries().map(\.key) == ["k0299", "k0300"])
    }

    /// A claimant known to be gone loses its claims at once; others keep theirs until the lease ends.
    @Test(arguments: Backend.allCases)
    func releaseFreesTheClaimsOfAGoneClaimantAndOfLeasesThatRanOut(_ backend: Backend) throws {
        let store = try backend.open()
        _ = try store.plan(Self.entries(3), now: now)
        for (claimant, lease) in [("gone:1", 600.0), ("alive:2", 600.0), ("late:3", 10.0)] {
            _ = try store.transaction { try store.claimDue(now: now.addingTimeInterval(5), lease: lease, claimant: claimant, limit: 1) }
        }
        try store.transaction { try store.releaseAbandoned(now: now.addingTimeInterval(20), isGone: { $0 == "gone:1" }) }
        #expect(try store.openDeliveries().map { "\($0.key) \($0.state) \($0.claimedBy ?? "-")" }
                == ["k0000 pending -", "k0001 sending alive:2", "k0002 pending -"])
    }

    @Test(arguments: Backend.allCases)
    func marksSchedulersTheQueueOfChangedEventsAndTheDataVersion(_ backend: Backend) throws {
        let store = try backend.open()
        try store.transaction { try store.lockPlanning() }
        #expect(try store.schedulerMark("clock_jump_at") == nil)
        try store.setSchedulerMark("clock_jump_at", now)
        try store.setSchedulerMark("clock_jump_at", now.addingTimeInterval(1.5))
        #expect(try store.schedulerMark("clock_jump_at") == now.addingTimeInterval(1.5))

        for host in ["b", "B", "a", "é"] {
            try store.recordScheduler(SchedulerInstance(host: host, pid: 2, version: "1", started: now, lastSeen: now))
        }
        try store.recordScheduler(SchedulerInstance(host: "a", pid: 2, version: "2", started: now, lastSeen: now.addingTimeInterval(60)))
        try store.removeScheduler(host: "b", pid: 2)
        #expect(try store.schedulers(seenSince: now).map { "\($0.host) \($0.version)" } == ["B 1", "a 2", "é 1"])
        #expect(try store.schedulers(seenSince: now.addingTimeInterval(1)).map(\.host) == ["a"])

        let before = try store.dataVersion()
        let other = try backend.reopen(store)
        try other.save(Event(id: "a1", title: "One", start: .instant(now), timeZone: "UTC", symbol: .star, color: .indigo, alerts: [LeadTime(seconds: 3_600)]))
        #expect(try store.dataVersion() != before)
        #expect(try store.distinctEventAlerts() == ["1h"])
        #expect(try store.changedEvents(taking: false) == ["a1"])
        #expect(try store.transaction { try store.changedEvents(taking: true) } == ["a1"])
        #expect(try store.changedEvents(taking: false).isEmpty)
        #expect(try store.integrityCheck() == "ok")
    }
}

extension Backend {
    /// A second connection to `store`'s database, as another process would open it.
    func reopen(_ store: any PlannerStore) throws -> any PlannerStore {
        switch self {
        case .sqlite: try Store(path: store.location)
        case .postgresql: try PostgresStore(url: store.location)
        }
    }
}
