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

    /// 09:00 on the day after `now` in `calendar`'s zone (the Tomorrow 9:00 link); on a day that
    /// skips 09:00 (a DST change at that hour), the first moment after it.
    public static func tomorrowMorning(after now: Date, calendar: Calendar) -> Date {
        let today = calendar.startOfDay(for: now)
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: today) ?? today.addingTimeInterval(86_400)
        return calendar.date(bySettingHour: 9, minute: 0, second: 0, of: tomorrow) ?? tomorrow.addingTimeInterval(9 * 3600)
    }

    /// Every open task of `event` marked done (the Done button and `datebook done`); nil when none was open.
    public static func completingTasks(of event: Event) -> Event? {
        guard event.tasks.contains(where: { $0.status.isOpen }) else { return nil }
        var event = event
        for index in event.tasks.indices { event.tasks[index].status = .done }
        return event
    }
}
