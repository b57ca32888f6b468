@testable import DatebookDaemon
import Foundation
import Testing

/// The daemon's wake-ups: what `wait` reports after a burst of posts.
@Suite struct WakeupsTests {
    /// A burst of store changes (inotify on a busy store) is one wake-up; the next wait sleeps its
    /// whole time and reports nothing, instead of returning at once with no reason, which the
    /// daemon took for its timer and started another pass.
    @Test func aBurstOfPostsIsOneWakeUpAndTheNextWaitSleepsItsTime() {
        let inbox = Wakeups.Inbox()
        for _ in 0..<5 { inbox.post(.storeChanged) }
        inbox.post(.passFinished)
        #expect(inbox.wait(seconds: 0) == [.storeChanged, .passFinished])
        let started = ContinuousClock.now
        #expect(inbox.wait(seconds: 0.3) == [])
        #expect(ContinuousClock.now - started >= .milliseconds(290))
    }

    @Test func aPostDuringTheWaitEndsIt() {
        let inbox = Wakeups.Inbox()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { inbox.post(.stop) }
        let started = ContinuousClock.now
        #expect(inbox.wait(seconds: 10) == [.stop])
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
