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

    /// `colorHex` as a 24-bit integer (Discord embed color), nil when not `#RRGGBB`.
    public var colorValue: Int? {
        guard let hex = event?.colorHex, hex.hasPrefix("#"), hex.count == 7 else { return nil }
        return Int(hex.dropFirst(), radix: 16)
    }
}
