import DatebookCore
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
