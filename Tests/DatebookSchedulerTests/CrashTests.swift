import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation
import Testing

/// The real binary, killed with SIGKILL at random moments while it sends, then restarted.
@Suite(.serialized) struct CrashTests {
    /// Both channels are on the one sink, so the default client has at most this many transfers
    /// in flight, and a pass holds at most `outcomeHold` outcomes unwritten (`GroupCommit`): the
    /// most one crash may send twice.
    static let inFlightBound = HTTPClient().maxTransfersPerHost + Scheduler.Options().outcomeHold

    @Test func killingTickWhileItSendsLosesNothingAndDuplicatesAtMostWhatWasInFlight() throws {
        #expect(FileManager.default.fileExists(atPath: datebookBinary), "build first: swift build")
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["a": "/a?delay=0.002", "b": "/b?delay=0.004"], lead: "10m")
        let base = utc("2026-12-01T10:00:00Z")
        let rounds = 30, perRound = 40
        // Round r: events r·perRound ..< (r+1)·perRound all start at base + r minutes (80 deliveries due at once).
        let starts = (0..<rounds * perRound).map { base.addingTimeInterval(Double($0 / perRound) * 60) }
        try sandbox.save(starts.enumerated().map { event("Crash \($0.offset)", at: $0.element) })
        var generator = SystemRandomNumberGenerator()
        // Round r's deliveries are claimed first by round r's tick, and its restart settles them all:
        // a delivery of round r sent twice was sent first by that tick, which must then have been killed.
        var killedRounds: Set<Int> = []
        for round in 0..<rounds {
            let now = ISOInstant.format(base.addingTimeInterval(Double(round) * 60 - 600))
            let before = sink.requestCount()
            let victim = try sandbox.start(["--now", now, "tick"])
            // Kill at a random point of this round's sending: after 1 to 40 of its 80 requests reached
            // the sink (counted, not timed, so a fast or a loaded machine kills mid-send alike).
            let target = before + Int.random(in: 1...40, using: &generator)
            let deadline = Date().addingTimeInterval(10)
            while victim.isRunning, sink.requestCount() < target, Date() < deadline { usleep(500) }
            if victim.isRunning {
                kill(victim.processIdentifier, SIGKILL)
                killedRounds.insert(round)
            }
            victim.waitUntilExit()
            // Restart: the dead claimant's deliveries are taken over at once.
            try sandbox.run(["--now", now, "tick"])
        }
        #expect(try sandbox.run(["--now", ISOInstant.format(base.addingTimeInterval(Double(rounds) * 60)), "tick"]) == 0)
        let requests = try sink.requests()
        let counts = requests.reduce(into: [String: Int]()) { $0[$1.key, default: 0] += 1 }
        let keys = starts.indices.map { i in ["a", "b"].map { AlertKeyText.make("Crash \(i)", starts[i], $0) } }
        let expected = keys.flatMap { $0 }
        let missing = expected.filter { (counts[$0] ?? 0) == 0 }
        let duplicated = expected.filter { (counts[$0] ?? 0) > 1 }
        var perKill = Dictionary(uniqueKeysWithValues: killedRounds.map { ($0, 0) })
        var unexplained: [String] = []
        for (index, pair) in keys.enumerated() {
            for key in pair where (counts[key] ?? 0) > 1 {
                if perKill[index / perRound] != nil { perKill[index / perRound, default: 0] += 1 } else { unexplained.append(key) }
            }
        }
        let mean = perKill.isEmpty ? 0 : Double(perKill.values.reduce(0, +)) / Double(perKill.count)
        print("crash test: \(rounds) rounds, \(killedRounds.count) killed while sending, \(expected.count) due deliveries, "
              + "\(requests.count) requests at the sink, \(missing.count) missing, \(duplicated.count) sent twice; "
              + "duplicates per kill: max \(perKill.values.max() ?? 0), mean \(String(format: "%.2f", mean)) (bound \(Self.inFlightBound))")
        #expect(killedRounds.count >= rounds / 3, "too few ticks were killed while sending to test anything")
        #expect(missing.isEmpty)
        #expect(counts.values.max() ?? 0 <= 2)
        #expect(unexplained.isEmpty, "sent twice without a crash in between: \(unexplained.prefix(5))")
        #expect(perKill.values.allSatisfy { $0 <= Self.inFlightBound }, "duplicates per kill \(perKill) over the in-flight bound")
        #expect(Set(counts.keys) == Set(expected))
        let store = try Store(path: sandbox.store)
        #expect(try store.integrityCheck() == "ok")
        let states = try store.allDeliveries().map(\.state)
        #expect(states.count == expected.count)
        #expect(states.allSatisfy { $0 == .sent || $0 == .sentLate })
    }
}

enum AlertKeyText {
    static func make(_ title: String, _ start: Date, _ channel: String) -> String {
        "alert:\(EventID.stable(title)):\(ISOInstant.format(start)):10m:\(channel)"
    }
}
