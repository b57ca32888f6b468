import DatebookCore
import DatebookDelivery
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// Issue 30: three `datebook run` replicas share one PostgreSQL database, and one of them is
/// stopped with SIGSTOP for 30 s at the worst moment, while it holds the planning lock inside its
/// planning transaction. The server ends that session after `idle_in_transaction_session_timeout`
/// (5 s), which frees the lock; the others keep planning and sending, so no alert is more than a
/// few seconds late — except the ones the stopped replica had claimed and was sending, which wait
/// for it (their lease has not run out).
@Suite(.serialized) struct PausedReplicaTests {
    static let replicas = 3
    static let alerts = 1_200
    /// Real seconds over which the alerts fall due.
    static let spread: TimeInterval = 80
    static let pause: TimeInterval = 30
    /// The idle timeout (5 s), a lock wait and a pass on a loaded machine.
    static let allowedLateness: Double = 12

    /// The `application_name` of each backend of `database` holding an advisory lock.
    static let lockHolders = """
        SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = $1
        """

    /// Whether `pid` is stopped (state `T` in /proc/PID/stat).
    static func isStopped(_ pid: pid_t) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.range(of: ") ", options: .backwards) else { return false }
        return text[close.upperBound...].first == "T"
    }

    @Test(.timeLimit(.minutes(4)))
    func aReplicaPausedHoldingThePlanningLockDoesNotHoldUpTheOthers() throws {
        try #require(FileManager.default.fileExists(atPath: datebookBinary), "build first: swift build")
        let began = Date()
        let url = try TestPostgres.shared().makeDatabase()
        let database = URL(string: url)?.lastPathComponent ?? ""
        let sink = try Sink()
        let sandbox = try ProcessSandbox(sink: sink, channels: ["hook": "/hook?delay=0.05"], lead: "10m")
        let firstDue = DaemonTests.wholeSecondsFromNow(10)
        let titles = (0..<Self.alerts).map { "Paused \($0)" }
        let dues = titles.indices.map { firstDue.addingTimeInterval((Double($0) * Self.spread / Double(Self.alerts)).rounded(.down)) }
        try PostgresStore(url: url).save(zip(titles, dues).map { event($0, at: $1.addingTimeInterval(600)) })
        let due = Dictionary(uniqueKeysWithValues: zip(titles, dues).map { (AlertKeyText.make($0, $1.addingTimeInterval(600), "hook"), $1) })
        var environment = sandbox.environment
        environment["DATEBOOK_STORE"] = url
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let logs = (0..<Self.replicas).map { sandbox.directory + "/replica-\($0).log" }
        let running = try logs.map { try SpawnedProcess(datebookBinary, ["run"], environment: environment, stderr: $0) }
        defer {
            running.forEach { $0.signal(SIGCONT) }
            running.forEach { $0.stop() }
        }

        // Once alerts are going out, stop a replica while it holds the planning lock: seen holding
        // it, stopped, and seen holding it still (else it let go meanwhile: let it go on, try again).
        let monitor = try PostgresConnection(conninfo: url, store: "monitor")
        let sending = Date().addingTimeInterval(60)
        while sink.requestCount() == 0, Date() < sending { usleep(50_000) }
        try #require(sink.requestCount() > 0, "no alert was sent")
        var victim: SpawnedProcess?
        var stoppedAt = Date()
        var tries = 0
        let catchBy = Date().addingTimeInterval(40)
        while victim == nil, Date() < catchBy {
            let holders = try monitor.query(Self.lockHolders, [database]).all.map { $0.text(0) }
            guard let replica = running.first(where: { replica in holders.contains { $0.hasSuffix(":\(replica.pid)") } }) else {
                continue
            }
            replica.signal(SIGSTOP)
            while !Self.isStopped(replica.pid) { usleep(1_000) }
            tries += 1
            if try monitor.query(Self.lockHolders, [database]).all.contains(where: { $0.text(0).hasSuffix(":\(replica.pid)") }) {
                victim = replica
                stoppedAt = Date()
            } else {
                replica.signal(SIGCONT)
            }
        }
        let stopped = try #require(victim, "no replica was caught holding the planning lock (\(tries) tries)")
        // What it had claimed and was sending waits for it: its lease has not run out.
        let inFlight = try ReplicaTests.inFlight(url, claimant: stopped.pid)
        let sentBefore = sink.requestCount()
        Thread.sleep(until: stoppedAt.addingTimeInterval(Self.pause))
        let sentDuring = sink.requestCount() - sentBefore
        let stillHeld = try monitor.query(Self.lockHolders, [database]).all.contains { $0.text(0).hasSuffix(":\(stopped.pid)") }
        stopped.signal(SIGCONT)

        var first: [String: Double] = [:]
        var ledger: [LedgerEntry] = []
        let finishBy = Date().addingTimeInterval(Self.spread + 60)
        repeat {
            usleep(250_000)
            first = try sink.requests().reduce(into: [:]) { first, request in first[request.key] = min(first[request.key] ?? .infinity, request.time) }
            ledger = try PostgresStore(url: url).allDeliveries()
        } while !(ledger.count == Self.alerts && ledger.allSatisfy(\.state.isSettled) && Set(due.keys).isSubset(of: first.keys))
            && Date() < finishBy

        let lost = due.keys.filter { first[$0] == nil }
        let lateness = due.compactMap { key, at in first[key].map { (key, $0 - at.timeIntervalSince1970) } }
        let late = lateness.filter { !inFlight.contains($0.0) && $0.1 > Self.allowedLateness }
        let pausedDue = due.filter { $0.value >= stoppedAt && $0.value < stoppedAt.addingTimeInterval(Self.pause) }.map(\.key)
        let worst = lateness.filter { !inFlight.contains($0.0) }.map(\.1).max() ?? 0
        let worstPaused = pausedDue.compactMap { key in inFlight.contains(key) ? nil : lateness.first { $0.0 == key }?.1 }.max() ?? 0
        print("paused replica test: caught holding the planning lock after \(tries) tries, stopped \(Int(Self.pause)) s; "
              + "\(sentDuring) alerts sent meanwhile (\(pausedDue.count) fell due then); \(inFlight.count) in flight at the stop; "
              + "latest of the others \(String(format: "%.1f", worst)) s (of those due in the pause \(String(format: "%.1f", worstPaused)) s); "
              + "\(lost.count) lost; \(Int(Date().timeIntervalSince(began))) s")
        #expect(!stillHeld, "the stopped replica still held the planning lock after \(Int(Self.pause)) s")
        #expect(sentDuring > 0)
        #expect(lost.isEmpty, "lost: \(lost.sorted().prefix(5))")
        #expect(late.isEmpty, "\(late.count) alerts more than \(Self.allowedLateness) s late, e.g. \(late.sorted { $0.1 > $1.1 }.prefix(3))")
        #expect(ledger.allSatisfy { $0.state == .sent || $0.state == .sentLate })
    }
}
