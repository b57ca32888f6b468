import DatebookCore
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The queue of events whose alert times changed since the last pass (`changed_events`), on both backends.
struct ChangedEventsTests {
    static func event(_ id: String, day: Int = 20_800, alerts: [LeadTime] = []) -> Event {
        Event(id: id, title: "Event \(id)", start: .instant(Date(timeIntervalSince1970: TimeInterval(day * 86_400 + 36_000))),
              timeZone: "UTC", symbol: .star, color: .indigo, alerts: alerts)
    }

    @Test(arguments: Backend.allCases)
    func insertsAndMovesAreQueuedRenamesAndTasksAreNot(_ backend: Backend) throws {
        let store = try backend.open()
        try store.save([Self.event("e1"), Self.event("e2")])
        #expect(try store.changedEvents(taking: false) == ["e1", "e2"])
        #expect(try store.changedEvents(taking: true) == ["e1", "e2"])
        #expect(try store.changedEvents(taking: true).isEmpty)
        var renamed = Self.event("e1")
        renamed.title = "Renamed"
        renamed.notes = "notes"
        renamed.tasks = [EventTask(id: "t", text: "Task", status: .done)]
        try store.save(renamed)
        #expect(try store.changedEvents(taking: false).isEmpty)
        try store.save(Self.event("e1", day: 20_801))
        try store.save(Self.event("e2", alerts: [LeadTime(seconds: 600)]))
        #expect(try store.changedEvents(taking: true) == ["e1", "e2"])
        try store.delete(id: "e1")
        #expect(try store.changedEvents(taking: false).isEmpty)
    }

    /// A bulk save suspends the SQLite triggers and queues its batch itself.
    @Test(arguments: Backend.allCases)
    func aBulkSaveQueuesEveryEventOfItsBatch(_ backend: Backend) throws {
        let store = try backend.open()
        let batch = (0..<6_000).map { Self.event(String(format: "%016x", $0)) }
        try store.save(batch)
        #expect(try store.changedEvents(taking: true).count == 6_000)
        try store.save(batch.map { var event = $0; event.start = .allDay(CalendarDate(dayNumber: 20_900)); return event })
        #expect(try store.changedEvents(taking: true).count == 6_000)
        try store.save([Self.event("0000000000000001", day: 20_950)])
        #expect(try store.changedEvents(taking: true) == ["0000000000000001"])
    }

    /// A refresh deletes and writes back all of a feed's events: only those whose alert times
    /// changed (or that were queued already) stay queued.
    @Test(arguments: Backend.allCases)
    func aFeedRefreshQueuesOnlyTheEventsItChanged(_ backend: Backend) throws {
        let store = try backend.open()
        let feed = Feed(name: "team", source: "/tmp/team.ics", every: 1800)
        try store.addFeed(feed)
        let events = ["f1", "f2", "f3"].map { Self.event($0) }
        let uids = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0.id + "@example.org") })
        let now = Date(timeIntervalSince1970: 1_796_025_600)
        try store.replaceFeedEvents(feed, with: ICSImport(events: events, uids: uids, warnings: []), etag: nil, lastModified: nil, now: now)
        #expect(try store.changedEvents(taking: true) == ["f1", "f2", "f3"])
        try store.save(Self.event("f3", day: 20_802))  // queued before the refresh: stays queued
        var renamed = Self.event("f1")
        renamed.title = "Renamed in the feed"
        let refreshed = [renamed, Self.event("f2", day: 20_801), Self.event("f3", day: 20_802)]
        try store.replaceFeedEvents(feed, with: ICSImport(events: refreshed, uids: uids, warnings: []), etag: nil, lastModified: nil, now: now)
        #expect(try store.changedEvents(taking: true) == ["f2", "f3"])
        #expect(try store.event(id: "f1")?.title == "Renamed in the feed")
    }

    /// `store copy` writes every event into the target, which would queue them all: the target's
    /// queue is the source's instead, either way.
    @Test(arguments: Backend.allCases)
    func aStoreCopyCarriesTheQueueAsItIs(_ backend: Backend) throws {
        let from = try backend.location(), to = try (backend == .sqlite ? Backend.postgresql : Backend.sqlite).location()
        let source = try StoreOpener.open(from)
        try source.save([Self.event("e1"), Self.event("e2")])
        _ = try source.changedEvents(taking: true)
        try source.save(Self.event("e3"))
        try StoreCopy(from: from, to: to, now: Date(timeIntervalSince1970: 1_796_025_600)).run()
        let target = try StoreOpener.open(to)
        #expect(try target.eventCount() == 3)
        #expect(try target.changedEvents(taking: false) == ["e3"])
    }

    /// Two schedulers taking at once: the second waits for the first's row locks, then finds the rows gone.
    @Test func twoInstancesTakingAtOnceGetDisjointEvents() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let first = try PostgresStore(url: url)
        nonisolated(unsafe) let second = try PostgresStore(url: url)
        try first.save((0..<20).map { Self.event("e\($0)") })
        nonisolated(unsafe) var theirs: Set<String> = ["not taken"]
        let done = DispatchSemaphore(value: 0)
        let mine = try first.transaction {
            let mine = try first.changedEvents(taking: true)
            Thread.detachNewThread {
                theirs = (try? second.transaction { try second.changedEvents(taking: true) }) ?? ["failed"]
                done.signal()
            }
            usleep(300_000)
            return mine
        }
        done.wait()
        #expect(mine.count == 20)
        #expect(theirs.isEmpty)
        // A pass that rolls back leaves the ids queued.
        try first.save([Self.event("e1", day: 20_801)])
        struct Crash: Error {}
        #expect(throws: Crash.self) { try first.transaction { _ = try first.changedEvents(taking: true); throw Crash() } }
        #expect(try second.changedEvents(taking: true) == ["e1"])
    }
}
