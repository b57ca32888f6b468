import DatebookCore
import Foundation

/// The to-do lists (`Event.isTaskList`): each calendar's stand-alone to-dos, which no period holds,
/// and those of their open to-dos that are due in a window.
extension SQLStore {
    /// Each to-do list with its tasks, by title then id.
    ///
    /// The ids come from the partial index `events_task_lists`: with `e.task_list = 1` alone SQLite
    /// walked `events_by_title` for the order and read every event (50k events, release build, load 5:
    /// `list` 0.37 → 1.1 s, the digest, which asks once per section, 0.07 → 1.3 s; now as before).
    public func taskLists() throws -> [Event] {
        var lists: [Event] = []
        try stream(where: "e.id IN (SELECT l.id FROM events l WHERE l.task_list = 1)", [], order: "e.title, e.id") { lists.append($0) }
        return lists
    }

    /// The open to-dos of the lists due in `[from, to)` (open bounds when nil), by due date. The
    /// lists are few: their tasks are read whole and the window is checked in the user's zone.
    public func dueTasks(from: Date?, to: Date?, calendar: Calendar) throws -> [DueTask] {
        DueTask.due(in: try taskLists(), from: from, to: to, calendar: calendar)
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
