import DatebookCore
import Foundation

extension Store {
    static let eventColumns = """
        e.id, e.title, e.start_key, e.all_day, e.end_key, e.end_all_day, e.time_zone, e.symbol, e.color,
        e.notes, e.alerts, e.recurrence, t.position, t.id, t.text, t.status
        """

    /// Inserts or replaces events (with their tasks) in one transaction; `progress(done)` after each batch.
    public func save(_ events: [Event], progress: (Int) -> Void = { _ in }) throws {
        try bulkTransaction(count: events.count) { try writeMany(events, progress: progress) }
        progress(events.count)
    }

    public func save(_ event: Event) throws { try save([event]) }

    /// Saves `event` inside the caller's `transaction { … }`, where `save` would begin a second one
    /// (an action link's change commits with the record of its use).
    public func saveInTransaction(_ event: Event) throws { try write(event) }

    /// Inserts or replaces one event with its tasks and occurrences (a bulk load into an empty store
    /// takes `BulkRows` instead). `expanded`: its occurrence keys, when already expanded.
    func write(_ event: Event, expanded: [Int64]? = nil) throws {
        try wrap {
            try statement(literal: "DELETE FROM tasks WHERE event_id = ?").bind(.text(event.id)).run()
            try statement(key: "events.upsert", BulkRows.sql(Self.eventsInsert, columns: 14, rows: 1, tail: Self.eventsUpsert))
                .bind(Self.eventRow(event)).run()
            let insertTask = try statement(literal: "INSERT INTO tasks (event_id, position, id, text, status) VALUES (?, ?, ?, ?, ?)")
            for (position, task) in event.tasks.enumerated() {
                try insertTask.bind(Self.taskRow(event.id, position, task)).run()
            }
        }
        try writeOccurrences(event, expanded: expanded)
    }

    /// The values of an events row, in the column order of `eventsInsert`.
    static func eventRow(_ event: Event) -> [SQLiteValue] {
        var row = ValueList()
        eventRow(event, into: &row)
        return row.values
    }

    static func eventRow(_ event: Event, into row: inout some RowSink) {
        let (startKey, kind) = key(event.start)
        row.text(event.id)
        row.text(event.title)
        row.integer(startKey)
        row.int(kind.rawValue)
        if let end = event.end.map(key) {
            row.integer(end.0)
            row.int(end.1.rawValue)
        } else {
            row.null()
            row.null()
        }
        row.text(event.timeZone)
        row.text(event.symbol.rawValue)
        row.text(event.color.rawValue)
        row.text(event.notes)
        row.text(event.alerts.isEmpty ? "" : event.alerts.map(\.description).joined(separator: " "))
        row.optional(event.recurrence)
        row.int(event.tasks.count)
        row.int(event.badge)
    }

    /// The values of a tasks row (event_id, position, id, text, status).
    static func taskRow(_ eventID: String, _ position: Int, _ task: EventTask) -> [SQLiteValue] {
        var row = ValueList()
        taskRow(eventID, position, task, into: &row)
        return row.values
    }

    static func taskRow(_ eventID: String, _ position: Int, _ task: EventTask, into row: inout some RowSink) {
        row.text(eventID)
        row.int(position)
        row.text(task.id)
        row.text(task.text)
        row.text(task.status.rawValue)
    }

    /// The insert of an events row, up to `VALUES`, and what follows the values: an event saved
    /// again replaces its row (shared by the one-row statement and `BulkRows`).
    static let eventsInsert = """
        INSERT INTO events (id, title, start_key, all_day, end_key, end_all_day, time_zone, symbol, color,
                            notes, alerts, recurrence, task_count, open_count) VALUES
        """
    static let eventsUpsert = """
        ON CONFLICT(id) DO UPDATE SET title = excluded.title, start_key = excluded.start_key,
            all_day = excluded.all_day, end_key = excluded.end_key, end_all_day = excluded.end_all_day,
            time_zone = excluded.time_zone, symbol = excluded.symbol, color = excluded.color,
            notes = excluded.notes, alerts = excluded.alerts, recurrence = excluded.recurrence,
            task_count = excluded.task_count, open_count = excluded.open_count
        """

    /// Deletes an event and its tasks; false when there was no such event.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        try transaction {
            try wrap { try statement("DELETE FROM events WHERE id = ?").bind(.text(id)).run() }
            return db.changes > 0
        }
    }

    /// The event with exactly this id.
    public func event(id: String) throws -> Event? {
        var found: Event?
        try stream(where: "e.id = ?", [.text(id)], order: "e.id") { found = $0 }
        return found
    }

    /// Events whose id starts with `prefix` (at most `limit`).
    public func events(idPrefix prefix: String, limit: Int = 10) throws -> [Event] {
        let lowered = prefix.lowercased()
        var found: [Event] = []
        try stream(where: "e.id >= ? AND e.id < ?", [.text(lowered), .text(lowered + "~")], order: "e.id") {
            if found.count < limit { found.append($0) }
        }
        return found
    }

    /// Events whose title is exactly `title` (case-insensitive fallback when no exact match).
    public func events(titled title: String) throws -> [Event] {
        var found: [Event] = []
        try stream(where: "e.title = ?", [.text(title)], order: "e.start_key, e.id") { found.append($0) }
        if found.isEmpty {
            try stream(where: "e.title = ? COLLATE NOCASE", [.text(title)], order: "e.start_key, e.id") { found.append($0) }
        }
        return found
    }

    /// Every event in start order, streamed (export, `list --period all`).
    public func forEachEvent(_ body: (Event) throws -> Void) throws {
        try stream(where: "1", [], order: "e.start_key, e.id", body)
    }

    public func eventCount() throws -> Int {
        try wrap { Int(try db.integer("SELECT count(*) FROM events")) }
    }

    /// Runs one query over events LEFT JOIN tasks and groups consecutive rows into events.
    ///
    /// `order` must start with columns that keep one event's rows together (it ends in `e.id`);
    /// tasks are put in position order here, which spares SQLite a sort of the joined rows.
    func stream(where condition: String, _ values: [SQLiteValue], order: String, _ body: (Event) throws -> Void) throws {
        let query = try statement(Self.selectSQL(where: condition, order: order))
        try wrap { try query.bind(values) }
        var current: Event?
        var positions: [Int] = []
        func finish() throws {
            guard var done = current else { return }
            if !positions.elementsEqual(positions.sorted()) {
                done.tasks = zip(positions, done.tasks).sorted { $0.0 < $1.0 }.map(\.1)
            }
            try body(done)
        }
        while try wrap({ try query.step() }) {
            if current.map({ !query.textEquals(0, $0.id) }) ?? true {
                try finish()
                current = Self.event(from: query)
                positions.removeAll(keepingCapacity: true)
            }
            if !query.isNull(12) {
                positions.append(query.int(12))
                current?.tasks.append(EventTask(id: query.text(13), text: query.text(14),
                                                status: TaskStatus(rawValue: query.text(15)) ?? .todo))
            }
        }
        try finish()
    }

    /// Like `stream` but reads only what a listing row shows, with task counts instead of tasks.
    func streamSummaries(where condition: String, _ values: [SQLiteValue], order: String, _ body: (Event) throws -> Void) throws {
        let query = try statement("""
            SELECT e.id, e.title, e.start_key, e.all_day, e.symbol, e.color, e.task_count, e.open_count
            FROM events e WHERE \(condition) ORDER BY \(order)
            """)
        try wrap { try query.bind(values) }
        while try wrap({ try query.step() }) { try body(Self.summary(from: query)) }
    }

    /// A listing summary from columns id, title, start_key, all_day, symbol, color, task_count, open_count.
    static func summary(from row: SQLiteStatement) -> Event {
        var event = Event(id: row.text(0), title: row.text(1), start: start(key: row.int64(2), kind: row.int(3)),
                          timeZone: "", symbol: row.withTextBytes(4) { Self.symbols.value($0) } ?? .star,
                          color: row.withTextBytes(5) { Self.colors.value($0) } ?? .primary)
        event.taskCounts = TaskCounts(total: row.int(6), open: row.int(7))
        return event
    }

    static let symbols = RawValueTable<Symbol>()
    static let colors = RawValueTable<EventColor>()

    /// The listing form of a fully loaded event: counts instead of tasks, like `streamSummaries`.
    static func summary(of event: Event) -> Event {
        var summary = Event(id: event.id, title: event.title, start: event.start, timeZone: "",
                            symbol: event.symbol, color: event.color)
        summary.taskCounts = TaskCounts(total: event.tasks.count, open: event.badge)
        return summary
    }

    static func selectSQL(where condition: String, order: String) -> String {
        "SELECT \(eventColumns) FROM events e LEFT JOIN tasks t ON t.event_id = e.id WHERE \(condition) ORDER BY \(order)"
    }

    static func event(from row: SQLiteStatement) -> Event {
        let start = start(key: row.int64(2), kind: row.int(3))
        let end = row.isNull(4) ? nil : Self.start(key: row.int64(4), kind: row.int(5))
        let alerts = row.text(10).split(separator: " ").compactMap { LeadTime(String($0)) }
        return Event(
            id: row.text(0), title: row.text(1), start: start, end: end, timeZone: row.text(6),
            symbol: Symbol(rawValue: row.text(7)) ?? .star, color: EventColor(rawValue: row.text(8)) ?? .primary,
            notes: row.text(9), tasks: [], alerts: alerts, recurrence: row.optionalText(11)
        )
    }

    /// The sort key: an instant's Unix seconds, an all-day date's midnight UTC, or a floating
    /// time's wall clock read as UTC; and the kind, stored in `all_day`/`end_all_day`.
    static func key(_ start: EventStart) -> (Int64, StartKind) {
        switch start {
        case .instant(let date): (Int64(date.timeIntervalSince1970.rounded(.down)), .instant)
        case .allDay(let day): (Int64(day.dayNumber) * 86_400, .allDay)
        case .floating(let time): (time.wallSeconds, .floating)
        }
    }

    static func start(key: Int64, kind: Int) -> EventStart {
        switch StartKind(rawValue: kind) {
        case .allDay: .allDay(CalendarDate(dayNumber: Int(key / 86_400)))
        case .floating: .floating(FloatingTime(wallSeconds: key))
        case .instant, nil: .instant(Date(timeIntervalSince1970: TimeInterval(key)))
        }
    }

    /// An occurrence key of an event that starts as `first` (all its occurrences are of one kind).
    static func start(key: Int64, like first: EventStart) -> EventStart {
        start(key: key, kind: Self.key(first).1.rawValue)
    }
}

/// What an events row's `all_day` (and `end_all_day`) column holds since schema 9; keys of all-day
/// and floating starts lie up to 14 h from their instant in the user's zone.
enum StartKind: Int {
    case instant = 0, allDay = 1, floating = 2
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
