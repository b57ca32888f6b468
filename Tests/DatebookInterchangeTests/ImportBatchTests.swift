import DatebookCore
import DatebookICal
@testable import DatebookStore
@testable import DatebookInterchange
import DatebookTestSupport
import Foundation
import Testing

/// `importICS` reads a large file in batches, all saved in one transaction; the store it leaves
/// must be exactly the one the whole file leaves, whatever crosses batch boundaries.
struct ImportBatchTests {
    static let zone = TimeZone(identifier: "Europe/Berlin") ?? .current
    static let today = CalendarDate(year: 2026, month: 3, day: 1)
    static let now = Date(timeIntervalSince1970: 1_772_355_600)  // 2026-03-01T09:00:00Z
    /// Larger than any fixture here: the file is one batch, joined as a whole.
    static let whole = 1_000_000

    static func calendar(_ body: String) -> String { "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n" }

    static func event(_ uid: String, _ summary: String, day: Int, extra: String = "") -> String {
        "BEGIN:VEVENT\r\nUID:\(uid)\r\nSUMMARY:\(summary)\r\nDTSTART:202603\(String(format: "%02d", day % 28 + 1))T090000Z\r\n\(extra)END:VEVENT\r\n"
    }

    static func todo(_ uid: String, _ summary: String, for event: String?) -> String {
        "BEGIN:VTODO\r\nUID:\(uid)\r\nSUMMARY:\(summary)\r\n" + (event.map { "RELATED-TO:\($0)\r\n" } ?? "") + "END:VTODO\r\n"
    }

    /// ConvertPartsTests' file (overrides before and after their masters, cancelled ones, a UID
    /// given 100 times, tasks for earlier, later and no events, refused rules), with an event that
    /// gives its symbol and colour first and not when repeated.
    static let small = calendar(
        event("look", "Looks first", day: 1, extra: "X-DATEBOOK-SYMBOL:gift.fill\r\nCOLOR:red\r\n")
            + ConvertPartsTests.text.components(separatedBy: "PRODID:-//t//EN\r\n")[1].replacingOccurrences(of: "END:VCALENDAR\r\n", with: "")
            + event("look", "Looks plain", day: 2))

    /// What a store held before the import: events of the file with their own symbol, colour and tasks.
    static let before = calendar(
        event("look", "Stored look", day: 3, extra: "X-DATEBOOK-SYMBOL:leaf.fill\r\nCOLOR:green\r\n")
            + event("e6", "Stored plain", day: 4, extra: "X-DATEBOOK-SYMBOL:car.fill\r\n") + todo("s1", "Stored task", for: "e6")
            + event("twice", "Stored twice", day: 5) + todo("s2", "Stored twice task", for: "twice"))

    /// Everything an import writes, table by table.
    struct Contents: Equatable {
        var events: [Event]
        var rows: [[String]]
    }

    static func contents(_ store: Store) throws -> Contents {
        var events: [Event] = []
        try store.forEachEvent { events.append($0) }
        let queries = [
            "SELECT event_id || ' ' || start_key FROM occurrences ORDER BY 1",
            "SELECT event_id || ' ' || from_key || ' ' || to_key FROM recurrence_spans ORDER BY 1",
            "SELECT event_id || ' ' || calendar || ' ' || uid FROM event_sources ORDER BY 1",
            "SELECT event_id FROM changed_events ORDER BY 1",
            "SELECT alerts FROM alert_lead_sets ORDER BY 1",
            "SELECT type || ' ' || name || ' ' || sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY 1",
        ]
        return try Contents(events: events.sorted { $0.id < $1.id }, rows: queries.map { sql in try store.rows(sql) { $0.text(0) } })
    }

    /// Imports `text` in batches of `batchEvents` VEVENTs into `store`; the warnings given.
    @discardableResult
    static func importing(_ text: String, into store: Store, batchEvents: Int, file: String? = nil) throws -> (ImportSummary, [String]) {
        var warnings: [String] = []
        let data = ImportFile(name: "c.ics", copying: Data(text.utf8))
        let source: ImportFile
        if let file {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            source = try ImportFile(path: file)
        } else {
            source = data
        }
        let summary = try store.importICS(source, timeZone: zone, today: today, batchEvents: batchEvents,
                                          warn: { warnings.append($0) }, progress: { _ in })
        return (summary, warnings)
    }

    static func store(_ folder: ScratchFolder, _ name: String, holding text: String? = nil) throws -> Store {
        let store = try Store(path: folder.file(name))
        store.recurrenceHorizon = Store.standardHorizon(now: now)
        if let text { try importing(text, into: store, batchEvents: whole) }
        return store
    }

    @Test(arguments: [1, 3, 50], [false, true])
    func batchesLeaveTheStoreTheWholeFileLeaves(batchEvents: Int, stored: Bool) throws {
        let folder = ScratchFolder("import-batches")
        let one = try Self.store(folder, "one.sqlite3", holding: stored ? Self.before : nil)
        let batched = try Self.store(folder, "batched.sqlite3", holding: stored ? Self.before : nil)
        let (wholeSummary, wholeWarnings) = try Self.importing(Self.small, into: one, batchEvents: Self.whole)
        let (summary, warnings) = try Self.importing(Self.small, into: batched, batchEvents: batchEvents)
        let expected = try Self.contents(one)
        #expect(try Self.contents(batched) == expected)
        #expect(summary.events == wholeSummary.events)
        #expect(Set(warnings) == Set(wholeWarnings))
        // The fixture exercises what it claims to.
        let events = expected.events
        let look = PlannerICS.eventID(uid: "look", calendar: "import")
        #expect(events.first { $0.id == look }?.symbol == (stored ? .leaf : PlannerICS.defaultLook(id: look).symbol))
        #expect(events.contains { ($0.recurrence ?? "").contains("EXDATE") })
        #expect(events.first { $0.title == "Tasks" }?.tasks.count == 100)
        #expect(events.first { $0.title == "Weekly 0" }?.tasks.map(\.status) == [.doing])
        #expect(stored == events.contains { $0.tasks.contains { $0.text == "Stored twice task" } })
        #expect(!events.contains { $0.tasks.contains { $0.text == "Stored task" } }, "the file's VTODOs replace an event's stored tasks")
    }

    /// Over 5,000 events, into an empty store and into one holding some: the bulk path, with events
    /// of earlier batches written again (a repeated UID, an override's master, a late VTODO).
    @Test(arguments: [false, true])
    func largeImportsInBatchesLeaveTheSameStore(stored: Bool) throws {
        var body = Self.event("first", "First", day: 0, extra: "RRULE:FREQ=WEEKLY;COUNT=20\r\n")
        for n in 0..<5_200 {
            body += Self.event("p\(n)", "Plain \(n)", day: n, extra: n % 10 == 0 ? "RRULE:FREQ=WEEKLY\r\n" : "")
            for k in 0..<(n % 3) { body += Self.todo("t\(n).\(k)", "Task \(k)", for: "p\(n)") }
        }
        body += Self.todo("late", "Late task", for: "first") + Self.event("p7", "Plain 7 again", day: 9)
        body += "BEGIN:VEVENT\r\nUID:first\r\nRECURRENCE-ID:20260310T090000Z\r\nDTSTART:20260310T100000Z\r\nSUMMARY:Moved\r\nEND:VEVENT\r\n"
        let text = Self.calendar(body)
        let folder = ScratchFolder("import-batches")
        let before = Self.calendar(Self.event("p1", "Stored", day: 1) + Self.todo("s", "Stored task", for: "p1"))
        let one = try Self.store(folder, "one.sqlite3", holding: stored ? before : nil)
        let batched = try Self.store(folder, "batched.sqlite3", holding: stored ? before : nil)
        try Self.importing(text, into: one, batchEvents: Self.whole)
        try Self.importing(text, into: batched, batchEvents: 700, file: folder.file("large.ics"))
        let expected = try Self.contents(one)
        #expect(try Self.contents(batched) == expected)
        #expect(expected.events.count == 5_202)
        let first = expected.events.first { $0.title == "First" }
        #expect(first?.tasks.map(\.text) == ["Late task"])
        #expect(first?.recurrence?.contains("EXDATE") == true)
        #expect(expected.events.contains { $0.title == "Plain 7 again" } && !expected.events.contains { $0.title == "Plain 7" })
    }

    /// On PostgreSQL each batch goes through COPY (into empty tables, then the merge of incoming rows).
    @Test func batchesOnPostgreSQLLeaveTheStoreTheWholeFileLeaves() throws {
        let url = try TestPostgres.shared().makeDatabase()
        let one = try PostgresStore(url: url + "?schema=one"), batched = try PostgresStore(url: url + "?schema=batched")
        func contents(_ store: PostgresStore) throws -> [String] {
            var events: [String] = []
            try store.forEachEvent { events.append("\($0)") }
            let occurrences = try store.query("SELECT event_id, start_key FROM occurrences ORDER BY 1, 2").all.map { $0.text(0) + " " + $0.text(1) }
            return events.sorted() + occurrences + ["\(try store.sourceUIDs().sorted { $0.key < $1.key })"]
        }
        for (store, size) in [(one, Self.whole), (batched, 3)] {
            store.recurrenceHorizon = Store.standardHorizon(now: Self.now)
            _ = try store.importICS(ImportFile(name: "c.ics", copying: Data(Self.small.utf8)), timeZone: Self.zone, today: Self.today,
                                    batchEvents: size, warn: { _ in }, progress: { _ in })
        }
        let expected = try contents(one)
        #expect(expected.count > 300)
        #expect(try contents(batched) == expected)
    }

    /// A VTODO before its event, batches earlier, is that event's task; one after its event,
    /// batches later, too.
    @Test func aTodoFindsItsEventInAnotherBatch() throws {
        let text = Self.calendar(Self.todo("early", "Early task", for: "late") + Self.event("a", "A", day: 1)
                                 + Self.event("b", "B", day: 2) + Self.event("late", "Late", day: 3)
                                 + Self.todo("after", "For A", for: "a"))
        let folder = ScratchFolder("import-batches")
        let store = try Self.store(folder, "store.sqlite3")
        let (summary, warnings) = try Self.importing(text, into: store, batchEvents: 1)
        #expect(warnings == [])
        #expect(summary.events == 3, "no \"Tasks\" event")
        let events = try Self.contents(store).events
        #expect(events.first { $0.title == "Late" }?.tasks.map(\.text) == ["Early task"])
        #expect(events.first { $0.title == "A" }?.tasks.map(\.text) == ["For A"])
    }

    /// To-dos that are parts of other to-dos (RELATED-TO a VTODO) go under their top to-do's event
    /// whichever batches the parts, the top and the event are in: a part before its top (and a
    /// part of that part), a part after its top, and parts of a to-do of no event.
    @Test(arguments: [1, 3, 50])
    func partsOfATodoFollowTheirTopAcrossBatches(batchEvents: Int) throws {
        let text = Self.calendar(
            Self.todo("c1", "Child", for: "top") + Self.todo("g1", "Grandchild", for: "c1")
                + Self.event("a", "A", day: 1) + Self.event("b", "B", day: 2) + Self.todo("top", "Top", for: "late")
                + Self.event("c", "C", day: 3) + Self.event("d", "D", day: 4) + Self.event("late", "Late", day: 5)
                + Self.todo("after", "After", for: "top") + Self.event("e", "E", day: 6) + Self.todo("free", "Free", for: nil)
                + Self.event("f", "F", day: 7) + Self.todo("part", "Part of free", for: "free"))
        let folder = ScratchFolder("import-batches")
        let one = try Self.store(folder, "one.sqlite3"), batched = try Self.store(folder, "batched.sqlite3")
        let (_, wholeWarnings) = try Self.importing(text, into: one, batchEvents: Self.whole)
        let (_, warnings) = try Self.importing(text, into: batched, batchEvents: batchEvents)
        let expected = try Self.contents(one)
        #expect(try Self.contents(batched) == expected)
        #expect(warnings == wholeWarnings && warnings == [])
        let late = expected.events.first { $0.title == "Late" }
        #expect(late?.tasks.map(\.text) == ["Child", "Grandchild", "Top", "After"])
        #expect(late?.tasks.map(\.parent) == [PlannerICS.taskID("top"), PlannerICS.taskID("c1"), nil, PlannerICS.taskID("top")])
        let list = expected.events.first { $0.isTaskList }
        #expect(list?.tasks.map(\.text) == ["Free", "Part of free"])
        #expect(list?.tasks.last?.parent == PlannerICS.taskID("free"))
    }

    /// Known gap: a VTODO whose UID is also a VEVENT's (two components of one UID, which RFC 5545
    /// does not allow and a CalDAV server refuses), named by a to-do that comes before both. The
    /// whole file makes the to-do a part of that VTODO; in batches, when the VEVENT's batch is
    /// joined before the VTODO is read, the to-do has gone to the event already. Settling it would
    /// need a look ahead in the file or a move of the task at the end. Fails (and so flags itself)
    /// once both agree.
    @Test(arguments: [1, 3])
    func aTodoNamingAUIDOfBothAnEventAndALaterTodo(batchEvents: Int) throws {
        let text = Self.calendar(
            Self.todo("kid", "Kid", for: "x") + Self.event("a", "A", day: 1) + Self.event("b", "B", day: 2)
                + Self.event("x", "X event", day: 3) + Self.event("c", "C", day: 4) + Self.todo("x", "X todo", for: "b")
                + Self.event("d", "D", day: 5) + Self.todo("kid2", "Kid2", for: "x"))
        let folder = ScratchFolder("import-batches")
        let one = try Self.store(folder, "one.sqlite3"), batched = try Self.store(folder, "batched.sqlite3")
        try Self.importing(text, into: one, batchEvents: Self.whole)
        try Self.importing(text, into: batched, batchEvents: batchEvents)
        let expected = try Self.contents(one)
        #expect(expected.events.first { $0.title == "B" }?.tasks.map(\.text) == ["Kid", "X todo", "Kid2"])
        let got = try Self.contents(batched)
        withKnownIssue("the to-do goes to the VEVENT of that UID in batches, to the VTODO in the whole file") {
            #expect(got == expected)
        }
    }

    /// A file truncated while it is read in batches (as the second batch is saved, before the rest
    /// is read) ends the import with an error naming it instead of SIGBUS; the store is as it was.
    @Test func aFileTruncatedWhileItIsReadLeavesTheStoreAsItWas() throws {
        var body = ""
        for n in 0..<400 { body += Self.event("e\(n)", "Event \(n) " + String(repeating: "x", count: 300), day: n) }
        let folder = ScratchFolder("import-batches")
        let store = try Self.store(folder, "store.sqlite3", holding: Self.calendar(Self.event("kept", "Kept", day: 1)))
        let before = try Self.contents(store)
        let path = folder.file("truncated.ics")
        try Data(Self.calendar(body).utf8).write(to: URL(fileURLWithPath: path))
        var truncated = false
        do {
            _ = try store.importICS(ImportFile(path: path), timeZone: Self.zone, today: Self.today, batchEvents: 10, warn: { _ in },
                                    progress: { _ in
                                        guard !truncated else { return }
                                        truncated = truncate(path, 100) == 0
                                    })
            Issue.record("the import of a truncated file succeeded")
        } catch let error as InputError {
            #expect(error.file == path)
            #expect(error.message.contains("truncated while it was read") && error.message.contains("nothing was imported"))
        }
        #expect(truncated)
        #expect(try Self.contents(store) == before)
    }

    /// Standard input (a pipe) and a file with old Mac line ends (CR alone) are read in batches
    /// from a mapped copy, and leave the store the whole file leaves.
    @Test func aPipeAndCROnlyLineEndsAreReadInBatchesFromACopy() throws {
        let folder = ScratchFolder("import-batches")
        let one = try Self.store(folder, "one.sqlite3")
        let (wholeSummary, _) = try Self.importing(Self.small, into: one, batchEvents: Self.whole)
        let expected = try Self.contents(one)
        let pipe = Pipe()
        let writer = Thread { pipe.fileHandleForWriting.write(Data(Self.small.utf8)); try? pipe.fileHandleForWriting.close() }
        writer.start()
        let piped = try ImportFile(name: "<stdin>", descriptor: pipe.fileHandleForReading.fileDescriptor)
        let (mapped, count) = (piped.isMapped, piped.count)
        #expect(mapped && count == Self.small.utf8.count)
        let fromPipe = try Self.store(folder, "pipe.sqlite3")
        let summary = try fromPipe.importICS(piped, timeZone: Self.zone, today: Self.today, batchEvents: 3, warn: { _ in }, progress: { _ in })
        #expect(summary.events == wholeSummary.events)
        #expect(try Self.contents(fromPipe) == expected)
        let mac = Self.small.replacingOccurrences(of: "\r\n", with: "\r")
        guard let copy = ImportFile(name: "c.ics", copying: Data(mac.utf8)).withLineFeeds() else {
            Issue.record("no copy with line feeds")
            return
        }
        let (copyMapped, copied) = (copy.isMapped, copy.withBytes { Array($0) })
        #expect(copyMapped && copied == Array(Self.small.replacingOccurrences(of: "\r\n", with: "\n").utf8))
        let fromMac = try Self.store(folder, "mac.sqlite3")
        try Self.importing(mac, into: fromMac, batchEvents: 3)
        #expect(try Self.contents(fromMac) == expected)
    }

    /// A component the store refuses in the last batch fails the whole import, naming the file and
    /// the batch's lines; the store is as it was.
    @Test func aRefusedComponentInTheLastBatchLeavesTheStoreAsItWas() throws {
        let folder = ScratchFolder("import-batches")
        let store = try Self.store(folder, "store.sqlite3", holding: Self.calendar(Self.event("kept", "Kept", day: 1)))
        try store.db.execute("""
            CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.title = 'Refused'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
        let before = try Self.contents(store)
        var body = ""
        for n in 0..<6 { body += Self.event("e\(n)", "Event \(n)", day: n) + Self.todo("t\(n)", "Task", for: "e\(n)") }
        body += Self.event("bad", "Refused", day: 9)
        let text = Self.calendar(body)
        // The BEGIN:VEVENT line (1-based) is the UID line's 0-based index.
        let line = text.components(separatedBy: "\r\n").firstIndex(of: "UID:bad") ?? 0
        #expect(throws: InputError.self) { try Self.importing(text, into: store, batchEvents: 2) }
        do {
            try Self.importing(text, into: store, batchEvents: 2)
        } catch let error as InputError {
            #expect(error.file == "c.ics")
            #expect(error.line == line, "the BEGIN:VEVENT line of the refused event's batch")
            #expect(error.message.contains("refused by the test") && error.message.contains("nothing was imported"))
        }
        #expect(try Self.contents(store) == before)
    }
}
