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

    /// The scheduler keeps a group's outcomes and writes them at the next `starting`, with its
    /// fence: so `starting` comes before every transfer that starts, a split message's later parts
    /// included (with no steps), and what such a caller holds never exceeds what is in flight.
    @Test func outcomesHeldUntilTheNextStartingCallNeverExceedWhatIsInFlight() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let deliverer = Deliverer(http: HTTPClient(maxHostConnections: 2, maxTotalConnections: 2), maxWorkers: 1)
        let steps: [DeliveryStep] = (0..<20).map { index in
            .http((1...2).map { part in HTTPRequest(method: "POST", url: "\(sink.baseURL)/hook?n=\(index)&part=\(part)", body: Data("x".utf8)) })
        }
        var held = 0, written = 0, askedWithoutSteps = 0
        var ahead: [Int] = []
        deliverer.deliver(steps, starting: { indices in
            written += held
            held = 0
            if indices.isEmpty { askedWithoutSteps += 1 }
            // Requests the sink got whose outcome is not written: the transfers still running.
            ahead.append(((try? sink.records().count) ?? 0) - written)
            return Set(indices)
        }, onOutcomes: { group in held += group.count })
        #expect(written + held == 40)
        #expect(askedWithoutSteps > 0)
        #expect(held <= deliverer.maxHTTPTransfers, "outcomes held after the last transfer started: \(held)")
        #expect(ahead.allSatisfy { $0 <= deliverer.maxHTTPTransfers }, "transfers ahead of the written outcomes: \(ahead)")
    }

    /// A caller that keeps each group of outcomes until the next `starting` must never keep them
    /// while the deliverer waits: here a command step waits (up to its timeout) for the file the
    /// caller makes once every HTTP outcome has been handed on at a `starting` call, so the last
    /// group's must come before the deliverer waits for that worker (they once waited for the
    /// slowest transfer, and leases ran out meanwhile).
    @Test func startingFollowsEveryGroupOfOutcomesBeforeTheDelivererWaits() throws {
        let sink = try TestServer(script: "http_sink.py")
        defer { sink.stop() }
        let directory = makeScratchFolder("deliverer")
        defer { removeScratchFolder(directory) }
        let flag = directory + "/written"
        let deliverer = Deliverer(http: HTTPClient(maxHostConnections: 2, maxTotalConnections: 2), maxWorkers: 1)
        let http: [DeliveryStep] = (0..<10).map { index in
            .http([HTTPRequest(method: "POST", url: "\(sink.baseURL)/hook?n=\(index)", body: Data("x".utf8))])
        }
        let waiting = DeliveryStep.command(argv: ["/bin/sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done", "sh", flag],
                                           environment: ["PATH": "/usr/bin:/bin"], timeout: 10)
        var held: [Int] = []
        var written: Set<Int> = []
        var outcomes: [Int: DeliveryOutcome] = [:]
        deliverer.deliver(http + [waiting], starting: { indices in
            written.formUnion(held)
            held = []
            if written.isSuperset(of: 0..<10), !FileManager.default.fileExists(atPath: flag) {
                _ = FileManager.default.createFile(atPath: flag, contents: nil)
            }
            return Set(indices)
        }, onOutcomes: { group in
            held += group.map(\.index)
            for (index, outcome) in group { outcomes[index] = outcome }
        })
        #expect(outcomes.count == 11)
        guard case .command(let result) = outcomes[10] else {
            Issue.record("the command step's outcome: \(String(describing: outcomes[10]))")
            return
        }
        #expect(result.succeeded, "HTTP outcomes were kept while the deliverer waited for the command (it timed out)")
    }
    /// A caller holding outcomes (the scheduler's group commit) is called while the deliverer waits
    /// for a worker, at least every 200 ms: the command waits for the third such call.
    @Test func startingIsCalledWhileTheDelivererWaitsForAWorker() throws {
        let directory = makeScratchFolder("deliverer")
        defer { removeScratchFolder(directory) }
        let flag = directory + "/asked"
        let waiting = DeliveryStep.command(argv: ["/bin/sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done", "sh", flag],
                                           environment: ["PATH": "/usr/bin:/bin"], timeout: 10)
        var calls = 0
        var outcome: DeliveryOutcome?
        Deliverer(maxWorkers: 1).deliver([waiting], starting: { indices in
            if indices.isEmpty { calls += 1 }
            if calls == 3 { _ = FileManager.default.createFile(atPath: flag, contents: nil) }
            return Set(indices)
        }, onOutcomes: { outcome = $0.first?.outcome })
        guard case .command(let result) = outcome else {
            Issue.record("the command step's outcome: \(String(describing: outcome))")
            return
        }
        #expect(result.succeeded, "no call while the deliverer waited for the command (it timed out)")
    }
}
