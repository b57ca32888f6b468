import Foundation

/// An open to-do of a to-do list (`Event.isTaskList`) due in a period: listed there by its due
/// date beside the events, while the list itself is on no date.
public struct DueTask: Sendable, Equatable {
    /// The list it is on, and the list's title.
    public var listID: String
    public var listTitle: String
    public var task: EventTask
    /// The instant it is due in the user's zone (an all-day DUE: that day's start), for periods and sorting.
    public var due: Date
    /// The list's symbol and colour, which its due rows wear.
    public var symbol: Symbol
    public var color: EventColor

    public init(listID: String, listTitle: String, task: EventTask, due: Date, symbol: Symbol = .star, color: EventColor = .primary) {
        self.listID = listID
        self.listTitle = listTitle
        self.task = task
        self.due = due
        self.symbol = symbol
        self.color = color
    }

    /// By due date, then priority (1 first, none last), then text.
    public static func ordered(_ a: DueTask, _ b: DueTask) -> Bool {
        (a.due, a.task.priorityRank, a.task.text) < (b.due, b.task.priorityRank, b.task.text)
    }
}

extension DueTask {
    /// The open to-dos of `lists` due in `[from, to)` (open bounds when nil), by due date: a caller
    /// asking for several windows (the digest) reads the lists once and asks this of each.
    public static func due(in lists: [Event], from: Date?, to: Date?, calendar: Calendar) -> [DueTask] {
        var due: [DueTask] = []
        for list in lists {
            for task in list.tasks where task.status.isOpen {
                guard let date = task.due?.resolved(in: calendar) else { continue }
                if let from, date < from { continue }
                if let to, date >= to { continue }
                due.append(DueTask(listID: list.id, listTitle: list.title, task: task, due: date, symbol: list.symbol, color: list.color))
            }
        }
        return due.sorted(by: DueTask.ordered)
    }
}

extension EventTask {
    /// 1…9, and 10 for no priority: sorts the most urgent first and the unranked last.
    public var priorityRank: Int { priority == 0 ? 10 : priority }
}

extension Event {
    /// How many levels of parts an outline shows (the top level counts): `task edit --parent` and
    /// `--under` refuse a link that would go deeper; one from elsewhere (a server) is shown at the top.
    public static let taskOutlineLevels = 8

    /// The open tasks in list order, each part of another open task (`EventTask.parent`) right after
    /// that one, with how many tasks it is a part of: a to-do list as `list` and the digest show it.
    /// A task deeper than `taskOutlineLevels`, or in a loop of parents, is shown at the top.
    public var openTaskOutline: [(task: EventTask, depth: Int)] {
        let open = tasks.filter(\.status.isOpen)
        let ids = Set(open.map(\.id))
        var children: [String: [EventTask]] = [:]
        for task in open {
            if let parent = task.parent, ids.contains(parent) { children[parent, default: []].append(task) }
        }
        var outline: [(task: EventTask, depth: Int)] = []
        func add(_ task: EventTask, _ depth: Int) {
            guard depth < Self.taskOutlineLevels else { return }
            outline.append((task, depth))
            for child in children[task.id] ?? [] { add(child, depth + 1) }
        }
        for task in open where task.parent.map({ !ids.contains($0) }) ?? true { add(task, 0) }
        // Those a loop of parents (or too deep a chain) left out, at the top.
        if outline.count < open.count {
            let shown = Set(outline.map(\.task.id))
            outline += open.filter { !shown.contains($0.id) }.map { ($0, 0) }
        }
        return outline
    }
}

extension DueTask {
    /// This to-do as a row of the period of its due date: an occurrence of its list (`isTaskList`,
    /// the list's id, so a link goes to the list, and its symbol and colour) titled with its text,
    /// holding the to-do as its one task (so it counts as one open task). `Event.dueToDo` tells such
    /// a row from an event.
    public func occurrence(calendar: Calendar) -> Occurrence {
        let event = Event(id: listID, title: task.text, start: task.due ?? .instant(due), timeZone: calendar.timeZone.identifier,
                          symbol: symbol, color: color, tasks: [task], isTaskList: true)
        return Occurrence(event: event, start: due)
    }
}

extension Event {
    /// The to-do a due row stands for (`DueTask.occurrence`), nil for an event. A list itself is on
    /// no date, so an occurrence of a list in a period is always such a row.
    public var dueToDo: EventTask? { isTaskList && tasks.count == 1 ? tasks[0] : nil }
}

/// The open to-dos due in a span (by due date, `DueTask.ordered`) among that span's occurrences as
/// they are read, in time order: each to-do comes before the first occurrence that starts after it
/// is due, the rest after the last one (`list`, `list --json`, the web period pages).
public struct DueToDoMerge {
    private var rest: ArraySlice<DueTask>

    public init(_ due: [DueTask]) { rest = due[...] }

    /// Takes out the to-dos due before `start`, to be shown before the occurrence that starts then.
    public mutating func before(_ start: Date) -> ArraySlice<DueTask> {
        let taken = rest.prefix { $0.due < start }
        rest = rest.dropFirst(taken.count)
        return taken
    }

    /// The to-dos not taken yet: due after the span's last occurrence.
    public var remaining: ArraySlice<DueTask> { rest }
}
