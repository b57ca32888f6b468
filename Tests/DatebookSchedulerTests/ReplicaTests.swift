import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Issue 17's replica test: three `datebook run` processes share one PostgreSQL database while one
/// of them is killed with SIGKILL and restarted about every second, the database connections are
/// cut once and the server is restarted once. 2,000 alerts fall due over a minute of real time to
/// the local HTTP sink; none may be lost, and an alert may reach the sink twice only when a
/// replica that had claimed it (its ledger row `sending`, `claimed_by` that replica) was killed or
/// cut off before it recorded the outcome.
@Suite(.serialized) struct ReplicaTests {
    static let replicas = 3
    static let alerts = 2_000
    /// Real seconds over which the alerts fall due.
    static let spread: TimeInterval = 60
    static let minimumKills = 50
    static let killInterval: TimeInterval = 1.1
    /// `DATEBOOK_LEASE` of the replicas: claims of a live replica whose connection was cut are
    /// taken over after this (those of a killed one at once, since its pid is gone).
    static let lease = 8
    /// Cutting every connection (`pg_terminate_backend`) and restarting the server: the replicas
    /// must reconnect on their own, without a restart, to keep delivering.
    static let cutsConnectionsAndRestartsTheServer = true
    /// What one killed replica can have sent and not recorded: each of its passes (`PassRunner`
    /// runs up to 4 at once) has at most its connections to the sink in flight and `outcomeHold`
    /// answers held unwritten (`GroupCommit`).
    static let inFlightBound = 4 * (HTTPClient().maxTransfersPerHost + Scheduler.Options().outcomeHold)
    /// How much later than its send the sink may record a request: http_sink.py stamps it when the
    /// connection's thread has read it, and with some twenty such threads taking turns at Python's
    /// lock on two loaded cores that lags the send by tens, now and then hundreds, of milliseconds.
    /// A request recorded this long after a kill may still be one the killed replica sent before it.
    static let sinkLag: TimeInterval = 1

    /// What may be sent twice after one disruption: the keys claimed and not yet recorded then.
    struct Disruption {
        var name: String
        var time: Double
        var inFlight: Set<String>
        /// How long after `time` a claim in flight then may still first reach the sink: a killed
        /// replica sends nothing more, but one that lost its connection goes on starting transfers
        /// on fences it committed before, for up to their life (`GroupCommit.fenceLife`, 1 s here).
        var sendsFor: TimeInterval = 0
    }

    @Test(.timeLimit(.minutes(4)))
    func threeReplicasUnderKillsLoseNothingAndDuplicateOnlyWhatAKilledReplicaHadInFlight() throws {
        try #require(FileManager.default.fileExists(atPath: datebookBinary), "build first: swift build")
        let began = Date()
        let server = try TestPostgres()  // its own: the restart would break other tests on the shared one
        defer { server.stop() }
        let url = try server.makeDatabase()
        let database = URL(string: url)?.lastPathComponent ?? ""
        let sink = try Sink()
        // Each answer takes 0.1 s, so a replica is sending for about half of each second and the
        // kills find deliveries in flight.
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook?delay=0.1"], lead: "10m")
        let firstDue = DaemonTests.wholeSecondsFromNow(10)
        let titles = (0..<Self.alerts).map { "Replica \($0)" }
        let dues = titles.indices.map { firstDue.addingTimeInterval((Double($0) * Self.spread / Double(Self.alerts)).rounded(.down)) }
        try PostgresStore(url: url).save(zip(titles, dues).map { event($0, at: $1.addingTimeInterval(600)) })
        let expected = Set(zip(titles, dues).map { AlertKeyText.make($0, $1.addingTimeInterval(600), "hook") })
        var environment = sandbox.environment
        environment["DATEBOOK_STORE"] = url
        environment["DATEBOOK_LEASE"] = String(Self.lease)
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let logs = (0..<Self.replicas).map { sandbox.directory + "/replica-\($0).log" }
        var pids: Set<String> = []
        func start(_ index: Int) throws -> SpawnedProcess {
            let replica = try SpawnedProcess(datebookBinary, ["run"], environment: environment, stderr: logs[index])
            pids.insert(String(replica.pid))
            return replica
        }
        var running = try (0..<Self.replicas).map(start)
        defer { running.forEach { $0.stop() } }
        let started = Date()

        // Every `killInterval`, the next replica round-robin is killed and restarted, until the last
        // alert is due and at least `minimumKills` were killed.
        var disruptions: [Disruption] = []
        var kills = 0, exitedOnTheirOwn = 0
        var cut = !Self.cutsConnectionsAndRestartsTheServer, restarted = cut
        let lastDue = firstDue.addingTimeInterval(Self.spread)
        let killsEnd = Date().addingTimeInterval(Self.spread + 40)
        while (kills < Self.minimumKills || Date() < lastDue.addingTimeInterval(2)) && Date() < killsEnd {
            Thread.sleep(until: started.addingTimeInterval(Double(kills + 1) * Self.killInterval))
            if !cut, Date() > firstDue.addingTimeInterval(Self.spread / 3) {
                let cutAt = Date().timeIntervalSince1970
                try server.terminateConnections(database: database)
                disruptions.append(Disruption(name: "connections cut", time: cutAt, inFlight: try Self.inFlight(url), sendsFor: 1))
                cut = true
            }
            if !restarted, Date() > firstDue.addingTimeInterval(Self.spread * 2 / 3) {
                let stoppedAt = Date().timeIntervalSince1970
                try server.restart(pause: 1)
                disruptions.append(Disruption(name: "server restarted", time: stoppedAt, inFlight: try Self.inFlight(url), sendsFor: 1))
                restarted = true
            }
            let index = kills % Self.replicas
            let victim = running[index]
            if victim.hasExited {
                exitedOnTheirOwn += 1
            } else {
                let killedAt = Date().timeIntervalSince1970
                victim.signal(SIGKILL)
                // Before it is reaped its pid still exists, so no other replica takes its claims yet.
                disruptions.append(Disruption(name: "kill \(kills + 1)", time: killedAt,
                                              inFlight: try Self.inFlight(url, claimant: victim.pid)))
                victim.wait()
            }
            running[index] = try start(index)
            kills += 1
        }

        // The survivors finish: the killed replicas' claims at once, a cut one's after its lease.
        var requests: [(key: String, time: Double)] = []
        var received: [String: Int] = [:]
        var ledger: [LedgerEntry] = []
        let finishBy = Date().addingTimeInterval(Double(Self.lease) + 40)
        repeat {
            usleep(250_000)
            requests = try sink.requests()
            received = requests.reduce(into: [:]) { $0[$1.key, default: 0] += 1 }
            ledger = try PostgresStore(url: url).allDeliveries()
        } while !(ledger.count == Self.alerts && ledger.allSatisfy(\.state.isSettled) && expected.isSubset(of: received.keys))
            && Date() < finishBy

        let lost = expected.filter { (received[$0] ?? 0) == 0 }
        var perDisruption = [Int](repeating: 0, count: disruptions.count)
        var unexplained: [String] = []
        var latestRecord = -Double.infinity
        // Each repeated request is put down to the first disruption after the request before it that
        // had the key in flight (the sender died or lost its connection before recording it).
        let times = Dictionary(grouping: requests, by: \.key).mapValues { $0.map(\.time).sorted() }
        for (key, sent) in times where sent.count > 1 {
            var used: Set<Int> = []
            for previous in sent.dropLast() {
                let cause = disruptions.indices.first {
                    !used.contains($0) && disruptions[$0].time + disruptions[$0].sendsFor >= previous - Self.sinkLag
                        && disruptions[$0].inFlight.contains(key)
                }
                guard let cause else {
                    // Enough to tell a late record from a real repeat when this fails.
                    let holders = disruptions.filter { $0.inFlight.contains(key) }
                        .map { "\($0.name) at \(String(format: "%+.3f", $0.time - previous)) s" }
                    unexplained.append("\(key) (sent at \(sent.map { String(format: "%.3f", $0 - began.timeIntervalSince1970) }) s; "
                                       + "in flight at \(holders.isEmpty ? "no disruption" : holders.joined(separator: ", ")))")
                    continue
                }
                used.insert(cause)
                perDisruption[cause] += 1
                latestRecord = max(latestRecord, previous - disruptions[cause].time)
            }
        }
        let killed = disruptions.indices.filter { disruptions[$0].name.hasPrefix("kill") }
        let duplicates = received.values.reduce(0) { $0 + max(0, $1 - 1) }
        let states = Dictionary(grouping: ledger, by: \.state.rawValue).mapValues(\.count)
        let failedPasses = logs.reduce(0) { count, log in
            count + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "pass failed").count - 1
        }
        print("replica test: \(Self.replicas) replicas, \(kills) kills (\(exitedOnTheirOwn) had exited on their own), "
              + (Self.cutsConnectionsAndRestartsTheServer ? "connections cut once, server restarted once, " : "no cut, no server restart, ")
              + "\(Self.alerts) alerts, \(received.values.reduce(0, +)) requests at the sink, \(lost.count) lost, "
              + "\(duplicates) duplicates (max per kill \(killed.map { perDisruption[$0] }.max() ?? 0), "
              + "in flight at a kill: max \(killed.map { disruptions[$0].inFlight.count }.max() ?? 0)), "
              + disruptions.indices.filter { !killed.contains($0) }
                  .map { "\(disruptions[$0].name): \(perDisruption[$0]) duplicates of \(disruptions[$0].inFlight.count) in flight, " }
                  .joined()
              + "kills with duplicates (duplicates/in flight): "
              + killed.filter { perDisruption[$0] > 0 }.map { "\(perDisruption[$0])/\(disruptions[$0].inFlight.count)" }
                  .joined(separator: " ") + ", "
              + (latestRecord > -.infinity ? String(format: "first sends recorded up to %.3f s after their disruption, ", latestRecord) : "")
              + "\(unexplained.count) unexplained; ledger \(states.sorted { $0.key < $1.key }); \(failedPasses) failed passes; "
              + "\(Int(Date().timeIntervalSince(began))) s")
        #expect(kills >= Self.minimumKills)
        #expect(lost.isEmpty, "lost: \(lost.sorted().prefix(5))")
        #expect(Set(received.keys) == expected)
        #expect(ledger.count == Self.alerts)
        #expect(ledger.allSatisfy { $0.state == .sent || $0.state == .sentLate }, "\(states)")
        // Who sent each one (`status`): one of the replicas, as host:pid.
        #expect(ledger.allSatisfy { entry in entry.settledBy.map { pids.contains(String($0.split(separator: ":").last ?? "")) } ?? false },
                "\(ledger.filter { $0.settledBy == nil }.count) rows without their sender")
        #expect(unexplained.isEmpty, "sent twice with no disruption that had it in flight: \(unexplained.sorted().prefix(5))")
        for index in disruptions.indices {
            #expect(perDisruption[index] <= disruptions[index].inFlight.count, "\(disruptions[index].name)")
        }
        #expect(killed.allSatisfy { perDisruption[$0] <= Self.inFlightBound }, "over \(Self.inFlightBound) duplicates after one kill")
    }

    /// The keys claimed and not yet recorded (`sending`), by `claimant`'s pid or by anyone.
    static func inFlight(_ url: String, claimant: pid_t? = nil) throws -> Set<String> {
        let open = try PostgresStore(url: url).openDeliveries().filter { $0.state == .sending }
        return Set(open.filter { entry in claimant.map { entry.claimedBy?.hasSuffix(":\($0)") == true } ?? true }.map(\.key))
    }
}

/// A child process started with posix_spawn and reaped only by `wait()`: killed, it stays a zombie
/// until then, so `kill(pid, 0)` still finds it (Foundation's `Process` reaps on its own).
final class SpawnedProcess {
    let pid: pid_t
    private var status: Int32?

    /// Starts `path arguments…` with exactly `environment`, stdin and stdout on /dev/null and
    /// stderr appended to the file `stderr`.
    init(_ path: String, _ arguments: [String], environment: [String: String], stderr: String) throws {
        // A process group of its own, watched by the reaper: nothing outlives a crashed test process.
        pid = try Spawn.start(path, arguments, descriptors: [(0, .null(write: false)), (1, .null(write: true)), (2, .file(stderr, append: true))],
                              environment: environment.map { "\($0.key)=\($0.value)" })
        Reaper.watch(group: pid)
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// True once it exited (reaping it).
    var hasExited: Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
        return status != nil
    }

    func wait() {
        guard status == nil else { return }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
        status = raw
        Reaper.stop(group: pid)
    }

    /// SIGKILL to its process group unless it already exited, then reaped.
    func stop() {
        if !hasExited { Reaper.stop(group: pid) }
        wait()
    }
}
