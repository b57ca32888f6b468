import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// A sender held up past its claims' lease (issue 27): `tick` stopped with SIGSTOP mid-batch, a
/// second `tick` takes the claims over and sends them, then the first goes on (SIGCONT). The fence
/// before each transfer (`startSending`: claimed by me and the lease not run out, checked in the
/// statement that renews it) keeps the first from sending what it no longer holds: duplicates are
/// at most what it had in flight when it stopped. On SQLite and on PostgreSQL.
@Suite(.serialized) struct FencingTests {
    static let count = 40
    /// Seconds of each claim (`DATEBOOK_LEASE`): short, so the test waits little for it to run out.
    static let lease = 3

    @Test(arguments: Backend.allCases)
    func aTickHeldUpPastItsLeaseSendsNothingTheNextTickTookOver(_ backend: Backend) throws {
        let sink = try Sink()
        let url: String? = backend == .postgresql ? try TestPostgres.shared().makeDatabase() : nil
        // Each request answered after 0.3 s: the first tick is still sending when it is stopped.
        var sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook?delay=0.3"], lead: "10m", store: url)
        sandbox.extraEnvironment = ["DATEBOOK_LEASE": String(Self.lease)]
        // Due 30 s ago (within the minute that counts as on time).
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 570).rounded(.down))
        try sandbox.save((0..<Self.count).map { event("Fenced \($0)", at: start) })
        let keys = (0..<Self.count).map { AlertKeyText.make("Fenced \($0)", start, "hook") }

        let firstLog = sandbox.directory + "/first.log"
        let first = try sandbox.start(["tick"], log: firstLog)
        defer { if first.isRunning { kill(first.processIdentifier, SIGCONT); Reaper.stop(first) } }
        #expect(StoreFaultTests.wait(seconds: 30) { sink.requestCount() >= HTTPClient().maxTransfersPerHost || !first.isRunning })
        kill(first.processIdentifier, SIGSTOP)
        let atStop = sink.requestCount()
        try #require(first.isRunning && atStop < Self.count, "the first tick ended before it could be stopped mid-batch")

        // Every claim's lease has run out (the stopped tick renews none), for a tick's clock too (whole seconds).
        let store = try StoreOpener.open(sandbox.store)
        #expect(StoreFaultTests.wait(seconds: 30) {
            (try? store.allDeliveries().allSatisfy { $0.claimedUntil.map { $0.addingTimeInterval(1) < Date() } ?? true }) == true
        })
        let secondLog = sandbox.directory + "/second.log"
        let second = try sandbox.start(["tick"], log: secondLog)
        #expect(waitForExit(second, seconds: 60))
        #expect(second.terminationStatus == 0, "\(StoreFaultTests.text(secondLog))")
        #expect(try keys.allSatisfy { try store.delivery(key: $0)?.state == .sent }, "\(StoreFaultTests.text(secondLog))")

        kill(first.processIdentifier, SIGCONT)
        #expect(waitForExit(first, seconds: 60))
        #expect(first.terminationStatus == 0, "\(StoreFaultTests.text(firstLog))")
        let counts = try sink.counts()
        let duplicates = keys.reduce(0) { $0 + max(0, (counts[$1] ?? 0) - 1) }
        print("fencing (\(backend.rawValue)): \(atStop) requests before the stop, \(duplicates) duplicates")
        #expect(keys.allSatisfy { (counts[$0] ?? 0) >= 1 })
        #expect(duplicates <= CrashTests.inFlightBound, "\(StoreFaultTests.text(firstLog))")
        // The first tick met its lost claims at the fence, and said so.
        #expect(StoreFaultTests.text(firstLog).contains("not sent: alert 'Fenced "), "\(StoreFaultTests.text(firstLog))")
        #expect(try keys.allSatisfy { try store.delivery(key: $0)?.state == .sent })
        if backend == .sqlite { #expect(try store.integrityCheck() == "ok") }
    }
}
