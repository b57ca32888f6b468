import DatebookCore
import DatebookDaemon
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook task add|done|start|undo|rm|edit EVENT …`: edit one event's checklist; `task add --list
/// CALENDAR TEXT`: a stand-alone to-do in a synced calendar's to-do list; `--under` and `task edit
/// --parent|--no-parent`: a task as a part of another task of the same event (a VTODO's RELATED-TO).
enum TaskCommand: Command {
    static let actions = ["add", "done", "start", "undo", "rm", "edit"]

    static let spec = CommandSpec(
        name: "task", summary: "add, tick off or remove a task of an event, or add a to-do to a calendar's to-do list",
        usage: "add EVENT TEXT [--under TASK] | add --list CALENDAR TEXT [--due WHEN] [--priority N] [--under TASK] | done|start|undo EVENT N|TEXT | rm EVENT N | edit EVENT N|TEXT --parent TASK|--no-parent",
        options: [.value("--list", "CALENDAR", "add a stand-alone to-do to the to-do list of this synced CalDAV calendar (made when it has none)"),
                  .value("--due", "WHEN", "with --list: when it is due (2026-12-10, next fri, dec 24 18:00)"),
                  .value("--priority", "N", "with --list: 1 (highest) … 9 (lowest)"),
                  .value("--under", "TASK", "with add: make it a part of this task of the same event or list (its number or text)"),
                  .value("--parent", "TASK", "with edit: make the task a part of this task of the same event or list"),
                  .flag("--no-parent", "with edit: make the task a part of no other task")],
        positionals: 2...3,
        examples: ["datebook task add Pagliacci 'Iron the shirt'", "datebook task done Pagliacci 2",
                   "datebook task start 'Camping Trip' 'Bug spray'", "datebook task rm Pagliacci 3",
                   "datebook task add --list Personal 'Renew passport' --due 2026-12-10 --priority 1", "datebook task done Tasks 1",
                   "datebook task add Tasks 'Get photos' --under 'Renew passport'", "datebook task edit Tasks 'Get photos' --no-parent"],
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
        if action != "add", arguments.value("--under") != nil {
            throw UsageError(message: "--under goes with 'task add'; 'task edit EVENT TASK --parent TASK' moves a task", command: "task")
        }
        if action != "edit", arguments.value("--parent") != nil || arguments.has("--no-parent") {
            throw UsageError(message: (arguments.has("--no-parent") ? "--no-parent" : "--parent") + " goes with 'task edit EVENT TASK'", command: "task")
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
            if let under = arguments.value("--under") { try setParent(event.tasks.count - 1, to: under, in: &event, option: "--under") }
            try EventOptions.validate(event, task: "TEXT")
            message = "added task \(event.tasks.count)" + partOf(event.tasks.count - 1, in: event)
        case "edit":
            let index = try taskIndex(argument, in: event, allowText: true)
            switch (arguments.value("--parent"), arguments.has("--no-parent")) {
            case (let parent?, false): try setParent(index, to: parent, in: &event, option: "--parent")
            case (nil, true): event.tasks[index].parent = nil
            default: throw UsageError(message: "task edit expects one of --parent TASK or --no-parent", command: "task")
            }
            message = "task \(index + 1) '\(TextWidth.clean(event.tasks[index].text))'"
                + (event.tasks[index].parent == nil ? " is a part of no other task" : partOf(index, in: event))
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
        if let under = arguments.value("--under") { try setParent(list.tasks.count - 1, to: under, in: &list, option: "--under") }
        try EventOptions.validate(list, task: "TEXT")
        try calDAV.save(list, into: calendar, uid: PlannerICS.taskListUID)
        let due = task.due.map { ", due " + Rows.when($0, context) } ?? ""
        let priority = task.priority > 0 ? ", priority \(task.priority)" : ""
        context.out.write("added to-do \(list.tasks.count) '\(TextWidth.clean(task.text))'\(due)\(priority)" + partOf(list.tasks.count - 1, in: list) + " to "
                          + list.shortID + " " + TextWidth.clean(list.title) + " of " + TextWidth.clean(calendar.displayName) + "\n")
        return ExitCode.ok
    }

    /// Makes task `index` of `event` a part of the task `name` names (a number or text, as `task done`
    /// takes them), of the same event: a task of another event cannot be named, and a task cannot be
    /// a part of itself nor of one of its own parts.
    static func setParent(_ index: Int, to name: String, in event: inout Event, option: String) throws {
        let parent: Int
        do {
            parent = try taskIndex(name, in: event, allowText: true)
        } catch let error as CLIError {
            throw CLIError.usage("\(option) names a task of the same event or list ('datebook show' lists them): " + error.message)
        }
        let task = "'\(TextWidth.clean(event.tasks[index].text))'"
        guard parent != index else { throw CLIError.usage("\(option) \(name): \(task) cannot be a part of itself") }
        // Up from the new parent: reaching the task itself would make a loop.
        var seen: Set<Int> = [parent]
        var up = event.tasks[parent].parent
        while let id = up, let next = event.tasks.firstIndex(where: { $0.id == id }), seen.insert(next).inserted {
            guard next != index else {
                throw CLIError.usage("\(option) \(name): \(task) cannot be a part of '\(TextWidth.clean(event.tasks[parent].text))', "
                                     + "which is a part of it already; move that one first (task edit … --no-parent)")
            }
            up = event.tasks[next].parent
        }
        // `seen`: the new parent and the tasks above it. The task's own parts go down with it.
        let levels = seen.count + 1 + levelsBelow(event.tasks[index].id, in: event)
        guard levels <= Event.taskOutlineLevels else {
            throw CLIError.usage("\(option) \(name): \(task) and its parts would go \(levels) levels deep under "
                                 + "'\(TextWidth.clean(event.tasks[parent].text))'; an outline has at most \(Event.taskOutlineLevels)")
        }
        event.tasks[index].parent = event.tasks[parent].id
    }

    /// How many levels of parts the task `id` has below it (0: none), a loop of parents counted once.
    static func levelsBelow(_ id: String, in event: Event) -> Int {
        var seen: Set<String> = [id]
        var level = [id], levels = 0
        while true {
            let parents = Set(level)
            level = event.tasks.filter { task in task.parent.map(parents.contains) == true && seen.insert(task.id).inserted }.map(\.id)
            if level.isEmpty { return levels }
            levels += 1
        }
    }

    /// ` under 2 'Renew passport'`, or nothing for a task that is a part of no other.
    static func partOf(_ index: Int, in event: Event) -> String {
        guard let parent = event.tasks[index].parent, let at = event.tasks.firstIndex(where: { $0.id == parent }) else { return "" }
        return " under \(at + 1) '\(TextWidth.clean(event.tasks[at].text))'"
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
