/// A digest's sections as data, for the services that lay a digest out with their own elements
/// (Slack sections, Teams containers) instead of showing the text digest, whose columns and
/// month grid are ragged in a proportional font.
///
/// Every string is plain text, already in the reader's language and zone; each payload builder
/// escapes it by its service's rule.
public struct DigestOutline: Sendable, Equatable {
    /// One period (Overdue, Today, Next 7 Days, …).
    public struct Section: Sendable, Equatable {
        /// `Next 7 Days · 1503+ open tasks`.
        public var heading: String
        public var events: [Entry]
        /// `and 12 more` when the section shows only the first occurrences; empty otherwise.
        public var more: String

        public init(heading: String, events: [Entry], more: String = "") {
            self.heading = heading
            self.events = events
            self.more = more
        }
    }

    /// One occurrence in a section.
    public struct Entry: Sendable, Equatable {
        public var emoji: String
        public var title: String
        /// `Wed, Dec 2 9:00 AM`, or the day and `all day`.
        public var when: String
        /// `2 left`, `✓`, or empty.
        public var badge: String
        public var location: String
        /// Open tasks first (in progress before to do), then done ones.
        public var tasks: [Task]

        public init(emoji: String, title: String, when: String, badge: String = "", location: String = "", tasks: [Task] = []) {
            self.emoji = emoji
            self.title = title
            self.when = when
            self.badge = badge
            self.location = location
            self.tasks = tasks
        }

        /// `🎭 Pagliacci`: the emoji (if any) and the title.
        public var heading: String { emoji.isEmpty ? title : emoji + " " + title }

        /// `Wed, Dec 2 9:00 AM · 2 left · Opera house`: what follows the title.
        public var details: String { ([when, badge, location].filter { !$0.isEmpty }).joined(separator: " · ") }
    }

    /// One task of an entry.
    public struct Task: Sendable, Equatable {
        public var text: String
        public var done: Bool

        public init(text: String, done: Bool) {
            self.text = text
            self.done = done
        }

        /// `☐ Buy tickets` or `☑ Book table`.
        public var line: String { (done ? "☑ " : "☐ ") + text }
    }

    /// The summary line: `4 events this week, 11 open tasks`.
    public var summary: String
    public var sections: [Section]

    public init(summary: String, sections: [Section]) {
        self.summary = summary
        self.sections = sections
    }
}
