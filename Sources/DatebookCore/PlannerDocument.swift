import Foundation

/// The planner's JSON shape, used by `export`, `import` and JSON feeds.
///
/// ```json
/// { "datebook": 1, "events": [ { "id": "…", "title": "…", "start": "2026-12-03T08:00:00Z",
///   "allDay": false, "end": null, "timeZone": "Europe/Berlin", "symbol": "gift.fill",
///   "color": "red", "notes": "", "location": "Room 4", "url": "https://…", "alerts": ["1d"], "recurrence": null,
///   "tasks": [ { "id": "…", "text": "…", "status": "todo" } ] } ] }
/// ```
/// Instants are UTC with whole seconds; all-day starts and ends are `YYYY-MM-DD`; floating times
/// (wall-clock times read in the viewer's zone, RFC 5545 §3.3.5) are `YYYY-MM-DDTHH:MM[:SS]`
/// without offset, and the event says `"floating": true`. `location` and `url` are written only
/// when set (documents without them, from older versions, read as before), as are a to-do list's
/// `"taskList": true` and a task's `due` (as `start`), `priority` (1…9) and `parent` (a task id).
public enum PlannerDocument {
    public static let version = 1
    static let eventKeys = ["id", "title", "start", "allDay", "floating", "end", "timeZone", "symbol", "color",
                            "notes", "location", "url", "alerts", "recurrence", "tasks", "taskList"]
    static let taskKeys = ["id", "text", "status", "due", "priority", "parent"]

    // MARK: Writing

    public static func encode(_ events: [Event]) -> String {
        var writer = Writer()
        return writer.header + events.map { writer.text(of: $0) }.joined() + writer.footer
    }

    /// The document in pieces, so a large planner is written as it is read (`export` streams it):
    /// `header`, then `text(of:)` for each event, then `footer`.
    public struct Writer {
        private var count = 0

        public init() {}

        public var header: String { "{\n  \"datebook\": \(version),\n  \"events\": [" }

        public mutating func text(of event: Event) -> String {
            defer { count += 1 }
            return (count == 0 ? "\n" : ",\n") + encode(event)
        }

        public var footer: String { count == 0 ? "]\n}\n" : "\n  ]\n}\n" }
    }

    static func encode(_ event: Event) -> String {
        func start(_ value: EventStart) -> String {
            switch value {
            case .instant(let date): JSONText.quote(ISOInstant.format(date))
            case .allDay(let day): JSONText.quote(day.description)
            case .floating(let time): JSONText.quote(time.description)
            }
        }
        var out = "    {\n"
        out += "      \"id\": \(JSONText.quote(event.id)),\n"
        out += "      \"title\": \(JSONText.quote(event.title)),\n"
        out += "      \"start\": \(start(event.start)),\n"
        out += "      \"allDay\": \(event.start.isAllDay),\n"
        if event.start.isFloating { out += "      \"floating\": true,\n" }
        out += "      \"end\": \(event.end.map(start) ?? "null"),\n"
        out += "      \"timeZone\": \(JSONText.quote(event.timeZone)),\n"
        out += "      \"symbol\": \(JSONText.quote(event.symbol.rawValue)),\n"
        out += "      \"color\": \(JSONText.quote(event.color.rawValue)),\n"
        out += "      \"notes\": \(JSONText.quote(event.notes)),\n"
        if !event.location.isEmpty { out += "      \"location\": \(JSONText.quote(event.location)),\n" }
        if !event.url.isEmpty { out += "      \"url\": \(JSONText.quote(event.url)),\n" }
        out += "      \"alerts\": [" + event.alerts.map { JSONText.quote($0.description) }.joined(separator: ", ") + "],\n"
        out += "      \"recurrence\": \(event.recurrence.map(JSONText.quote) ?? "null"),\n"
        out += "      \"tasks\": ["
        for (n, task) in event.tasks.enumerated() {
            out += n == 0 ? "\n" : ",\n"
            out += "        { \"id\": \(JSONText.quote(task.id)), \"text\": \(JSONText.quote(task.text)), "
                + "\"status\": \(JSONText.quote(task.status.rawValue))"
            if let due = task.due { out += ", \"due\": \(start(due))" }
            if task.priority > 0 { out += ", \"priority\": \(task.priority)" }
            if let parent = task.parent { out += ", \"parent\": \(JSONText.quote(parent))" }
            out += " }"
        }
        out += event.tasks.isEmpty ? "]" : "\n      ]"
        out += event.isTaskList ? ",\n      \"taskList\": true\n    }" : "\n    }"
        return out
    }

    // MARK: Reading

    /// What to fill in when an imported event leaves a field out.
    public struct Defaults {
        public var timeZone: String
        public var newID: () -> String
        public var symbol: () -> Symbol
        public var color: () -> EventColor

        public init(timeZone: String, newID: @escaping () -> String,
                    symbol: @escaping () -> Symbol, color: @escaping () -> EventColor) {
            self.timeZone = timeZone
            self.newID = newID
            self.symbol = symbol
            self.color = color
        }
    }

    /// Validates a whole document; the first problem is thrown and nothing is returned (import all or nothing).
    /// Every event is held to `validation` (the rules `add` applies).
    public static func decode(_ root: JSONNode, file: String, defaults: Defaults, validation: EventValidation) throws -> [Event] {
        try decode(root, file: file, defaults: defaults, validation: validation, repairing: false).events
    }

    /// Like `decode`, for someone else's document (a feed): what `validation` can repair is
    /// repaired with a warning, an event it must refuse is left out with a warning; a document that
    /// is not a planner document at all still throws.
    public static func decodeRepairing(_ root: JSONNode, file: String, defaults: Defaults,
                                       validation: EventValidation) throws -> (events: [Event], warnings: [String]) {
        try decode(root, file: file, defaults: defaults, validation: validation, repairing: true)
    }

    static func decode(_ root: JSONNode, file: String, defaults: Defaults, validation: EventValidation,
                       repairing: Bool) throws -> (events: [Event], warnings: [String]) {
        let reader = JSONReader(file: file)
        let members = try reader.object(root, "", allowed: ["datebook", "events"])
        if let versionNode = members.first(where: { $0.key == "datebook" })?.value {
            let found = try reader.integer(versionNode, "datebook")
            guard found <= version else {
                throw reader.fail(versionNode, "datebook", "document version \(found) is newer than this datebook understands (\(version))")
            }
        }
        guard let eventsNode = root["events"] else {
            throw reader.fail(root, "events", "missing: expected an array of events")
        }
        var seen = Set<String>()
        var events: [Event] = []
        var zones = ZoneNames()
        var warnings: [String] = []
        for (n, node) in try reader.array(eventsNode, "events").enumerated() {
            let path = "events[\(n)]"
            var event = try decodeEvent(node, path: path, reader: reader, defaults: defaults, zones: &zones)
            if repairing {
                let repair = validation.repair(&event)
                for change in repair.changes { warnings.append(reader.fail(node.at(change.field), path + "." + change.field, change.message).description) }
                if let refusal = repair.refusals.first {
                    warnings.append(reader.fail(node.at(refusal.field), path + "." + refusal.field, refusal.message + "; event skipped").description)
                    continue
                }
            } else if let problem = validation.problems(event).first {
                throw reader.fail(node.at(problem.field), path + "." + problem.field, problem.message)
            }
            guard seen.insert(event.id).inserted else {
                throw reader.fail(node, "events[\(n)].id", "duplicate id \"\(event.id)\"")
            }
            events.append(event)
        }
        return (events, warnings)
    }

    /// Remembers which zone names are valid: creating a TimeZone per event dominates large imports.
    struct ZoneNames {
        var known: Set<String> = []

        mutating func isValid(_ name: String) -> Bool {
            if known.contains(name) { return true }
            guard TimeZone(identifier: name) != nil else { return false }
            known.insert(name)
            return true
        }
    }

    static func decodeEvent(_ node: JSONNode, path: String, reader: JSONReader, defaults: Defaults,
                            zones: inout ZoneNames) throws -> Event {
        _ = try reader.object(node, path, allowed: eventKeys)
        guard let titleNode = node["title"] else { throw reader.fail(node, path + ".title", "missing: expected a string") }
        let title = try reader.string(titleNode, path + ".title")
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw reader.fail(titleNode, path + ".title", "expected a non-empty title")
        }
        guard let startNode = node["start"] else {
            throw reader.fail(node, path + ".start", "missing: expected a date (YYYY-MM-DD) or an instant (2026-12-03T08:00:00Z)")
        }
        let start = try decodeStart(startNode, path: path + ".start", reader: reader)
        if let allDayNode = node["allDay"], allDayNode.value != .null,
           try reader.bool(allDayNode, path + ".allDay") != start.isAllDay {
            throw reader.fail(allDayNode, path + ".allDay", "does not match start (a date means all-day, an instant does not)")
        }
        if let floatingNode = node["floating"], floatingNode.value != .null,
           try reader.bool(floatingNode, path + ".floating") != start.isFloating {
            throw reader.fail(floatingNode, path + ".floating",
                              "does not match start (a time without offset, 2026-12-02T09:30, means floating)")
        }
        var end: EventStart?
        if let endNode = node["end"], endNode.value != .null {
            end = try decodeStart(endNode, path: path + ".end", reader: reader)
        }
        let zone = try reader.optionalString(node["timeZone"], path + ".timeZone") ?? defaults.timeZone
        if let zoneNode = node["timeZone"], !zones.isValid(zone) {
            throw reader.fail(zoneNode, path + ".timeZone", "unknown time zone \"\(zone)\" (expected an IANA name like Europe/Berlin)")
        }
        var symbol = defaults.symbol()
        if let symbolNode = node["symbol"], symbolNode.value != .null {
            symbol = Symbol(rawValue: try reader.choice(symbolNode, path + ".symbol", Symbol.allCases.map(\.rawValue))) ?? symbol
        }
        var color = defaults.color()
        if let colorNode = node["color"], colorNode.value != .null {
            color = EventColor(rawValue: try reader.choice(colorNode, path + ".color", EventColor.allCases.map(\.rawValue))) ?? color
        }
        var alerts: [LeadTime] = []
        if let alertsNode = node["alerts"], alertsNode.value != .null {
            for (n, item) in try reader.array(alertsNode, path + ".alerts").enumerated() {
                let text = try reader.string(item, path + ".alerts[\(n)]")
                guard let lead = LeadTime(text) else {
                    throw reader.fail(item, path + ".alerts[\(n)]", "expected a lead time like 1d, 1h or 10m, got \"\(text)\"")
                }
                alerts.append(lead)
            }
        }
        var tasks: [EventTask] = []
        if let tasksNode = node["tasks"], tasksNode.value != .null {
            for (n, item) in try reader.array(tasksNode, path + ".tasks").enumerated() {
                let taskPath = path + ".tasks[\(n)]"
                _ = try reader.object(item, taskPath, allowed: taskKeys)
                guard let textNode = item["text"] else { throw reader.fail(item, taskPath + ".text", "missing: expected a string") }
                var status = TaskStatus.todo
                if let statusNode = item["status"] {
                    status = TaskStatus(rawValue: try reader.choice(statusNode, taskPath + ".status", TaskStatus.allCases.map(\.rawValue))) ?? .todo
                }
                let id = try reader.optionalString(item["id"], taskPath + ".id") ?? String(defaults.newID().prefix(8))
                var task = EventTask(id: id, text: try reader.string(textNode, taskPath + ".text"), status: status)
                if let dueNode = item["due"], dueNode.value != .null { task.due = try decodeStart(dueNode, path: taskPath + ".due", reader: reader) }
                if let priorityNode = item["priority"], priorityNode.value != .null {
                    task.priority = try reader.integer(priorityNode, taskPath + ".priority")
                    guard (0...9).contains(task.priority) else {
                        throw reader.fail(priorityNode, taskPath + ".priority", "expected 1 (highest) … 9 (lowest), or 0 for none, got \(task.priority)")
                    }
                }
                task.parent = try reader.optionalString(item["parent"], taskPath + ".parent")
                tasks.append(task)
            }
        }
        return Event(
            id: try reader.optionalString(node["id"], path + ".id") ?? defaults.newID(),
            title: title, start: start, end: end, timeZone: zone, symbol: symbol, color: color,
            notes: try reader.optionalString(node["notes"], path + ".notes") ?? "",
            location: EventURL.cleanLocation(try reader.optionalString(node["location"], path + ".location") ?? ""),
            url: try reader.optionalString(node["url"], path + ".url") ?? "",
            tasks: tasks, alerts: alerts,
            recurrence: try reader.optionalString(node["recurrence"], path + ".recurrence"),
            isTaskList: try node["taskList"].map { $0.value == .null ? false : try reader.bool($0, path + ".taskList") } ?? false
        )
    }

    static func decodeStart(_ node: JSONNode, path: String, reader: JSONReader) throws -> EventStart {
        let text = try reader.string(node, path)
        if let day = CalendarDate(iso: text), text.count == 10 { return .allDay(day) }
        if let time = FloatingTime(iso: text) { return .floating(time) }
        guard let date = ISOInstant.parse(text) else {
            throw reader.fail(node, path, "expected a date (YYYY-MM-DD), an instant with offset (2026-12-03T08:00:00Z) "
                              + "or a floating time (2026-12-03T09:30), got \"\(text)\"")
        }
        return .instant(date)
    }
}
