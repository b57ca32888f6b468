import DatebookCore
import DatebookStore

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
