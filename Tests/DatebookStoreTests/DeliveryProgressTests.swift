import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// What a channel accepted of a delivery (parts of a split message, email recipients) is kept in
/// the ledger by its claimant, survives a failed attempt and the lease running out, and comes back
/// with the next claim, on both backends.
struct DeliveryProgressTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-12-01T08:00:00Z

    @Test(arguments: Backend.allCases)
    func progressIsRecordedByTheClaimantAndComesBackWithTheNextClaim(_ backend: Backend) throws {
        let store = try backend.open()
        let now = Self.now
        for key in ["split", "mail"] {
            try store.plan(LedgerEntry(key: key, kind: .digest, digest: "morning", channel: key, dueAt: now), now: now)
        }
        let claimed = try store.transaction { try store.claimDue(now: now, lease: 60, claimant: "kitchen:41") }
        #expect(claimed.map(\.key) == ["mail", "split"])
        #expect(claimed.allSatisfy { $0.progress == nil })
        try store.recordProgress([DeliveryProgressRecord(key: "split", progress: #"{"parts":1}"#)], claimant: "kitchen:41")
        try store.recordProgress([DeliveryProgressRecord(key: "split", progress: #"{"parts":3}"#),
                                  DeliveryProgressRecord(key: "mail", progress: #"{"recipients":["ann@example.org"]}"#)],
                                 claimant: "kitchen:41")
        try store.recordProgress([DeliveryProgressRecord(key: "mail", progress: #"{"parts":9}"#)], claimant: "attic:7")
        #expect(try store.delivery(key: "mail")?.progress == #"{"recipients":["ann@example.org"]}"#, "not its claim: unchanged")
        // The split message's part 4 failed: a retry later; the mail's claimant died (its lease ran out).
        try store.settle(key: "split", claimant: "kitchen:41", as: .pending, reason: "attempt 1 failed: HTTP 500; retrying",
                         nextAttempt: now.addingTimeInterval(30), now: now)
        try store.transaction { try store.releaseAbandoned(now: now.addingTimeInterval(61), isGone: { _ in false }) }
        let again = try store.transaction { try store.claimDue(now: now.addingTimeInterval(61), lease: 60, claimant: "attic:7") }
        #expect(again.map(\.key) == ["mail", "split"])
        #expect(again.map(\.progress) == [#"{"recipients":["ann@example.org"]}"#, #"{"parts":3}"#])
        #expect(again.map(\.attempts) == [2, 2])
        try store.settle(key: "split", claimant: "attic:7", as: .sent, reason: nil, nextAttempt: nil, now: now)
        #expect(try store.delivery(key: "split")?.progress == #"{"parts":3}"#, "kept after the end, for status")
        #expect(try store.delivery(key: "split")?.state == .sent)
    }
}
