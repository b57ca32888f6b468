import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The backoff of a failing CalDAV account (issue 31) as a pure value: waits from `every`
/// doubling to the cap, a refused login that waits for new settings, a reset by new settings.
struct CalDAVBackoffTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(arguments: [
        // failures, every, jitter, expected wait (s)
        (1, 60.0, 0.0, 60.0), (2, 60.0, 0.0, 120.0), (3, 60.0, 0.0, 240.0), (6, 60.0, 0.0, 1920.0),
        (7, 60.0, 0.0, 3600.0), (50, 60.0, 0.0, 3600.0), (1_000_000, 60.0, 0.99, 3600.0),
        (1, 60.0, 0.5, 63.0), (6, 60.0, 0.5, 2016.0), (7, 60.0, 0.99, 3600.0),
        // an `every` beyond the cap is kept: never retried more often than it syncs when healthy
        (1, 7200.0, 0.0, 7200.0), (5, 7200.0, 0.5, 7200.0),
        // `every` 0 still waits a second
        (1, 0.0, 0.0, 1.0),
    ])
    func waitDoublesFromEveryUpToTheCap(failures: Int, every: TimeInterval, jitter: Double, expected: TimeInterval) {
        #expect(abs(CalDAVBackoff.delay(failures: failures, every: every, jitter: jitter) - expected) < 0.001)
    }

    @Test func failuresInARowWaitLongerEachTimeAndAreAllowedOnlyAfterTheWait() {
        var backoff = CalDAVBackoff.healthy
        var now = Self.now
        var waits: [TimeInterval] = []
        for _ in 0..<8 {
            #expect(backoff.allowsAttempt(at: now, fingerprint: "a"))
            backoff = backoff.failed(.other, at: now, every: 300, fingerprint: "a", jitter: 0)
            guard let next = backoff.nextAttempt else { Issue.record("no next attempt after a failure"); return }
            waits.append(next.timeIntervalSince(now))
            #expect(!backoff.allowsAttempt(at: next.addingTimeInterval(-1), fingerprint: "a"))
            now = next
        }
        #expect(waits == [300, 600, 1200, 2400, 3600, 3600, 3600, 3600])
        #expect(backoff.failures == 8 && !backoff.loginRefused)
    }

    @Test func aRefusedLoginIsNotRetriedUntilTheSettingsChange() {
        let backoff = CalDAVBackoff.healthy.failed(.loginRefused, at: Self.now, every: 60, fingerprint: "old-password", jitter: 0)
        #expect(backoff.loginRefused && backoff.nextAttempt == nil)
        for later: TimeInterval in [1, 3600, 31_536_000] {
            #expect(!backoff.allowsAttempt(at: Self.now.addingTimeInterval(later), fingerprint: "old-password"))
        }
        #expect(backoff.allowsAttempt(at: Self.now.addingTimeInterval(1), fingerprint: "new-password"))
    }

    @Test func newSettingsEndTheBackoffAndStartTheCountAgain() {
        var backoff = CalDAVBackoff.healthy
        for _ in 0..<5 { backoff = backoff.failed(.other, at: Self.now, every: 60, fingerprint: "a", jitter: 0) }
        #expect(backoff.failures == 5)
        #expect(backoff.allowsAttempt(at: Self.now, fingerprint: "b"))
        let after = backoff.failed(.other, at: Self.now, every: 60, fingerprint: "b", jitter: 0)
        #expect(after.failures == 1 && after.nextAttempt == Self.now.addingTimeInterval(60))
    }

    @Test func aHealthyAccountMaySyncWhateverItsSettings() {
        #expect(CalDAVBackoff.healthy.allowsAttempt(at: Self.now, fingerprint: "anything"))
        #expect(!CalDAVBackoff.healthy.isFailing)
    }

    @Test(arguments: Backend.allCases)
    func theBackoffIsKeptByTheStoreAndASuccessClearsIt(_ backend: Backend) throws {
        let store = try backend.open()
        let account = CalDAVAccount(name: "home", url: "http://127.0.0.1:9/", username: "ann", passwordSource: "env:P", every: 60)
        try store.addCalDAVAccount(account, calendars: [])
        #expect(try store.calDAVAccounts().first?.backoff == .healthy)
        let refused = CalDAVBackoff.healthy.failed(.other, at: Self.now, every: 60, fingerprint: "f-1a2b", jitter: 0)
            .failed(.loginRefused, at: Self.now, every: 60, fingerprint: "f-1a2b", jitter: 0)
        try store.recordCalDAVSync(account: "home", now: Self.now, error: "refused", backoff: refused)
        #expect(try store.calDAVAccounts().first?.backoff == refused)
        let waiting = CalDAVBackoff.healthy.failed(.other, at: Self.now, every: 60, fingerprint: "f-1a2b", jitter: 0)
        try store.recordCalDAVSync(account: "home", now: Self.now, error: "down", backoff: waiting)
        #expect(try store.calDAVAccounts().first?.backoff == waiting)
        try store.recordCalDAVSync(account: "home", now: Self.now, error: nil)
        #expect(try store.calDAVAccounts().first?.backoff == .healthy)
    }
}
