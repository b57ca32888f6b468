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
