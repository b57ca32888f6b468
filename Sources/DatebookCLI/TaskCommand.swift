import DatebookCore
import DatebookStore

/// `datebook task add|done|start|undo|rm EVENT …`: edit one event's checklist.
enum TaskCommand: Command {
    static let actions = ["add", "done", "start", "undo", "rm"]

    static let spec = CommandSpec(
        name: "task", summary: "add, tick off or remove a task of an event",
        usage: "add EVENT TEXT | done|start|undo EVENT N|TEXT | rm EVENT N",
        positionals: 3...3,
        examples: ["datebook task add Pagliacci 'Iron the shirt'", "datebook task done Pagliacci 2",
                   "datebook task start 'Camping Trip' 'Bug spray'", "datebook task rm Pagliacci 3"],
        details: "N is the task's number as 'datebook show EVENT' prints it (from 1). done marks it done,\nstart marks it in progress, undo sets it back to todo."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let action = arguments.positionals[0]
        guard actions.contains(action) else {
            throw UsageError(message: "unknown task action '\(action)'" + Suggestion.hint(for: action, in: actions)
                             + "; expected " + JSONReader.orList(actions), command: "task")
        }
        let store = try context.openStore(extendingHorizon: false)
        var event = try EventResolver.resolve(arguments.positionals[1], in: store, context: context)
        let argument = arguments.positionals[2]
        let message: String
        switch action {
        case "add":
            guard !argument.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("task TEXT is empty") }
            event.tasks.append(EventTask(id: EventOptions.newTaskID(), text: argument))
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

/// `datebook tasks [EVENT] [--status todo|doing|done|open]`: tasks across events (or of one), grouped by status.
enum TasksCommand: Command {
    static let statusNames = ["todo", "doing", "done", "open", "all"]

    static let spec = CommandSpec(
        name: "tasks", summary: "list tasks across events (or of one event), grouped by status",
        usage: "[EVENT] [--status todo|doing|done|open|all]",
        options: [.value("--status", "STATUS", "todo, doing, done, open (todo and doing) or all (default)")], positionals: 0...1,
        examples: ["datebook tasks --status open", "datebook tasks Pagliacci"]
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let name = arguments.value("--status") ?? "all"
        let statuses: [TaskStatus]
        switch name {
        case "all": statuses = [.doing, .todo, .done]
        case "open": statuses = [.doing, .todo]
        default:
            guard let status = TaskStatus(rawValue: name) else {
                throw CLIError.usage("unknown status '\(name)'" + Suggestion.hint(for: name, in: statusNames)
                                     + "; expected " + JSONReader.orList(statusNames))
            }
            statuses = [status]
        }
        let store = try context.openStore(readOnly: true)
        var rows = TaskRows(context, statuses: statuses)
        var scope = ""
        if let reference = arguments.positionals.first {
            let event = try EventResolver.resolve(reference, in: store, context: context)
            scope = " in \(event.shortID) \(TextWidth.clean(event.title))"
            rows.add(event)
        } else {
            try store.forEachEvent(withTaskIn: Set(statuses)) { rows.add($0) }
        }
        guard rows.count > 0 else {
            context.out.write("No tasks" + (name == "all" ? "" : " with status \(name)") + scope + ".\n")
            return ExitCode.ok
        }
        rows.write()
        return ExitCode.ok
    }
}

/// The rows of `datebook tasks`, one group per status with its count in the header:
/// `  [ ] text (40 columns)  emoji title · when`. Events arrive once, in start order; each group's
/// rows are gathered as bytes (about the size of the output), and the part after a task's text is
/// made once per event.
struct TaskRows {
    let context: Context
    let statuses: [TaskStatus]
    private var groups: [(count: Int, bytes: [UInt8])]
    private var tail: [UInt8] = []

    init(_ context: Context, statuses: [TaskStatus]) {
        self.context = context
        self.statuses = statuses
        groups = Array(repeating: (0, []), count: statuses.count)
    }

    /// Tasks gathered, in all groups.
    var count: Int { groups.reduce(0) { $0 + $1.count } }

    /// Gathers the rows of `event`'s tasks whose status is listed.
    mutating func add(_ event: Event) {
        tail.removeAll(keepingCapacity: true)
        for task in event.tasks {
            guard let group = statuses.firstIndex(of: task.status) else { continue }
            if tail.isEmpty {
                tail.append(contentsOf: ("  " + event.symbol.emoji + " " + TextWidth.truncate(TextWidth.clean(event.title), to: 24)
                                         + " · " + Rows.when(event.start, context) + "\n").utf8)
            }
            groups[group].count += 1
            groups[group].bytes.append(contentsOf: [0x20, 0x20])
            groups[group].bytes.append(contentsOf: Rows.checkbox(task.status).utf8)
            groups[group].bytes.append(0x20)
            TextWidth.appendFit(task.text, to: 40, into: &groups[group].bytes)
            groups[group].bytes.append(contentsOf: tail)
        }
    }

    /// Each group that has tasks, in the order of `statuses`, under its header.
    func write() {
        var first = true
        for (status, group) in zip(statuses, groups) where group.count > 0 {
            let title = status == .todo ? "To do" : status == .doing ? "Doing" : "Done"
            context.out.write((first ? "" : "\n") + context.style("\(title) (\(group.count))", "1") + "\n")
            context.out.write(bytes: group.bytes)
            first = false
        }
    }
}
