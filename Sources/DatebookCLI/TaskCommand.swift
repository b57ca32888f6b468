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
