import Foundation

/// What the rest of datebook hands to Delivery: one rendered alert, digest or test message.
public struct OutgoingMessage: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case alert, digest, test
    }

    /// The event an alert is about (absent for digests).
    public struct Event: Sendable, Equatable {
        public var id: String
        public var title: String
        /// ISO-8601 instant (or date for all-day events).
        public var start: String
        public var end: String?
        public var allDay: Bool
        public var timeZone: String
        /// Emoji shown before the title.
        public var symbol: String
        public var colorName: String
        /// `#RRGGBB`.
        public var colorHex: String
        public var notes: String
        public var openTasks: Int
        /// `Tue 2026-12-01 07:00 (Europe/Berlin)` or `Fri 2026-12-25, all day`.
        public var when: String
        /// `in 1 h`, `now`; empty when the alert has no lead time.
        public var relativeWhen: String
        /// Seconds between the alert and the occurrence, nil for an alert sent by hand.
        public var leadSeconds: Int?
        /// Where it happens (the event's location, one line), empty when unknown.
        public var location: String
        /// The event's link (http, https, mailto or tel), nil when it has none.
        public var url: String?
        /// The occurrence's start instant (ISO 8601, UTC), as in the ledger key.
        public var occurrenceStart: String
        /// The open tasks as shown in the text body: `[ ] Bring card`, `[~] Book taxi` (in progress).
        public var openTaskLines: [String]

        public init(
            id: String, title: String, start: String, end: String? = nil, allDay: Bool = false,
            timeZone: String, symbol: String = "", colorName: String = "", colorHex: String = "",
            notes: String = "", openTasks: Int = 0, when: String = "", relativeWhen: String = "",
            leadSeconds: Int? = nil, location: String = "", url: String? = nil, occurrenceStart: String = "", openTaskLines: [String] = []
        ) {
            self.id = id
            self.title = title
            self.start = start
            self.end = end
            self.allDay = allDay
            self.timeZone = timeZone
            self.symbol = symbol
            self.colorName = colorName
            self.colorHex = colorHex
            self.notes = notes
            self.openTasks = openTasks
            self.when = when
            self.relativeWhen = relativeWhen
            self.leadSeconds = leadSeconds
            self.location = location
            self.url = url
            self.occurrenceStart = occurrenceStart
            self.openTaskLines = openTaskLines
        }
    }

    /// A link an alert carries (`serve.baseURL` set): Done, Snooze 1 h, Tomorrow 9:00 (signed,
    /// opening a confirmation page) and the event's page.
    public struct Action: Sendable, Equatable {
        /// `done`, `snooze`, `tomorrow` or `event`: `{{doneURL}}` … in command templates,
        /// `actions[].action` in the generic webhook.
        public var name: String
        /// The button's text: `Done`, `Snooze 1 h`, `Tomorrow 9:00`, `Open`.
        public var label: String
        public var url: String

        public init(name: String, label: String, url: String) {
            self.name = name
            self.label = label
            self.url = url
        }
    }

    /// The words channels put around the data (field names, buttons), in the reader's language:
    /// Render fills them from the message catalogue; English when not given.
    public struct Labels: Sendable, Equatable {
        public var starts = "Starts"
        public var ends = "Ends"
        public var openTasks = "Open tasks"
        /// `2 open tasks`: the count of the event's open tasks in words (empty when none).
        public var openTaskCount = ""
        public var open = "Open"
        public var truncated = "(truncated)"
        public var done = "Done"
        public var snooze = "Snooze 1 h"
        public var tomorrow = "Tomorrow 9:00"
        /// The name of the event's place (`Where`).
        public var location = "Where"

        /// The button of the action link named `name` (`done`, `snooze`, `tomorrow`, `event`).
        public func action(_ name: String) -> String {
            switch name {
            case "done": done
            case "snooze": snooze
            case "tomorrow": tomorrow
            default: open
            }
        }

        public init() {}
    }

    public var kind: Kind
    /// Stable key derived from data (event id, occurrence, lead time, channel); sent as
    /// `Idempotency-Key` and used for the email Message-ID.
    public var idempotencyKey: String
    /// Without the event's emoji (`event.symbol`): channels add it once (`displayTitle`).
    public var title: String
    public var text: String
    public var markdown: String
    public var html: String?
    public var url: String?
    public var event: Event?
    /// The alert's links, in button order; empty without `serve.baseURL` (and for digests).
    public var actions: [Action] = []
    public var labels = Labels()
    /// A digest's sections as data (digests only), for services that lay them out themselves.
    public var outline: DigestOutline?

    public init(
        kind: Kind, idempotencyKey: String, title: String, text: String, markdown: String,
        html: String? = nil, url: String? = nil, event: Event? = nil
    ) {
        self.kind = kind
        self.idempotencyKey = idempotencyKey
        self.title = title
        self.text = text
        self.markdown = markdown
        self.html = html
        self.url = url
        self.event = event
    }

    /// The title as people see it: the event's emoji, then `title` (which carries no emoji of
    /// its own), e.g. `🎭 in 1 hour: Pagliacci`. Every channel shows this one form.
    public var displayTitle: String {
        guard let symbol = event?.symbol, !symbol.isEmpty else { return title }
        return symbol + " " + title
    }

    /// The link of action `name` (`done`, `snooze`, `tomorrow`, `event`), nil when the alert has none.
    public func actionURL(_ name: String) -> String? {
        actions.first { $0.name == name }?.url
    }

    /// The links as plain text, one `Label: URL` a line (the text part of an email).
    public var actionLines: String {
        actions.map { $0.label + ": " + $0.url }.joined(separator: "\n")
    }

    /// `colorHex` as a 24-bit integer (Discord embed color), nil when not `#RRGGBB`.
    public var colorValue: Int? {
        guard let hex = event?.colorHex, hex.hasPrefix("#"), hex.count == 7 else { return nil }
        return Int(hex.dropFirst(), radix: 16)
    }
}
