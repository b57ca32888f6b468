import DatebookCore
import Dispatch
import Foundation
import Testing

/// The shared-state helpers: `IndexedResults` for parallel work, `Monitor` for hand-offs.
struct ConcurrencyTests {
    @Test func indexedResultsKeepIndexOrderAndNameTheMissing() {
        let results = IndexedResults<Int>(count: 1000)
        DispatchQueue.concurrentPerform(iterations: 999) { results.set($0, $0 * 2) }
        let values = results.values(missing: -1)
        #expect(values.prefix(999) == ArraySlice((0..<999).map { $0 * 2 }))
        #expect(values.last == -1)
    }

    /// A consumer waiting for items sees every one a producer hands over, in order, and a
    /// producer waiting for room is let go as the consumer takes.
    @Test func aMonitorHandsItemsOverWithoutLosingAWakeUp() {
        struct Queue: Sendable {
            var items: [Int] = []
            var done = false
        }
        let queue = Monitor(Queue())
        let count = 20_000
        DispatchQueue.global().async {
            for n in 0..<count {
                queue.wait(for: { $0.items.count < 4 }) { $0.items.append(n) }
            }
            queue.update { $0.done = true }
        }
        var received: [Int] = []
        while let item = queue.wait(for: { !$0.items.isEmpty || $0.done }, then: { queue -> Int? in
            queue.items.isEmpty ? nil : queue.items.removeFirst()
        }) ?? nil {
            received.append(item)
        }
        #expect(received == Array(0..<count))
    }

    @Test func aMonitorWaitEndsAtItsDeadline() {
        let flag = Monitor(false)
        let start = DispatchTime.now()
        #expect(flag.wait(until: .now() + .milliseconds(50), for: { $0 }) == false)
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds >= 50_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { flag.update { $0 = true } }
        #expect(flag.wait(until: .now() + .seconds(600), for: { $0 }))
    }
}
