import DatebookCore
import DatebookStore
import Foundation

/// A snoozed alert: one more delivery of an occurrence's alert, later, as a ledger row of its own
/// (kind alert, no lead time) that the next pass at or after `until` sends like any other.
public enum Snooze {
    /// The Snooze button's length.
    public static let defaultLength: TimeInterval = 3600

    /// `snooze:EVENT:OCCURRENCE:UNTIL:CHANNEL`: from data only, so snoozing twice to the same moment is one row.
    public static func key(eventID: String, occurrenceStart: Date, until: Date, channel: String) -> String {
        "snooze:\(eventID):\(ISOInstant.format(occurrenceStart)):\(ISOInstant.format(until)):\(channel)"
    }

    /// The pending ledger row that sends the alert again at `until`.
    public static func entry(eventID: String, occurrenceStart: Date, until: Date, channel: String) -> LedgerEntry {
        LedgerEntry(key: key(eventID: eventID, occurrenceStart: occurrenceStart, until: until, channel: channel),
                    kind: .alert, eventID: eventID, occurrenceStart: occurrenceStart, channel: channel, dueAt: until)
    }

    /// Every open task of `event` marked done (the Done button and `datebook done`); nil when none was open.
    public static func completingTasks(of event: Event) -> Event? {
        guard event.tasks.contains(where: { $0.status.isOpen }) else { return nil }
        var event = event
        for index in event.tasks.indices { event.tasks[index].status = .done }
        return event
    }
}
