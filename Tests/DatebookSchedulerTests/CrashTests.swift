import DatebookCore
import DatebookStore
import Foundation
import Testing

/// The real binary, killed with SIGKILL at random moments, then restarted.
@Suite(.serialized) struct CrashTests {
    @Test func killingTickAtRandomMomentsLosesNothingAndDuplicatesAtMostOncePerCrash() throws {
        #expect(FileManager.default.fileExists(atPath: datebookBinary), "build first: swift build")
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["a": "/a?delay=0.01", "b": "/b?delay=0.03"], lead: "10m")
        let base = utc("2026-12-01T10:00:00Z")
        try sandbox.save((0..<60).map { event("Crash \($0)", at: base.addingTimeInterval(Double($0) * 120)) })
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        // From the start of a killed tick to its death, plus 0.2 s for the sink to read what it sent.
        var killedWindows: [ClosedRange<Double>] = []
        let rounds = 100
        for round in 0..<rounds {
            // Simulated time: one minute per round, so about one alert per channel falls due every other round.
            let now = ISOInstant.format(base.addingTimeInterval(Double(round) * 60 - 600))
            let started = Date().timeIntervalSince1970
            let victim = try sandbox.start(["--now", now, "tick"])
            usleep(UInt32.random(in: 0...120_000, using: &generator))
            var wasKilled = false
            if victim.isRunning {
                kill(victim.processIdentifier, SIGKILL)
                killed += 1
                wasKilled = true
            }
            victim.waitUntilExit()
            if wasKilled { killedWindows.append(started...(Date().timeIntervalSince1970 + 0.2)) }
            // Restart: the dead claimant's deliveries are taken over at once.
            try sandbox.run(["--now", now, "tick"])
        }
        #expect(try sandbox.run(["--now", "2026-12-01T12:10:00Z", "tick"]) == 0)
        let requests = try sink.requests()
        let counts = try sink.counts()
        let expected = (0..<60).flatMap { i in
            ["a", "b"].map { AlertKeyText.make("Crash \(i)", base.addingTimeInterval(Double(i) * 120), $0) }
        }
        let missing = expected.filter { (counts[$0] ?? 0) == 0 }
        let duplicated = expected.filter { (counts[$0] ?? 0) > 1 }
        let maximum = counts.values.max() ?? 0
        print("crash test: \(rounds) rounds, \(killed) killed mid-run, \(expected.count) due deliveries, "
              + "\(counts.values.reduce(0, +)) requests at the sink, \(missing.count) missing, \(duplicated.count) sent twice, max \(maximum) per key")
        #expect(missing.isEmpty)
        #expect(maximum <= 2)
        // A crash may duplicate each delivery it had in flight (one per channel here), nothing else:
        // the first copy of every duplicated key was sent by a tick that was then killed.
        for key in duplicated {
            let first = requests.filter { $0.key == key }.map(\.time).min() ?? 0
            #expect(killedWindows.contains { $0.contains(first) }, "\(key) sent twice without a crash in between")
        }
        #expect(duplicated.count <= killed * 2)
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
