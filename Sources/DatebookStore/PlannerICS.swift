import DatebookCore
import DatebookICal
import Foundation

/// Events read from an iCalendar file, with the UID each one came from and what was skipped.
public struct ICSImport: Sendable {
    public var events: [Event]
    /// Event id → the iCalendar UID it was made from (`UID#RECURRENCE-ID` for a moved instance).
    public var uids: [String: String]
    /// `file:line: UID x: message` lines for components that were skipped or changed.
    public var warnings: [String]
}

/// Converts between iCalendar and planner events (the planner side of `DatebookICal`).
///
/// Ids are stable: `<16 hex>@datebook` UIDs (what `encode` writes) map back to that id; any other
/// UID becomes `EventID.stable(calendar + UID)`, so importing the same file again updates instead of
/// duplicating, and two feeds with the same UID stay apart. A RECURRENCE-ID override becomes its own
/// event and an EXDATE of its master; a cancelled instance becomes only the EXDATE.
public enum PlannerICS {
    public static let uidSuffix = "@datebook"

    /// What the decoder needs to know besides the bytes.
    public struct Options {
        /// `import` for `datebook import`, `feed:NAME` for a feed: namespaces the ids.
        public var calendar: String
        public var timeZone: TimeZone
        /// The day a per-calendar "Tasks" event is put on when it is new.
        public var today: CalendarDate
        /// The stored event with this id, if any: re-imports keep its symbol, colour and (without
        /// VTODOs of their own) its tasks.
        public var existing: (String) -> Event?

        public init(calendar: String, timeZone: TimeZone, today: CalendarDate, existing: @escaping (String) -> Event?) {
            self.calendar = calendar
            self.timeZone = timeZone
            self.today = today
            self.existing = existing
        }
    }

    /// Reads `data`; throws `ICalError.notICalendar` when it is not iCalendar at all.
    public static func decode(_ data: Data, fileName: String, options: Options) throws -> ICSImport {
        let parts = try ICalParser.parseParts(data: data, fileName: fileName, defaultTimeZone: options.timeZone)
        return convert(parts, fileName: fileName, options: options)
    }

    /// Converts a parsed document (lets a caller free the file's bytes before converting).
    public static func convert(_ document: ICalDocument, fileName: String, options: Options) -> ICSImport {
        convert([document], fileName: fileName, options: options)
    }

    /// Converts consecutive parts of one parsed file (`ICalParser.parseParts`) as one document.
    public static func convert(_ parts: [ICalDocument], fileName: String, options: Options) -> ICSImport {
        let events = parts.lazy.flatMap(\.events)
        let count = parts.reduce(0) { $0 + $1.events.count }
        var result = ICSImport(events: [], uids: [:], warnings: parts.flatMap(\.warnings).map(\.description))
        var index: [String: Int] = [:]
        var masters: [String: Int] = [:]
        index.reserveCapacity(count + 1)
        masters.reserveCapacity(count)
        result.uids.reserveCapacity(count + 1)
        result.events.reserveCapacity(count + 1)
        func add(_ event: Event, uid: String) {
            if let at = index[event.id] {
                result.events[at] = event
            } else {
                index[event.id] = result.events.count
                result.events.append(event)
            }
            result.uids[event.id] = uid
        }
        for item in events where item.recurrenceID == nil {
            if item.isCancelled { continue }
            let id = eventID(uid: item.uid, options: options)
            let stored = options.existing(id)
            var event = makeEvent(item, id: id, stored: stored, options: options)
            if let rule = event.recurrence, let problem = RecurrenceExpander.problem(rule: rule) {
                result.warnings.append("\(fileName):\(item.sourceLine): UID \(item.uid): \(problem)")
            }
            event.tasks = stored?.tasks ?? []
            add(event, uid: item.uid)
            masters[item.uid] = index[event.id]
        }
        for item in events {
            guard let recurrenceID = item.recurrenceID else { continue }
            if let at = masters[item.uid] {
                var text = RecurrenceText(result.events[at].recurrence ?? "")
                text.exdates.append(recurrenceID)
                result.events[at].recurrence = text.text
            }
            if item.isCancelled { continue }
            let key = item.uid + "#" + RecurrenceText.format(recurrenceID)
            let id = eventID(uid: key, options: options)
            let stored = options.existing(id)
            var event = makeEvent(item, id: id, stored: stored, options: options)
            event.recurrence = nil
            event.tasks = stored?.tasks ?? []
            add(event, uid: key)
        }
        attachTodos(parts.lazy.flatMap(\.todos), to: &result, index: &index, masters: masters, options: options, fileName: fileName)
        return result
    }

    static func eventID(uid: String, options: Options) -> String {
        if options.calendar == "import", let id = datebookID(uid) { return id }
        return EventID.stable(options.calendar + "\u{0}" + uid)
    }

    /// The event id inside a `<16 hex>@datebook` UID.
    static func datebookID(_ uid: String) -> String? {
        guard uid.hasSuffix(uidSuffix) else { return nil }
        let id = String(uid.dropLast(uidSuffix.count))
        return id.count == 16 && id.allSatisfy(\.isHexDigit) ? id : nil
    }

    private static let symbols = Symbol.allCases
    private static let colors = EventColor.allCases

    static func makeEvent(_ item: ICalEvent, id: String, stored: Event?, options: Options) -> Event {
        let seed = Int(truncatingIfNeeded: UInt64(id, radix: 16) ?? 0)
        var notes = item.description ?? ""
        for extra in [item.location.map { "Location: " + $0 }, item.url] {
            if let extra, !extra.isEmpty { notes += (notes.isEmpty ? "" : "\n") + extra }
        }
        let zone: String
        switch item.start {
        case let .zoned(_, tzid): zone = tzid
        case .utc: zone = "UTC"
        case .date, .floating: zone = options.timeZone.identifier
        }
        var recurrence: String?
        if item.rrule != nil || !item.rdates.isEmpty {
            recurrence = RecurrenceText(rule: item.rrule, rdates: item.rdates, exdates: item.exdates).text
        }
        let alerts = item.alarms.filter { $0 >= 0 }.map { seconds in
            seconds > 0 && seconds % 86_400 == 0 ? LeadTime(days: seconds / 86_400) : LeadTime(seconds: seconds)
        }
        return Event(
            id: id, title: item.summary.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)",
            start: eventStart(item.start, options.timeZone), end: item.end.map { eventStart($0, options.timeZone) },
            timeZone: zone,
            symbol: stored?.symbol ?? symbols[abs(seed % symbols.count)],
            color: stored?.color ?? colors[abs(seed / 7 % colors.count)],
            notes: notes, tasks: [], alerts: alerts, recurrence: recurrence)
    }

    static func eventStart(_ value: ICalDateValue, _ zone: TimeZone) -> EventStart {
        if case let .date(year, month, day) = value { return .allDay(CalendarDate(year: year, month: month, day: day)) }
        return .instant(Date(timeIntervalSince1970: value.resolve(in: zone).timeIntervalSince1970.rounded(.down)))
    }

    /// VTODOs become tasks of the event named by RELATED-TO, else of a per-calendar "Tasks" event.
    /// `masters`: UID → index of the event made from it (spares hashing each RELATED-TO into an id).
    static func attachTodos(_ todos: some Sequence<ICalTodo>, to result: inout ICSImport, index: inout [String: Int],
                            masters: [String: Int], options: Options, fileName: String) {
        var cleared = Set<Int>()
        for todo in todos {
            var at = todo.relatedTo.flatMap { related in
                masters[related] ?? index[eventID(uid: related, options: options)]
            }
            if at == nil {
                if let related = todo.relatedTo {
                    result.warnings.append("\(fileName):\(todo.sourceLine): UID \(todo.uid): RELATED-TO \(related) "
                                           + "names no event in this file; the task goes to the \"Tasks\" event")
                }
                let id = EventID.stable(options.calendar + "\u{0}tasks")
                if index[id] == nil {
                    let stored = options.existing(id)
                    index[id] = result.events.count
                    result.events.append(Event(id: id, title: "Tasks", start: stored?.start ?? .allDay(options.today),
                                               timeZone: options.timeZone.identifier, symbol: stored?.symbol ?? .star,
                                               color: stored?.color ?? .primary))
                    result.uids[id] = "tasks"
                }
                at = index[id]
            }
            guard let at else { continue }
            if cleared.insert(at).inserted { result.events[at].tasks = [] }
            let status = TaskStatus(rawValue: todo.status.rawValue) ?? .todo
            result.events[at].tasks.append(EventTask(id: taskID(todo.uid), text: todo.summary ?? "(no text)", status: status))
        }
    }

    /// `<task id>.<event id>@datebook` gives back the task id; other UIDs are hashed.
    static func taskID(_ uid: String) -> String {
        if uid.hasSuffix(uidSuffix), let dot = uid.lastIndex(of: ".") {
            let taskPart = String(uid[..<dot])
            if !taskPart.isEmpty { return taskPart }
        }
        return String(EventID.stable(uid).prefix(8))
    }
}

extension Character {
    fileprivate var isHexDigit: Bool { isASCII && (isNumber || ("a"..."f").contains(self)) }
}
