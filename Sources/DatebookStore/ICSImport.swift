import DatebookCore
import Foundation

/// Events to save (`saveImport`) with the iCalendar UID each one came from, and what the reading skipped.
public struct ICSImport: Sendable {
    public var events: [Event]
    /// Event id → the iCalendar UID it was made from (`UID#RECURRENCE-ID` for a moved instance).
    public var uids: [String: String]
    /// `file:line: UID x: message` lines for components that were skipped or changed.
    public var warnings: [String]
    /// Recurring events submitted for expansion by their index in `events`, when the decoder was
    /// told the store they go to (`Options.store`).
    public var expansions: OccurrenceExpansions?

    public init(events: [Event], uids: [String: String], warnings: [String], expansions: OccurrenceExpansions? = nil) {
        self.events = events
        self.uids = uids
        self.warnings = warnings
        self.expansions = expansions
    }
}
