@testable import DatebookCLI
import Foundation
import Synchronization
import Testing

/// `SerialLog` keeps every line whole when threads write at once, short lines (one `write(2)`
/// each, side by side) and lines longer than a pipe takes whole (written alone), through a pipe
/// read slowly enough that writes wait for room.
struct SerialLogTests {
    @Test func linesOfManyThreadsArriveWholeThroughASlowPipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let log = SerialLog(fd: ends[1])
        // Read in small pieces with pauses, so that the pipe fills and writes block part way.
        let received = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        let readEnd = ends[0]
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                received.withLock { $0 += buffer.prefix(count) }
                usleep(20)
            }
            done.signal()
        }
        let long = String(repeating: "x", count: 3 * Int(PIPE_BUF))
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            for n in 0..<300 {
                log.write(n % 50 == 7 ? "\(thread) \(n) \(long)" : "\(thread) \(n) GET /calendar.ics 304 0.1 ms")
            }
        }
        close(ends[1])
        done.wait()
        let text = String(decoding: received.withLock { $0 }, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1_800)
        for thread in 0..<6 {
            let own = lines.filter { $0.hasPrefix("datebook: \(thread) ") }
            let expected = (0..<300).map { n in "datebook: \(thread) \(n) " + (n % 50 == 7 ? long : "GET /calendar.ics 304 0.1 ms") }
            #expect(own.map(String.init) == expected, "thread \(thread)'s lines cut, mixed or lost")
        }
    }
}
