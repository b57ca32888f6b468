import Foundation
import DatebookTestSupport
import Testing

@testable import DatebookDelivery

/// What a crash can send twice is what is in flight: `Deliverer` starts no transfer on a
/// connection or worker until the outcome it produced before has been handed to the caller.
@Suite struct DelivererTests {
    @Test func noMoreThanMaxInFlightTransfersRunAheadOfTheReportedOutcomes() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let directory = makeScratchFolder("deliverer")
        defer { removeScratchFolder(directory) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deliverer = Deliverer(http: HTTPClient(maxHostConnections: 2, maxTotalConnections: 2), maxWorkers: 2)
        #expect(deliverer.maxInFlight == 4)
        let steps: [DeliveryStep] = (0..<40).map { index in
            index.isMultiple(of: 2) ? .http([HTTPRequest(method: "POST", url: "\(sink.baseURL)/hook?n=\(index)", body: Data("x".utf8))])
                : .file(path: "\(directory)/\(index).txt", contents: "x")
        }
        var reported: [Int] = []
        var ahead: [Int] = []
        deliverer.deliver(steps) { group in
            // Transfers started so far (seen by the sink or written) beyond what was reported before this group.
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".txt") }.count) ?? 0
            let started = files + ((try? sink.records().count) ?? 0)
            ahead.append(started - reported.count)
            reported += group.map(\.index)
            usleep(5_000)  // give a transfer that did not wait for this call time to start
        }
        #expect(reported.sorted() == Array(0..<40))
        #expect(ahead.allSatisfy { $0 <= deliverer.maxInFlight }, "started ahead of the reported outcomes: \(ahead)")
    }
}
