/// The columns of the `events` table, declared once and in order.
///
/// The insert and upsert SQL, the values a save writes (`Store.eventRow`), the select list and
/// the reader of a whole event (`Store.event(from:)`) and the bulk loader's column count derive
/// from this list; a new column is a new case here, and the exhaustive switches of the writer and
/// the reader make it a compile error until both handle it. The schema itself grows by a migration
/// (Store+Migrations.swift).
enum EventColumn: Int, CaseIterable {
    case id, title, startKey, allDay, endKey, endAllDay, timeZone, symbol, color, notes, alerts, recurrence
    case taskCount, openCount, location, url, taskList

    var name: String {
        switch self {
        case .id: "id"
        case .title: "title"
        case .startKey: "start_key"
        case .allDay: "all_day"
        case .endKey: "end_key"
        case .endAllDay: "end_all_day"
        case .timeZone: "time_zone"
        case .symbol: "symbol"
        case .color: "color"
        case .notes: "notes"
        case .alerts: "alerts"
        case .recurrence: "recurrence"
        case .taskCount: "task_count"
        case .openCount: "open_count"
        case .location: "location"
        case .url: "url"
        case .taskList: "task_list"
        }
    }

    /// Its position in a row read with `Store.selectSQL` (the event's columns come first).
    var index: Int32 { Int32(rawValue) }

    /// `e.id, e.title, …`: every column, in order, of the alias `e`.
    static let selectList = allCases.map { "e." + $0.name }.joined(separator: ", ")

    /// `events (id, …)`: the table and every column, in order, that an insert names.
    static let insertTarget = "events (" + allCases.map(\.name).joined(separator: ", ") + ")"
    /// `INSERT INTO events (id, …) VALUES` and the upsert that replaces every column but the id.
    static let insertHead = "INSERT INTO " + insertTarget + " VALUES"
    static let upsertTail = "ON CONFLICT(id) DO UPDATE SET "
        + allCases.filter { $0 != .id }.map { $0.name + " = excluded." + $0.name }.joined(separator: ", ")
}

/// The columns of the `tasks` table, in order; in a joined row (`Store.selectSQL`) all but the
/// event id follow the event's columns.
enum TaskColumn: Int, CaseIterable {
    case eventID, position, id, text, status, dueKey, dueAllDay, priority, parent

    var name: String {
        switch self {
        case .eventID: "event_id"
        case .position: "position"
        case .id: "id"
        case .text: "text"
        case .status: "status"
        case .dueKey: "due_key"
        case .dueAllDay: "due_all_day"
        case .priority: "priority"
        case .parent: "parent"
        }
    }

    /// Its position in a joined row of `Store.selectSQL`.
    var joinedIndex: Int32 { Int32(EventColumn.allCases.count + rawValue - 1) }

    /// `t.position, t.id, …`: the columns a joined row reads (the event id it already has).
    static let joinedSelectList = allCases.dropFirst().map { "t." + $0.name }.joined(separator: ", ")

    static let insertTarget = "tasks (" + allCases.map(\.name).joined(separator: ", ") + ")"
    static let insertHead = "INSERT INTO " + insertTarget + " VALUES"
}

/// What a listing row reads of an event (`EventSummary`): a few of the events columns, answered
/// by the covering indexes `events_agenda` and `events_recurring_listing`.
enum SummaryColumn: Int, CaseIterable {
    case id, title, startKey, allDay, symbol, color, taskCount, openCount

    var column: EventColumn {
        switch self {
        case .id: .id
        case .title: .title
        case .startKey: .startKey
        case .allDay: .allDay
        case .symbol: .symbol
        case .color: .color
        case .taskCount: .taskCount
        case .openCount: .openCount
        }
    }

    var index: Int32 { Int32(rawValue) }

    /// `e.id, e.title, …` in this order; a query may select more columns after these.
    static let selectList = allCases.map { "e." + $0.column.name }.joined(separator: ", ")

    /// The position of a column selected after the summary's own (`extra` 0, 1, …).
    static func after(_ extra: Int) -> Int32 { Int32(allCases.count + extra) }
}
