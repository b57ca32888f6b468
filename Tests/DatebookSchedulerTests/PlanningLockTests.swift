import DatebookCore
import DatebookDelivery
@testable import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// Several schedulers on one PostgreSQL store plan one after another (`lockPlanning`): a pass that
/// waited while another planned reads the last pass that one committed and plans only what came
/// due since, instead of reading and inserting the same window again.
@Suite(.serialized) struct PlanningLockTests {
    static let now = utc("2026-12-02T09:00:00Z")

    static func config() -> Config {
        Config(timeZone: "Europe/Berlin",
               channels: [Channel(name: "hook", kind: .webhook(url: .inline("http://127.0.0.1:9/hook"), secret: nil))],
               alerts: AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"]))
    }

    /// A store with `count` events whose 1-hour alerts fell due 30 s before `now`.
    static func store(count: Int) throws -> String {
        let url = try TestPostgres.shared().makeDatabase()
        try PostgresStore(url: url).save((0..<count).map { event("Due \($0)", at: now.addingTimeInterval(3600 - 30)) })
        return url
    }

    static func scheduler(_ url: String, _ channels: FakeChannels) throws -> Scheduler {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        channels.now = now
        return Scheduler(store: try PostgresStore(url: url), config: config(), calendar: calendar, deliverer: channels)
    }

    /// Another scheduler's pass on its own connection and thread: it holds the planning lock for
    /// half a second, then runs `plan` and records that it planned through `now`. Returns once the
    /// lock is held, with a function that waits for its commit and gives its error, if any.
    static func otherPass(_ url: String, plan: @escaping @Sendable (PostgresStore) throws -> Void) -> () -> String? {
        let locked = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Thread.detachNewThread {
            do {
                let other = try PostgresStore(url: url)
                try other.transaction {
                    try other.lockPlanning()
                    locked.signal()
                    Thread.sleep(forTimeInterval: 0.5)
                    try plan(other)
                    try other.setLastPass(now)
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
                locked.signal()
            }
            done.signal()
        }
        locked.wait()
        return {
            done.wait()
            return failure.withLock { $0 }
        }
    }

    @Test func aPassThatWaitedForAnotherPlansOnlyWhatThatOneDidNot() throws {
        let url = try Self.store(count: 20)
        // It takes the queue of changed events (the 20 new ones) as a pass does.
        let otherFinished = Self.otherPass(url) { _ = try $0.changedEvents(taking: true) }
        let channels = FakeChannels()
        let report = try Self.scheduler(url, channels).tick(now: Self.now)
        #expect(otherFinished() == nil)
        #expect(report.planned == 0)
        #expect(channels.sent.isEmpty)
        #expect(try PostgresStore(url: url).allDeliveries().isEmpty)
    }

    /// A pass that cancels a pending row (its event was deleted) while another pass holds the lock
    /// and plans that row's key again: the waiting pass holds no row lock yet, so neither waits for
    /// the other (with the cancel written before the lock, PostgreSQL found a deadlock).
    @Test func aPassWaitingForTheLockHoldsNoRowTheOtherNeeds() throws {
        let url = try Self.store(count: 1)
        let store = try PostgresStore(url: url)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let planned = try Planner(store: store, config: Self.config(), calendar: calendar)
            .deliveries(from: Self.now.addingTimeInterval(-60), through: Self.now).map { $0.entry(state: .pending) }
        try #require(planned.count == 1)
        #expect(try store.plan(planned, now: Self.now).count == 1)
        _ = try store.changedEvents(taking: true)
        try store.setLastPass(Self.now.addingTimeInterval(-60))
        #expect(try store.delete(id: try #require(planned.first?.eventID)))
        let otherFinished = Self.otherPass(url) { _ = try $0.plan(planned, now: Self.now) }
        let report = try Self.scheduler(url, FakeChannels()).tick(now: Self.now)
        #expect(otherFinished() == nil)
        #expect(report.cancelled == 1)
        #expect(try store.delivery(key: planned[0].key)?.state == .cancelled)
    }

    @Test func twoSchedulersAtOnceSendEachAlertOnce() throws {
        let url = try Self.store(count: 300)
        let results = Mutex<[Result<(TickReport, [String]), Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = Result { () throws -> (TickReport, [String]) in
                let channels = FakeChannels()
                let report = try Self.scheduler(url, channels).tick(now: Self.now)
                return (report, channels.sent.map(\.key))
            }
            results.withLock { $0.append(result) }
        }
        let done = try results.withLock { try $0.map { try $0.get() } }
        #expect(done.map(\.0.planned).reduce(0, +) == 300)
        #expect(done.map(\.0.sent).reduce(0, +) == 300)
        let keys = done.flatMap(\.1)
        #expect(keys.count == 300 && Set(keys).count == 300)
        #expect(try PostgresStore(url: url).allDeliveries().allSatisfy { $0.state == .sent })
    }
}

