@testable import DatebookServer
import Foundation
import Synchronization
import Testing

/// `AccessLog` hands over every line, once, each thread's in its order: what calling the log for
/// every line (the plain path) gives, whoever happens to write.
@Suite struct AccessLogTests {
    @Test func everyLineOfManyThreadsIsWrittenOnceInEachThreadsOrder() async {
        let written = Mutex<[String]>([])
        let log = AccessLog { line in written.withLock { $0.append(line) } }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask { for n in 0..<2_000 { log.add("\(thread) \(n)") } }
            }
        }
        let lines = written.withLock { $0 }
        #expect(lines.count == 16_000)
        for thread in 0..<8 {
            let own = lines.filter { $0.hasPrefix("\(thread) ") }
            #expect(own == (0..<2_000).map { "\(thread) \($0)" }, "thread \(thread)'s lines out of order or lost")
        }
    }

    @Test func aLineIsWrittenBeforeAddReturnsWhenNoOtherThreadWrites() {
        let written = Mutex<[String]>([])
        let log = AccessLog { line in written.withLock { $0.append(line) } }
        log.add("GET / 200 0.1 ms")
        #expect(written.withLock { $0 } == ["GET / 200 0.1 ms"])
    }
}
