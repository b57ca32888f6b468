import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// `LISTEN`/`NOTIFY` wake-ups and reconnecting on a PostgreSQL store.
@Suite(.serialized) struct ChangeListenerTests {
    /// Counts the listener's wake-ups.
    final class Wakes: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let count = Mutex(0)

        func post() {
            count.withLock { $0 += 1 }
            semaphore.signal()
        }

        /// True when a wake-up arrives within `seconds`.
        func arrive(within seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
    }

    static let now = Date(timeIntervalSince1970: 1_796_025_600)

    static func event(_ id: String) -> Event {
        Event(id: id, title: "Event \(id)", start: .instant(now), timeZone: "UTC", symbol: .star, color: .red)
    }

    @Test func committedChangesWakeTheListenerAndClaimsRollbacksAndOtherSchemasDoNot() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let writer = try PostgresStore(url: url)
        let other = try PostgresStore(url: url + "?schema=other_team")
        let listener = try #require(writer.changeListener())
        let wakes = Wakes()
        listener.start(changed: { wakes.post() }, log: { Issue.record("unexpected log line: \($0)") })
        defer { listener.stop() }
        #expect(listener.isListening)

        try writer.save(Self.event("e1"))
        #expect(wakes.arrive(within: 5), "saving an event")
        struct Undo: Error {}
        _ = try? writer.transaction { try writer.save(Self.event("e2")); throw Undo() }
        #expect(!wakes.arrive(within: 0.5), "a rolled-back save")
        try other.save(Self.event("e3"))
        #expect(!wakes.arrive(within: 0.5), "another schema's change")
        // A pass's claims, outcomes and idle statements must not wake the daemons, itself included.
        _ = try writer.transaction { try writer.claimDue(now: Self.now, lease: 60, claimant: "h:1") }
        try writer.setLastPass(Self.now)
        #expect(!wakes.arrive(within: 0.5), "an empty claim")
        try writer.plan(LedgerEntry(key: "snooze", kind: .digest, digest: "morning", channel: "c", dueAt: Self.now), now: Self.now)
        #expect(wakes.arrive(within: 5), "a new delivery (a snooze)")
        #expect(try writer.delete(id: "e1"))
        #expect(wakes.arrive(within: 5), "deleting an event")
    }

    @Test func theListenerAndTheStoreConnectAgainAfterTheirConnectionsAreCut() throws {
        let server = try TestPostgres.shared()
        let url = try server.makeDatabase()
        let store = try PostgresStore(url: url)
        let listener = try #require(store.changeListener())
        let wakes = Wakes()
        let lines = Mutex<[String]>([])
        listener.start(changed: { wakes.post() }, log: { line in lines.withLock { $0.append(line) } })
        defer { listener.stop() }
        #expect(try store.eventCount() == 0)
        #expect(try server.terminateConnections(database: URL(string: url)?.lastPathComponent ?? "") == 2)
        // The loss counts as a change; so does the return, after the first backoff (0.5 s).
        #expect(wakes.arrive(within: 5), "the loss")
        #expect(wakes.arrive(within: 5), "the return")
        #expect(listener.isListening)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2 && logged[0].hasSuffix("; listening for changes again in 0.5 s"), "\(logged)")
        #expect(logged.last == "store \(url): connection back, listening for changes again")
        // The store's statement that meets the loss fails; the next one connects again.
        #expect(throws: StoreError.self) { try store.eventCount() }
        try store.save(Self.event("e1"))
        #expect(try store.eventCount() == 1)
        #expect(wakes.arrive(within: 5), "a change after the return")
    }

    @Test(arguments: [(1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0), (7, 30.0), (1000, 30.0)])
    func reconnectingBacksOffFromHalfASecondToThirtySeconds(_ failures: Int, _ delay: Double) {
        #expect(ReconnectBackoff.delay(failures: failures) == delay)
    }
}
