@testable import DatebookDaemon
import Foundation
import Synchronization
import Testing

/// `SourceRefresh`: one pass at a time refreshes the sources; the others ask for a round and go on.
/// Ordered with semaphores (the first round is held open while the others ask), never with sleeps.
struct SourceRefreshTests {
    @Test func passesThatFindARoundRunningAskForOneMoreAndDoNotWait() {
        let refresh = SourceRefresh()
        let rounds = Mutex([Bool]())
        let inFirst = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            refresh.run(localChanges: false) { local in
                let count = rounds.withLock { $0.append(local); return $0.count }
                if count == 1 {
                    inFirst.signal()
                    release.wait()
                }
            }
            done.signal()
        }
        inFirst.wait()
        // Three passes while the first round runs: each returns at once, without a round of its own.
        var ran = false
        refresh.run(localChanges: false) { _ in ran = true }
        refresh.run(localChanges: true) { _ in ran = true }
        refresh.run(localChanges: false) { _ in ran = true }
        #expect(!ran)
        release.signal()
        done.wait()
        // Their asks made one more round, for the changes made here since one asked so.
        #expect(rounds.withLock { $0 } == [false, true])
        // Idle again: the next pass runs its own round.
        refresh.run(localChanges: false) { _ in ran = true }
        #expect(ran)
    }

    @Test func anAskAfterTheLastRoundEndedGetsARoundOfItsOwn() {
        let refresh = SourceRefresh()
        var rounds = 0
        for _ in 0..<3 { refresh.run(localChanges: false) { _ in rounds += 1 } }
        #expect(rounds == 3)
    }
}
