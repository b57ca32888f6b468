import DatebookCore
import DatebookStore
import Foundation

/// Terminal rows of the to-do lists (`Event.isTaskList`): a due to-do in its period among the
/// events, and the lists themselves, which are on no date, after the periods.
enum TaskListRows {
    static let header = "To-do lists"

    /// `  1a2b3c4d  [ ] Renew passport …  Thu 2026-12-10 all day  to-do of Tasks, priority 1`: the
    /// columns of an event row, the checkbox where the symbol goes.
    static func dueRow(_ due: DueTask, _ context: Context) -> String {
        var row = "  " + context.style(String(due.listID.prefix(EventID.shortLength)), "2") + "  "
            + Rows.checkbox(due.task.status) + " " + TextWidth.fit(due.task.text, to: Rows.titleColumns - 1) + "  "
        let when = due.task.due.map { Rows.when($0, context) } ?? ""
        row += when + String(repeating: " ", count: max(0, 22 - when.count)) + "  to-do of " + TextWidth.clean(due.listTitle)
        return row + priority(due.task) + "\n"
    }

    /// `, priority 1`, or nothing.
    static func priority(_ task: EventTask) -> String { task.priority > 0 ? ", priority \(task.priority)" : "" }

    /// Each list with open to-dos: its title and count, then each open to-do (a part of another
    /// one under it, indented) with its due date and priority.
    static func lists(_ lists: [Event], _ context: Context) -> String {
        var text = ""
        for list in lists where list.badge > 0 {
            text += "  " + context.style(list.shortID, "2") + "  " + TextWidth.clean(list.title) + "  " + Rows.badge(list) + "\n"
            for (task, depth) in list.openTaskOutline {
                let due = task.due.map { "  due " + Rows.when($0, context) } ?? ""
                text += String(repeating: "  ", count: depth + 2) + Rows.checkbox(task.status) + " " + TextWidth.clean(task.text)
                    + due + priority(task) + "\n"
            }
        }
        return text
    }
}
