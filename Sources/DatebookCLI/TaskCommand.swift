import DatebookCore
import DatebookDaemon
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook task add|done|start|undo|rm EVENT …`: edit one event's checklist; `task add --list
/// CALENDAR TEXT`: a stand-alone to-do in a synced calendar's to-do list.
enum TaskCommand: Command {
    static let actions = ["add", "done", "start", "undo", "rm"]

    static let spec = CommandSpec(
        name: "task", summary: "add, tick off or remove a task of an event, or add a to-do to a calendar's to-do list",
        usage: "add EVENT TEXT | add --list CALENDAR TEXT [--due WHEN] [--priority N] | done|start|undo EVENT N|TEXT | rm EVENT N",
        options: [.value("--list", "CALENDAR", "add a stand-alone to-do to the to-do list of this synced CalDAV calendar (made when it has none)"),
                  .value("--due", "WHEN", "with --list: when it is due (2026-12-10, next fri, dec 24 18:00)"),
                  .value("--priority", "N", "with --list: 1 (highest) … 9 (lowest)")],
        positionals: 2...3,
        examples: ["datebook task add Pagliacci 'Iron the shirt'", "datebook task done Pagliacci 2",
                   "datebook task start 'Camping Trip' 'Bug spray'", "datebook task rm Pagliacci 3",
                   "datebook task add --list Personal 'Renew passport' --due 2026-12-10 --priority 1", "datebook task done Tasks 1"],
        details: "N is the task's number as 'datebook show EVENT' prints it (from 1). done marks it done,\nstart marks it in progress, undo sets it back to todo. "
            + "A calendar's to-do list is the event \"Tasks\":\nit is on no date ('datebook list' shows it under To-do lists), its to-dos with a due date show in their period."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let action = arguments.positionals[0]
        guard actions.contains(action) else {
            throw UsageError(message: "unknown task action '\(action)'" + Suggestion.hint(for: action, in: actions)
                             + "; expected " + JSONReader.orList(actions), command: "task")
        }
        if action == "add", let list = arguments.value("--list") {
            guard arguments.positionals.count == 2 else {
                throw UsageError(message: "task add --list CALENDAR takes only the TEXT", command: "task")
            }
            return try addToList(list, text: arguments.positionals[1], arguments, context)
        }
        for option in ["--list", "--due", "--priority"] where arguments.value(option) != nil {
            throw UsageError(message: option + " goes with 'task add --list CALENDAR TEXT'", command: "task")
        }
        guard arguments.positionals.count == 3 else {
            throw UsageError(message: "task \(action) expects an EVENT and " + (action == "add" ? "a TEXT" : "a task"), command: "task")
        }
        let store = try context.openStore(extendingHorizon: false)
        var event = try EventResolver.resolve(arguments.positionals[1], in: store, context: context)
        let argument = arguments.positionals[2]
        let message: String
        switch action {
        case "add":
            guard !argument.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("task TEXT is empty") }
            event.tasks.append(EventTask(id: EventTask.newID(), text: argument))
            try EventOptions.validate(event, task: "TEXT")
            message = "added task \(event.tasks.count)"
        case "rm":
            let index = try taskIndex(argument, in: event, allowText: false)
            let removed = event.tasks.remove(at: index)
            message = "removed task \(index + 1) '\(TextWidth.clean(removed.text))'"
        default:
            let index = try taskIndex(argument, in: event, allowText: true)
            let status: TaskStatus = action == "done" ? .done : action == "start" ? .doing : .todo
            event.tasks[index].status = status
            message = "task \(index + 1) " + Rows.checkbox(status) + " '\(TextWidth.clean(event.tasks[index].text))'"
        }
        try store.save(event)
        let badge = Rows.badge(event)
        context.out.write(message + " of " + event.shortID + " " + TextWidth.clean(event.title)
                          + (badge.isEmpty ? "" : " (" + badge + ")") + "\n")
        return ExitCode.ok
    }

    /// Adds a to-do to the to-do list of a synced CalDAV calendar, making the list when the calendar
    /// has none; the next sync sends it up as a VTODO without RELATED-TO (with DUE and PRIORITY).
    static func addToList(_ name: String, text: String, _ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("task TEXT is empty") }
        var task = EventTask(id: EventTask.newID(), text: text)
        if let due = arguments.value("--due") { task.due = try context.whenParser.parse(due).eventStart }
        if let priority = arguments.value("--priority") {
            guard let value = Int(priority), (1...9).contains(value) else {
                throw CLIError.usage("--priority expects 1 (highest) … 9 (lowest), got '\(priority)'")
            }
            task.priority = value
        }
        let store = try context.openStore(extendingHorizon: false)
        let calDAV = try CalDAVScheduling.calDAVStore(store)
        let calendar = try AddCommand.calDAVCalendar(named: name, calDAV)
        let id = PlannerICS.taskListID(calendar: calendar.sourceCalendar)
        var list = try store.event(id: id)
            ?? PlannerICS.taskList(id: id, stored: nil, today: CalendarDate(context.now, in: context.timeZone), timeZone: context.timeZone)
        list.isTaskList = true
        list.tasks.append(task)
        try EventOptions.validate(list, task: "TEXT")
        try calDAV.save(list, into: calendar, uid: PlannerICS.taskListUID)
        let due = task.due.map { ", due " + Rows.when($0, context) } ?? ""
        let priority = task.priority > 0 ? ", priority \(task.priority)" : ""
        context.out.write("added to-do \(list.tasks.count) '\(TextWidth.clean(task.text))'\(due)\(priority) to "
                          + list.shortID + " " + TextWidth.clean(list.title) + " of " + TextWidth.clean(calendar.displayName) + "\n")
        return ExitCode.ok
    }

    /// A 1-based number, or (when allowed) the exact text, or a unique case-insensitive prefix of it.
    static func taskIndex(_ argument: String, in event: Event, allowText: Bool) throws -> Int {
        if let number = Int(argument) {
            guard number >= 1, number <= event.tasks.count else {
                let range = event.tasks.isEmpty ? "it has no tasks" : "expected 1…\(event.tasks.count)"
                throw CLIError.usage("task number \(number) is out of range for '\(TextWidth.clean(event.title))': \(range)")
            }
            return number - 1
        }
        guard allowText else { throw CLIError.usage("expected a task number, got '\(argument)'") }
        if let exact = event.tasks.firstIndex(where: { $0.text == argument }) { return exact }
        let lowered = argument.lowercased()
        let matches = event.tasks.indices.filter { event.tasks[$0].text.lowercased().hasPrefix(lowered) }
        guard matches.count == 1 else {
            let what = matches.isEmpty ? "no task" : "\(matches.count) tasks"
            throw CLIError.usage("\(what) of '\(TextWidth.clean(event.title))' match '\(argument)'; give the task's number ('datebook show' lists them)")
        }
        return matches[0]
    }
}
