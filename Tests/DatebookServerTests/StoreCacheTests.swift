import DatebookCore
import DatebookRender
@testable import DatebookServer
@testable import DatebookStore
import DatebookTestSupport
import Foundation
import Synchronization
import Testing

/// `StoreCache`: the feed and the agenda are made once per store state, however many ask at once.
struct StoreCacheTests {
    @Test func aRequestDuringTheMakingWaitsForItInsteadOfMakingItAgain() throws {
        let directory = makeScratchFolder("cache")
        defer { removeScratchFolder(directory) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store.sqlite3"
        try Data("x".utf8).write(to: URL(fileURLWithPath: store))
        let cache = StoreCache<Int>()
        let made = Mutex(0)
        let started = DispatchSemaphore(value: 0)
        let results = Mutex<[Int]>([])
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {  // the background refresh after a change
            let value = try? cache.value(storePath: store) { _ in
                started.signal()
                Thread.sleep(forTimeInterval: 0.3)
                return made.withLock { $0 += 1; return $0 }
            }
            results.withLock { $0.append(value ?? -1) }
        }
        started.wait()
        let value = try cache.value(storePath: store) { _ in made.withLock { $0 += 1; return $0 } }  // a request meanwhile
        group.wait()
        #expect(made.withLock { $0 } == 1, "made twice for one store state")
        #expect(value == 1 && results.withLock { $0 } == [1])
    }

    /// Wake-ups while a background refresh runs are not dropped: it runs once more after, for all of them.
    @Test func refreshesAskedForWhileOneRunsRunOnceMoreAfterIt() throws {
        let cache = StoreCache<Int>()
        let runs = Mutex(0)
        let first = DispatchSemaphore(value: 0)
        cache.refreshInBackground {
            if runs.withLock({ $0 += 1; return $0 }) == 1 { first.wait() }
        }
        for _ in 0..<3 { cache.refreshInBackground { runs.withLock { $0 += 1 } } }
        #expect(cache.isRefreshing)
        first.signal()
        let deadline = Date().addingTimeInterval(10)
        while cache.isRefreshing, Date() < deadline { usleep(1_000) }
        #expect(!cache.isRefreshing)
        #expect(runs.withLock { $0 } == 2, "the first, then one more for the three asked meanwhile")
        cache.refreshInBackground { runs.withLock { $0 += 1 } }
        while cache.isRefreshing, Date() < deadline { usleep(1_000) }
        #expect(runs.withLock { $0 } == 3)
    }

    /// After the last writer closed (its `-wal` and `-shm` removed), a reader's own opening makes an
    /// empty log and a new header: that is no change of the planner, so the next request finds the
    /// answer made; a commit still is one.
    @Test func aReaderMakingTheEmptyLogAgainLeavesTheAnswerMade() throws {
        let folder = ScratchFolder("cache-log")
        let store = folder.path + "/store.sqlite3"
        let day = EventStart.allDay(CalendarDate(year: 2026, month: 1, day: 1))
        try Store(path: store).save(Event(id: "e1", title: "A", start: day, timeZone: "UTC", symbol: .star, color: .red))
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"), "the writer, closing last, removed its log")
        for cache in [StoreCache<String>(), StoreCache<String>(changes: StoreChangeSignal())] {
            let title = { try cache.value(storePath: store) { _ in try Store(path: store, readOnly: true).event(id: "e1")?.title ?? "" } }
            #expect(try title() == "A")
            #expect(FileManager.default.fileExists(atPath: store + "-wal"), "the reader made the log again")
            #expect(try title() == "A")
            #expect(cache.made.withLock { $0 } == 1, "made again for the reader's own log")
            try Store(path: store).save(Event(id: "e1", title: "B", start: day, timeZone: "UTC", symbol: .star, color: .red))
            #expect(try title() == "B")
            #expect(cache.made.withLock { $0 } == 2)
            try Store(path: store).save(Event(id: "e1", title: "A", start: day, timeZone: "UTC", symbol: .star, color: .red))
            #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        }
    }

    /// A PostgreSQL store has no file to watch: its `data_version` sequence is the key.
    @Test func aWriteToAPostgresStoreIsSeen() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let store = try PostgresStore(url: url)
        try store.save(Event(id: "e1", title: "Title A", start: .allDay(CalendarDate(year: 2026, month: 1, day: 1)), timeZone: "UTC", symbol: .star, color: .red))
        let cache = StoreCache<String>()
        let title = { try cache.value(storePath: url) { _ in try PostgresStore(url: url).event(id: "e1")?.title ?? "" } }
        #expect(try title() == "Title A")
        try store.save(Event(id: "e1", title: "Title B", start: .allDay(CalendarDate(year: 2026, month: 1, day: 1)), timeZone: "UTC", symbol: .star, color: .red))
        #expect(try title() == "Title B")
    }

    static func times(_ path: String) -> (access: timespec, modified: timespec, size: Int) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_atim, info.st_mtim, Int(info.st_size))
    }
}

/// The agenda page's cache is keyed on the planner's state and the second, never on the request.
struct AgendaCacheKeyTests {
    @Test func aNewHostPerRequestCostsNoRenderAndEachSessionGetsItsOwnCSRF() throws {
        let directory = NSTemporaryDirectory() + "datebook-agenda-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storePath = directory + "/store.sqlite3"
        let now = ISOInstant.parse("2026-12-01T09:00:00Z") ?? Date()
        try Store(path: storePath).save(Event(id: "e1", title: "Pagliacci", start: .instant(now.addingTimeInterval(86400)), timeZone: "UTC",
                                              symbol: .star, color: .red, tasks: [EventTask(id: "a", text: "Tickets")]))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let settings = SiteSettings(storePath: storePath, calendar: calendar, pinnedNow: now, templates: directory + "/templates", baseURL: nil, feedToken: nil)
        let auth = SiteAuth(token: "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg", secureCookie: false)
        let site = try PlannerSite(settings: settings, auth: auth, locale: DigestLocale(identifier: "en_US", timeZone: calendar.timeZone))
        let sessions = (0..<2).map { _ in auth.sessions.start(now: Date(), lifetime: 60) }
        // The first pages settle the store's files (the feed token's write, the checkpoint as the last connection closes).
        for _ in 0..<3 { _ = try site.agendaPage(WebRequest(method: "GET", path: "/", headers: ["Host": "127.0.0.1:8650"]), [:]) }
        let before = site.agenda.made.withLock { $0 }
        var bodies: [String] = []
        for n in 0..<50 {
            let session = sessions[n % 2]
            let request = WebRequest(method: "GET", path: "/", headers: ["Host": "127.0.0.\(n + 1):8650", "Cookie": "datebook_session=\(session.id)"])
            let page = try site.agendaPage(request, [:])
            let text = String(decoding: page.body, as: UTF8.self)
            #expect(text.contains("Pagliacci") && text.contains(#"name="csrf" value="\#(session.csrf)""#) && !text.contains(site.csrfPlaceholder))
            bodies.append(text.replacingOccurrences(of: session.csrf, with: "CSRF"))
        }
        #expect(site.agenda.made.withLock { $0 } == before, "rendered again for a new Host")
        #expect(Set(bodies).count == 1)
    }
}
