import DatebookCore
import DatebookDelivery
import Foundation

/// What a digest template sees: the agenda with every string pre-formatted for the user's
/// zone and locale, raw values beside them, and plain-text lines already fitted to 80 columns.
///
/// `templates/README.md` documents each key of `value`, the tree the templates render.
public struct DigestContext: Sendable {
    /// Longest title shown anywhere (Markdown, HTML); longer ones end with `…`.
    public static let maxTitleColumns = 200
    /// Width of the plain-text digest.
    public static let textColumns = 80

    public let value: MustacheValue
    /// The same sections as data, for services that lay a digest out with their own elements.
    public let outline: DigestOutline

    public init(_ input: DigestInput, locale: DigestLocale) {
        let builder = Builder(input: input, locale: locale)
        value = builder.build()
        outline = builder.outline()
    }

    struct Builder {
        let input: DigestInput
        let locale: DigestLocale
        let today: CalendarDate

        init(input: DigestInput, locale: DigestLocale) {
            self.input = input
            self.locale = locale
            today = CalendarDate(input.now, in: locale.timeZone)
        }

        /// `4 events this week, 11 open tasks, 2 overdue`.
        var summary: String {
            let overdue = input.windows.first { $0.kind == .overdue }
            // Every count goes through `MessageCatalog.count`, so a capped one says "500+" here as in the sections.
            var parts = [words.count("eventsThisWeek", input.week.events, capped: input.weekCapped),
                         words.count("openTasks", input.week.openTasks, capped: input.weekCapped)]
            if let overdue, overdue.total > 0 { parts.append(words.count("overdueCount", overdue.total, capped: overdue.capped)) }
            return parts.joined(separator: words.text("listSeparator"))
        }

        func build() -> MustacheValue {
            let sections = input.windows.filter { !$0.occurrences.isEmpty }.map(section)
            let summary = self.summary
            let nowZone = ISOInstant.format(input.now, in: locale.timeZone)
            return [
                "summary": .string(summary),
                "now": ["iso": .string(nowZone), "date": .string(locale.longDay(input.now)),
                        "day": .string(locale.day(input.now)), "time": .string(locale.time(input.now))],
                "timeZone": .string(locale.timeZone.identifier),
                "locale": .string(locale.identifier),
                "lang": .string(locale.identifier.replacingOccurrences(of: "_", with: "-")),
                "hasSections": .bool(!sections.isEmpty),
                "sections": .array(sections),
                "hasTaskLists": .bool(!input.taskLists.isEmpty),
                "taskListsTextHeading": .string(words.text("todoLists").uppercased(with: Locale(identifier: locale.identifier))),
                "taskLists": .array(input.taskLists.map(taskList)),
                "calendar": CalendarGrid(input: input, locale: locale, today: today).value,
                "textRule": .string(String(repeating: "─", count: DigestContext.textColumns)),
                "words": .object(words.words.mapValues { .string($0) }),
            ]
        }

        var words: MessageCatalog { locale.words }

        /// The sections as data: the headings, `more` lines and event words of the templates.
        func outline() -> DigestOutline {
            let sections = input.windows.filter { !$0.occurrences.isEmpty }.map { window in
                DigestOutline.Section(heading: heading(window), events: window.occurrences.map(entry), more: moreText(window))
            }
            return DigestOutline(summary: summary, sections: sections)
        }

        func entry(_ occurrence: Occurrence) -> DigestOutline.Entry {
            let event = occurrence.event
            let (open, done) = rowTasks(event)
            return DigestOutline.Entry(
                emoji: event.symbol.emoji, title: Self.displayText(event.title), when: when(occurrence).display,
                badge: rowBadge(event), location: Self.displayText(event.location),
                tasks: (open + done).map { DigestOutline.Task(text: Self.displayText($0.text), done: $0.status == .done) })
        }

        /// The tasks a row lists: an event's, open ones (in progress first) then done ones; none for
        /// a due to-do's row (`Event.dueToDo`), which is the task itself.
        func rowTasks(_ event: Event) -> (open: [EventTask], done: [EventTask]) {
            guard event.dueToDo == nil else { return ([], []) }
            return (event.tasks.filter { $0.status == .doing } + event.tasks.filter { $0.status == .todo },
                    event.tasks.filter { $0.status == .done })
        }

        /// An event's badge (`3 left`, `✓`); a due to-do's priority (`priority 1`) in its place.
        func rowBadge(_ event: Event) -> String {
            guard let todo = event.dueToDo else { return Badge.text(event) { words.count("left", $0) } }
            return priorityText(todo) ?? ""
        }

        /// `Next 7 Days · 3 open tasks`.
        func heading(_ window: DigestWindowResult) -> String {
            words.text(window.kind.rawValue) + words.text("headingSeparator")
                + words.count("openTasks", window.openTasks, capped: window.capped)
        }

        /// `and 12 more`, or empty when every occurrence is shown.
        func moreText(_ window: DigestWindowResult) -> String {
            let more = max(0, window.total - window.occurrences.count)
            return more > 0 ? words.count("more", more, capped: window.capped) : ""
        }

        func section(_ window: DigestWindowResult) -> MustacheValue {
            let events = window.occurrences.map(event)
            let more = max(0, window.total - window.occurrences.count)
            let openText = words.count("openTasks", window.openTasks, capped: window.capped)
            let title = words.text(window.kind.rawValue)
            let heading = heading(window)
            return [
                "kind": .string(window.kind.rawValue),
                "title": .string(title),
                "isOverdue": .bool(window.kind == .overdue),
                "openTasks": .int(window.openTasks),
                "openTasksText": .string(openText),
                "total": .int(window.total),
                "capped": .bool(window.capped),
                "heading": .string(heading),
                "textHeading": .string(heading.uppercased(with: Locale(identifier: locale.identifier))),
                "events": .array(events),
                "more": .int(more),
                "hasMore": .bool(more > 0),
                "moreText": .string(moreText(window)),
            ]
        }

        func event(_ occurrence: Occurrence) -> MustacheValue {
            let event = occurrence.event
            let title = Self.displayText(event.title)
            let when = self.when(occurrence)
            let todo = event.dueToDo
            let badge = todo == nil ? rowBadge(event) : ""
            let priority = todo.flatMap(priorityText) ?? ""
            let (open, done) = rowTasks(event)
            let location = Self.displayText(event.location)
            let repeats = occurrence.series.map(self.repeats) ?? ""
            return [
                "id": .string(event.id),
                "shortID": .string(event.shortID),
                "title": .string(title),
                "emoji": .string(event.symbol.emoji),
                "symbol": .string(event.symbol.rawValue),
                "color": ["name": .string(event.color.rawValue), "hex": .string(event.color.hex)],
                "start": ["iso": .string(ISOInstant.format(occurrence.start, in: locale.timeZone)),
                          "date": .string(when.date), "time": .string(when.time), "display": .string(when.display)],
                "allDay": .bool(event.start.isAllDay),
                "badge": .string(badge),
                "hasBadge": .bool(!badge.isEmpty),
                "complete": .bool(event.isComplete),
                "openCount": .int(event.badge),
                "openTasks": .array(open.map(task)),
                "doneTasks": .array(done.map(task)),
                "hasTasks": .bool(!(open + done).isEmpty),
                // A to-do of a to-do list due in this section (`Event.dueToDo`), with its priority.
                "isToDo": .bool(todo != nil),
                "priorityText": .string(priority),
                "hasPriority": .bool(!priority.isEmpty),
                "location": .string(location),
                "hasLocation": .bool(!location.isEmpty),
                // A row standing for its whole series (Future: each series once, at its next occurrence).
                "repeats": .string(repeats),
                "hasRepeats": .bool(!repeats.isEmpty),
                // A stored link passed `EventURL.problem`: an allowed scheme and URI characters only.
                "url": .string(event.url),
                "hasURL": .bool(!event.url.isEmpty),
                "text": .array(TextLayout.eventLines(emoji: event.symbol.emoji, title: title, when: when.display,
                                                     badge: todo == nil ? badge : priority, repeats: repeats, location: location, url: event.url,
                                                     open: open, done: done).map { .string($0) }),
            ]
        }

        /// `repeats weekly` in the digest's language, for a row that stands for its whole series.
        func repeats(_ series: String) -> String {
            if let frequency = SeriesRule.frequency(series) { return words.text("repeats" + frequency.prefix(1).uppercased() + frequency.dropFirst()) }
            guard let rule = SeriesRule.rule(series) else { return words.text("repeatsDates") }
            return words.text("repeatsRule", ["rule": rule])
        }

        func task(_ task: EventTask) -> MustacheValue {
            self.task(task, depth: 0)
        }

        /// A task, with a to-do's due date and priority in words; `depth`: how many to-dos it is a part of.
        func task(_ task: EventTask, depth: Int) -> MustacheValue {
            let due = dueText(task) ?? "", priority = priorityText(task) ?? ""
            return [
                "id": .string(task.id),
                "text": .string(Self.displayText(task.text)),
                "status": .string(task.status.rawValue),
                "doing": .bool(task.status == .doing),
                "done": .bool(task.status == .done),
                "due": .string(due),
                "hasDue": .bool(!due.isEmpty),
                "priority": .int(task.priority),
                "priorityText": .string(priority),
                "hasPriority": .bool(!priority.isEmpty),
                "depth": .int(depth),
                "indent": .string(String(repeating: "  ", count: depth)),
            ]
        }

        /// `due Fri, Dec 4 all day`, or nil without a due date.
        func dueText(_ task: EventTask) -> String? {
            task.due.map { words.text("dueOn", ["date": locale.when($0.resolved(in: input.calendar), allDay: $0.isAllDay,
                                                                     now: input.now, words: words).display]) }
        }

        /// `priority 1`, or nil without one.
        func priorityText(_ task: EventTask) -> String? { words.priority(task) }

        /// A to-do list: its open to-dos (`Event.openTaskOutline`) and its plain-text lines, the title
        /// and badge, then `[ ] Renew passport · due Fri, Dec 4 all day · priority 1`, indented by depth.
        func taskList(_ list: Event) -> MustacheValue {
            let outline = list.openTaskOutline
            let badge = Badge.text(list) { words.count("left", $0) }
            let separator = words.text("headingSeparator")
            var text = [TextWidth.truncate(Self.displayText(list.title) + separator + badge, to: DigestContext.textColumns)]
            for (task, depth) in outline {
                let line = String(repeating: "  ", count: depth + 1) + (task.status == .doing ? "[~] " : "[ ] ")
                    + ([Self.displayText(task.text), dueText(task), priorityText(task)].compactMap { $0 }).joined(separator: separator)
                text.append(TextWidth.truncate(line, to: DigestContext.textColumns))
            }
            return [
                "id": .string(list.id),
                "shortID": .string(list.shortID),
                "title": .string(Self.displayText(list.title)),
                "badge": .string(badge),
                "tasks": .array(outline.map { self.task($0.task, depth: $0.depth) }),
                "text": .array(text.map { .string($0) }),
            ]
        }

        /// Event text made safe for any layout: control characters become spaces, the ends are
        /// trimmed (Markdown emphasis cannot close after a space), and the length is capped.
        static func displayText(_ text: String) -> String {
            let cleaned = TextWidth.clean(text).trimmingCharacters(in: .whitespaces)
            return TextWidth.truncate(cleaned, to: DigestContext.maxTitleColumns)
        }

        /// Date words in the user's zone and locale; the year only when it is not near.
        func when(_ occurrence: Occurrence) -> (date: String, time: String, display: String) {
            locale.when(occurrence.start, allDay: occurrence.event.start.isAllDay, now: input.now, words: words)
        }
    }
}
