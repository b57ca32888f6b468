import DatebookCore
@testable import DatebookStore
import Foundation
import Testing

/// Saves of at least `Store.bulkThreshold` events drop and rebuild the secondary indexes; the
/// result must be exactly what row-by-row saves produce. SQLite only: its bulk path (PostgreSQL's
/// COPY: `PostgresBulkSaveTests`).
struct BulkLoadTests {
    let calendar = utcCalendar("Europe/Berlin")
    let base = Date(timeIntervalSince1970: 1_790_000_000)

    func events(_ count: Int, taskText: String = "task") -> [Event] {
        (0..<count).map { n in
            var event = Event(id: EventID.stable("bulk \(n)"), title: "Bulk \(n)",
                              start: n % 7 == 0 ? .allDay(CalendarDate(base.addingTimeInterval(Double(n) * 3_600), in: calendar.timeZone))
                                                : .instant(base.addingTimeInterval(Double(n) * 3_600)),
                              timeZone: "Europe/Berlin", symbol: .star, color: .red,
                              tasks: (0..<(n % 4)).map { EventTask(id: "t\($0)", text: "\(taskText) \($0)", status: $0 == 0 ? .done : .todo) })
            if n % 10 == 0 { event.recurrence = "FREQ=WEEKLY;COUNT=20" }
            // A few distinct lead lists: the ledger's `alert_lead_sets` must list each.
            if n % 3 == 0 { event.alerts = [LeadTime(days: n % 2), LeadTime(seconds: 3_600 * (n % 5))] }
            return event
        }
    }

    func snapshot(_ store: Store) throws -> (events: [Event], occurrences: [String], indexes: [String]) {
        var all: [Event] = []
        try store.forEachEvent { all.append($0) }
        var seen: [String] = []
        try store.forEachOccurrence(from: base, to: base.addingTimeInterval(120 * 86_400), calendar: calendar) {
            seen.append("\($0.event.id) \($0.start) \($0.event.badge)")
        }
        // The materialised rows themselves (bulk saves expand them on another thread).
        let materialised = try store.db.prepare("SELECT event_id, start_key FROM occurrences ORDER BY event_id, start_key")
        while try materialised.step() { seen.append("row \(materialised.text(0)) \(materialised.int64(1))") }
        // Triggers suspended by the bulk load are back, and the lead sets they keep are complete.
        for set in try store.distinctEventAlerts().sorted() { seen.append("lead set \(set)") }
        var indexes: [String] = []
        let rows = try store.db.prepare("SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY name")
        while try rows.step() { indexes.append(rows.text(0) + " " + rows.text(1)) }
        return (all, seen, indexes)
    }

    func store(_ name: String) throws -> Store {
        let store = try Store(path: temporaryDirectory() + "/\(name).sqlite3")
        store.recurrenceHorizon = DateInterval(start: base, end: base.addingTimeInterval(92 * 86_400))
        return store
    }

    @Test func bulkSaveIntoAnEmptyStoreEqualsRowByRowSaves() throws {
        let batch = events(Store.bulkThreshold + 500)
        let rowByRow = try store("rows")
        for start in stride(from: 0, to: batch.count, by: 100) {
            try rowByRow.save(Array(batch[start..<min(batch.count, start + 100)]))
        }
        let bulk = try store("bulk")
        try bulk.save(batch)
        let expected = try snapshot(rowByRow)
        let got = try snapshot(bulk)
        #expect(expected.events.count == batch.count)
        #expect(expected.occurrences.count > batch.count / 10, "recurring events are materialised")
        #expect(got.events == expected.events)
        #expect(got.occurrences == expected.occurrences)
        #expect(got.indexes == expected.indexes, "every index and trigger comes back with its own definition")
        #expect(got.occurrences.filter { $0.hasPrefix("lead set") }.count == 10)
        #expect(got.indexes.filter { $0.hasPrefix("events_alert_sets_") }.count == 2)
        #expect(try bulk.integrityCheck() == "ok")
        // Loaded without SQLite's foreign-key checks: every row has its event, and checks are back on.
        #expect(try !bulk.db.prepare("PRAGMA foreign_key_check").step())
        #expect(try bulk.db.integer("PRAGMA foreign_keys") == 1)
        // The indexes were built with the sorter's helper threads and a 2 MB page cache; the connection
        // is back to no helpers and the writer's 32 MB.
        #expect(try bulk.db.integer("PRAGMA threads") == 0)
        #expect(try bulk.db.integer("PRAGMA cache_size") == -32768)
        // Written through a rollback journal (no other connection was open), and back in WAL mode.
        // Pages that went through the WAL would still be in it: the store stays open.
        #expect(try journalMode(bulk) == "wal")
        #expect(walBytes(bulk) < 64 * 1024)
        #expect(!FileManager.default.fileExists(atPath: bulk.path + "-journal"))
        // The triggers work again after the load.
        var later = batch[0]
        later.alerts = [LeadTime(days: 9)]
        try bulk.save([later])
        #expect(try bulk.distinctEventAlerts().contains("9d"))
    }

    func walBytes(_ store: Store) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: store.path + "-wal"))?[.size] as? Int) ?? 0
    }

    func journalMode(_ store: Store) throws -> String {
        let row = try store.db.prepare("PRAGMA journal_mode")
        return try row.step() ? row.text(0) : ""
    }

    /// With another connection open SQLite refuses to leave WAL mode; the load then stays in WAL,
    /// and the other connection sees all of it.
    @Test func bulkSaveWithTheStoreOpenElsewhereStaysInWALMode() throws {
        let bulk = try store("shared")
        let other = try Store(path: bulk.path, readOnly: true)
        #expect(try other.eventCount() == 0)
        let batch = events(Store.bulkThreshold)
        try bulk.save(batch)
        #expect(try journalMode(bulk) == "wal")
        #expect(walBytes(bulk) > 64 * 1024, "the rows went through the WAL")
        #expect(try other.eventCount() == batch.count)
        #expect(try bulk.integrityCheck() == "ok")
    }

    /// The writer fails part-way (two events with one id give two rows for one task key): the error
    /// comes back, the helper thread making rows stops, and the store is as it was.
    @Test func failedBulkSaveLeavesTheStoreAsItWas() throws {
        let store = try store("failed")
        let before = try snapshot(store)
        var batch = events(Store.bulkThreshold * 2)
        batch.append(batch[4_001])
        #expect(batch[4_001].tasks.count == 1)
        #expect(throws: StoreError.self) { try store.save(batch) }
        let after = try snapshot(store)
        #expect(after.events.isEmpty)
        #expect(after.indexes == before.indexes)
        #expect(try journalMode(store) == "wal")
        #expect(try store.db.integer("PRAGMA foreign_keys") == 1)
        try store.save(Array(batch.dropLast()))
        #expect(try store.eventCount() == batch.count - 1)
    }

    @Test func bulkSaveOverExistingEventsReplacesTheirTasksAndKeepsTheRest() throws {
        let store = try store("update")
        let old = events(20, taskText: "old")
        let kept = Event(id: "keep000000000000", title: "Kept", start: .instant(base), timeZone: "UTC",
                         symbol: .bell, color: .mint, tasks: [EventTask(id: "k", text: "kept task", status: .doing)])
        try store.save(old + [kept])
        let batch = events(Store.bulkThreshold, taskText: "new")
        try store.save(batch)
        let got = try snapshot(store).events
        #expect(got.count == batch.count + 1)
        #expect(got.contains(kept))
        let texts = got.flatMap(\.tasks).map(\.text)
        #expect(!texts.contains { $0.hasPrefix("old") }, "tasks of re-saved events are replaced, not appended")
        let reference = try self.store("reference")
        try reference.save(old + [kept])
        for start in stride(from: 0, to: batch.count, by: 100) {
            try reference.save(Array(batch[start..<min(batch.count, start + 100)]))
        }
        #expect(try snapshot(store).occurrences == snapshot(reference).occurrences)
        #expect(try snapshot(store).indexes == snapshot(reference).indexes)
    }
}

struct BulkOrderTests {
    func event(_ id: String) -> Event {
        Event(id: id, title: id, start: .instant(Date(timeIntervalSince1970: 0)), timeZone: "UTC", symbol: .star, color: .red)
    }

    @Test func hexIdsSortAsTheirTextSorts() {
        #expect(Store.hexKey("00000000000000ff") == 255)
        #expect(Store.hexKey("ffffffffffffffff") == UInt64.max)
        #expect(Store.hexKey("00000000000000FF") == nil)
        #expect(Store.hexKey("0000000000000ff") == nil)
        #expect(Store.hexKey("keep000000000000") == nil)
        let ids = (0..<500).map { EventID.stable("order \($0)") } + ["0000000000000000", "ffffffffffffffff", "8000000000000000"]
        let events = ids.map(event)
        #expect(Store.idOrder(events).map { events[$0].id } == ids.sorted())
        // One id that is not 16 hex digits: the text order still holds.
        let mixed = ids + ["keep000000000000", "Tasks", "a"]
        let mixedEvents = mixed.map(event)
        #expect(Store.idOrder(mixedEvents).map { mixedEvents[$0].id } == mixed.sorted())
    }

    /// Eight digits at a time gives what reading the digits one by one gives: every byte value at
    /// every place of a valid id, and random ids.
    @Test func hexKeyReadsAsDigitByDigit() {
        func plain(_ id: String) -> UInt64? {
            let bytes = Array(id.utf8)
            guard bytes.count == 16 else { return nil }
            var key: UInt64 = 0
            for byte in bytes {
                switch byte {
                case 0x30...0x39: key = key << 4 | UInt64(byte - 0x30)
                case 0x61...0x66: key = key << 4 | UInt64(byte - 0x61 + 10)
                default: return nil
                }
            }
            return key
        }
        let valid = Array("0123456789abcdef".utf8)
        for place in 0..<16 {
            for byte in 0...255 {
                var bytes = valid
                bytes[place] = UInt8(byte)
                // Not UTF-8 on its own: replaced by U+FFFD, which is longer.
                let id = String(decoding: bytes, as: UTF8.self)
                #expect(Store.hexKey(id) == plain(id), "\(place) \(byte)")
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let id = EventID.hex(UInt64.random(in: .min ... .max, using: &generator))
            #expect(Store.hexKey(id) == plain(id) && plain(id) != nil, "\(id)")
        }
        for id in ["", "0", "00000000000000000", "ÿÿÿÿÿÿÿÿ", "0123456789abcdeF", "/:`g@G0000000000"] {
            #expect(Store.hexKey(id) == plain(id), "\(id)")
        }
    }
}
