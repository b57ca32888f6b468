import DatebookCore
import Foundation

/// Events and tasks on both databases: their rows, reading them back, finding them by id or title.
extension SQLStore {
    public func save(_ event: Event) throws { try save([event], progress: { _ in }) }

    /// Saves `event` inside the caller's `transaction { … }`, where `save` would begin a second one
    /// (an action link's change commits with the record of its use).
    public func saveInTransaction(_ event: Event) throws {
        let before = try calDAVEditBase([event])
        try write(event)
        try recordCalDAVEdits([event], replacing: before)
    }

    /// Inserts or replaces one event with its tasks and occurrences (a bulk load takes the
    /// backend's bulk path instead). `expanded`: its occurrence keys, when already expanded.
    func write(_ event: Event, expanded: [Int64]? = nil) throws {
        try writeRows(event)
        try writeOccurrences(event, expanded: expanded)
    }

    /// Deletes an event and its tasks (and occurrences); false when there was no such event.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        try transaction { try run("DELETE FROM events WHERE id = $1", .text(id)) > 0 }
    }

    /// The event with exactly this id.
    public func event(id: String) throws -> Event? {
        var found: Event?
        try stream(where: "e.id = $1", [.text(id)], order: "e.id") { found = $0 }
        return found
    }

    /// The events with these ids, by id (ids without an event are left out): one query per 100 (PostgreSQL: one).
    /// Read one by one, the passes of 3 PostgreSQL replicas delivering 10,000 alerts looked events
    /// up about 10 times per delivery (15.4 s in all; 5.6 s in one query, loaded machine). A short
    /// chunk repeats its first id, so there is one SQL text (one prepared statement). Where the
    /// dialect reads arrays, all ids go in one query (`= ANY`): for 10,000 events 163 ms against
    /// 665 ms in chunks of 100 (psql, PostgreSQL 15, load average 20 on 2 cores).
    public func events(ids: [String]) throws -> [String: Event] {
        let unique = Array(Set(ids))
        var found: [String: Event] = [:]
        if dialect.columnArrays {
            guard !unique.isEmpty else { return found }
            try stream(where: "e.id = ANY(CAST($1 AS TEXT[]))", [.text(PostgresStore.arrayLiteral(unique))], order: "e.id") {
                found[$0.id] = $0
            }
            return found
        }
        let width = 100
        let sql = "e.id IN (" + (1...width).map { "$\($0)" }.joined(separator: ", ") + ")"
        for chunk in stride(from: 0, to: unique.count, by: width) {
            let part = unique[chunk..<min(chunk + width, unique.count)]
            let values = part.map { SQLValue.text($0) } + Array(repeating: .text(part[part.startIndex]), count: width - part.count)
            try stream(where: sql, values, order: "e.id") { found[$0.id] = $0 }
        }
        return found
    }

    /// Events whose id starts with `prefix` (at most `limit`).
    public func events(idPrefix prefix: String, limit: Int = 10) throws -> [Event] {
        let lowered = prefix.lowercased()
        var found: [Event] = []
        try stream(where: "e.id\(dialect.byteOrder) >= $1 AND e.id\(dialect.byteOrder) < $2", [.text(lowered), .text(lowered + "~")],
                   order: "e.id") {
            if found.count < limit { found.append($0) }
        }
        return found
    }

    /// Events whose title is exactly `title` (ignoring ASCII case when none is exactly).
    public func events(titled title: String) throws -> [Event] {
        var found: [Event] = []
        try stream(where: "e.title = $1", [.text(title)], order: "e.start_key, e.id") { found.append($0) }
        if found.isEmpty {
            try stream(where: "lower(e.title) = lower($1)", [.text(title)], order: "e.start_key, e.id") { found.append($0) }
        }
        return found
    }

    /// Every event in start order, streamed (export, `list --period all`).
    public func forEachEvent(_ body: (Event) throws -> Void) throws {
        try stream(where: "TRUE", [], order: "e.start_key, e.id", body)
    }

    public func eventCount() throws -> Int {
        try first("SELECT count(*) FROM events") { $0.int(0) } ?? 0
    }

    /// The zones of timed events (what an iCalendar export needs VTIMEZONEs for).
    public func timedEventZones() throws -> [String] {
        try rows("SELECT DISTINCT time_zone FROM events WHERE all_day = 0") { $0.text(0) }
    }

    /// Runs one query over events LEFT JOIN tasks and groups consecutive rows into events.
    ///
    /// `order` must start with columns that keep one event's rows together (it ends in `e.id`);
    /// tasks are put in position order here, which spares the database a sort of the joined rows.
    func stream(where condition: String, _ values: [SQLValue], order: String, _ body: (Event) throws -> Void) throws {
        var current: Event?
        var positions: [Int] = []
        func finish() throws {
            guard var done = current else { return }
            if !positions.elementsEqual(positions.sorted()) {
                done.tasks = zip(positions, done.tasks).sorted { $0.0 < $1.0 }.map(\.1)
            }
            try body(done)
        }
        try run(Store.selectSQL(where: condition, order: order), values) { row in
            if current.map({ !row.hasText(EventColumn.id.index, $0.id) }) ?? true {
                try finish()
                current = Store.event(from: row)
                positions.removeAll(keepingCapacity: true)
            }
            if !row.isNull(TaskColumn.position.joinedIndex) {
                positions.append(row.int(TaskColumn.position.joinedIndex))
                current?.tasks.append(Store.task(from: row))
            }
        }
        try finish()
    }

    /// Like `stream` but reads only what a listing row shows, with task counts instead of tasks.
    func streamSummaries(where condition: String, _ values: [SQLValue], order: String,
                         _ body: (EventSummary) throws -> Void) throws {
        try run("SELECT \(SummaryColumn.selectList) FROM events e WHERE \(condition) ORDER BY \(order)", values) {
            try body(Store.summary(from: $0))
        }
    }
}

extension ColumnReader {
    /// Whether the column holds exactly `value`'s bytes (no String made of the column).
    func hasText(_ column: Int32, _ value: String) -> Bool {
        var value = value
        return withTextBytes(column) { column in value.withUTF8 { $0.sameBytes(as: column) } }
    }
}

extension Store {
    /// The values of an events row, in `EventColumn` order.
    static func eventRow(_ event: Event) -> [SQLValue] {
        var row = ValueList()
        eventRow(event, into: &row)
        return row.values
    }

    static func eventRow(_ event: Event, into row: inout some RowSink) {
        let start = (event.start.occurrenceKey, event.start.kind), end = event.end.map { ($0.occurrenceKey, $0.kind) }
        for column in EventColumn.allCases {
            switch column {
            case .id: row.text(event.id)
            case .title: row.text(event.title)
            case .startKey: row.integer(start.0)
            case .allDay: row.int(start.1.rawValue)
            case .endKey: if let end { row.integer(end.0) } else { row.null() }
            case .endAllDay: if let end { row.int(end.1.rawValue) } else { row.null() }
            case .timeZone: row.text(event.timeZone)
            case .symbol: row.text(event.symbol.rawValue)
            case .color: row.text(event.color.rawValue)
            case .notes: row.text(event.notes)
            case .alerts: row.text(event.alerts.isEmpty ? "" : event.alerts.map(\.description).joined(separator: " "))
            case .recurrence: row.optional(event.recurrence)
            case .taskCount: row.int(event.tasks.count)
            case .openCount: row.int(event.badge)
            case .location: row.text(event.location)
            case .url: row.text(event.url)
            case .taskList: row.int(event.isTaskList ? 1 : 0)
            }
        }
    }

    /// The values of a tasks row, in `TaskColumn` order.
    static func taskRow(_ eventID: String, _ position: Int, _ task: EventTask) -> [SQLValue] {
        var row = ValueList()
        taskRow(eventID, position, task, into: &row)
        return row.values
    }

    static func taskRow(_ eventID: String, _ position: Int, _ task: EventTask, into row: inout some RowSink) {
        for column in TaskColumn.allCases {
            switch column {
            case .eventID: row.text(eventID)
            case .position: row.int(position)
            case .id: row.text(task.id)
            case .text: row.text(task.text)
            case .status: row.text(task.status.rawValue)
            case .dueKey: if let due = task.due { row.integer(due.occurrenceKey) } else { row.null() }
            case .dueAllDay: if let due = task.due { row.int(due.kind.rawValue) } else { row.null() }
            case .priority: row.int(task.priority)
            case .parent: row.optional(task.parent)
            }
        }
    }

    /// A listing summary from a row that starts with `SummaryColumn.selectList`.
    static func summary(from row: some ColumnReader) -> EventSummary {
        EventSummary(id: row.text(SummaryColumn.id.index), title: row.text(SummaryColumn.title.index),
                     start: EventStart(key: row.int64(SummaryColumn.startKey.index), kind: row.int(SummaryColumn.allDay.index)),
                     symbol: row.withTextBytes(SummaryColumn.symbol.index) { Self.symbols.value($0) } ?? .star,
                     color: row.withTextBytes(SummaryColumn.color.index) { Self.colors.value($0) } ?? .primary,
                     tasks: TaskCounts(total: row.int(SummaryColumn.taskCount.index), open: row.int(SummaryColumn.openCount.index)))
    }

    static let symbols = RawValueTable<Symbol>()
    static let colors = RawValueTable<EventColor>()

    static func selectSQL(where condition: String, order: String) -> String {
        "SELECT \(EventColumn.selectList), \(TaskColumn.joinedSelectList) FROM events e LEFT JOIN tasks t ON t.event_id = e.id "
            + "WHERE \(condition) ORDER BY \(order)"
    }

    /// The event of a row read with `selectSQL`, without its tasks.
    static func event(from row: some ColumnReader) -> Event {
        var event = Event(id: "", title: "", start: .allDay(CalendarDate(dayNumber: 0)), timeZone: "", symbol: .star, color: .primary)
        for column in EventColumn.allCases {
            let index = column.index
            switch column {
            case .id: event.id = row.text(index)
            case .title: event.title = row.text(index)
            case .startKey: event.start = EventStart(key: row.int64(index), kind: row.int(EventColumn.allDay.index))
            case .endKey:
                event.end = row.isNull(index) ? nil : EventStart(key: row.int64(index), kind: row.int(EventColumn.endAllDay.index))
            case .allDay, .endAllDay: break // read with their keys
            case .timeZone: event.timeZone = row.text(index)
            case .symbol: event.symbol = Symbol(rawValue: row.text(index)) ?? .star
            case .color: event.color = EventColor(rawValue: row.text(index)) ?? .primary
            case .notes: event.notes = row.text(index)
            case .alerts: event.alerts = row.text(index).split(separator: " ").compactMap { LeadTime(String($0)) }
            case .recurrence: event.recurrence = row.optionalText(index)
            case .taskCount, .openCount: break // derived from the tasks, which are read with them
            case .location: event.location = row.text(index)
            case .url: event.url = row.text(index)
            case .taskList: event.isTaskList = row.int(index) != 0
            }
        }
        return event
    }

    /// The task of a joined row read with `selectSQL` (its position apart).
    static func task(from row: some ColumnReader) -> EventTask {
        let due = TaskColumn.dueKey.joinedIndex
        return EventTask(id: row.text(TaskColumn.id.joinedIndex), text: row.text(TaskColumn.text.joinedIndex),
                         status: TaskStatus(rawValue: row.text(TaskColumn.status.joinedIndex)) ?? .todo,
                         due: row.isNull(due) ? nil : EventStart(key: row.int64(due), kind: row.int(TaskColumn.dueAllDay.joinedIndex)),
                         priority: row.int(TaskColumn.priority.joinedIndex), parent: row.optionalText(TaskColumn.parent.joinedIndex))
    }
}

/// Reads a String-backed enum straight from a column's bytes: listings read a symbol and a colour
/// for every row, and a String plus Swift's string switch cost more than the rest of the row.
///
/// The cases are few (a few dozen symbols, a dozen colours): their FNV hashes are scanned in a
/// plain array, cheaper than a Dictionary's seeded hashing, and a hit is confirmed with memcmp.
struct RawValueTable<Value: CaseIterable & RawRepresentable & Sendable>: Sendable where Value.RawValue == String {
    private let hashes: [UInt64]
    private let entries: [(value: Value, bytes: [UInt8])]

    init() {
        entries = Value.allCases.map { ($0, Array($0.rawValue.utf8)) }
        hashes = entries.map { EventID.fnv1a($0.bytes) }
    }

    /// The case whose raw value is exactly `bytes`, or nil.
    func value(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = EventID.fnv1a(bytes)
        guard let index = hashes.firstIndex(of: hash) else { return nil }
        let entry = entries[index]
        return entry.bytes.withUnsafeBufferPointer { $0.sameBytes(as: bytes) } ? entry.value : nil
    }
}
