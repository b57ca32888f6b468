import DatebookCore
import DatebookStore
import DatebookRender
import Foundation

/// One delivery the schedule says is due at `due`: an alert for an occurrence, or a digest.
public struct PlannedDelivery: Sendable, Equatable {
    /// What is delivered: an alert (occurrence and lead time) or a digest (schedule and local date).
    public enum Item: Sendable, Equatable {
        case alert(Occurrence, lead: LeadTime)
        case digest(DigestSchedule, date: CalendarDate)
    }

    public let item: Item
    public let channel: String
    /// The scheduled moment (the alert's `start − lead`, or the digest's `at` on its date).
    public let scheduled: Date
    /// When it may go out: `scheduled`, or the end of the quiet hours it fell into.
    public let due: Date

    /// The ledger key, derived from data only (never from run time or config order).
    public let key: String

    public init(item: Item, channel: String, scheduled: Date, due: Date) {
        self.item = item
        self.channel = channel
        self.scheduled = scheduled
        self.due = due
        switch item {
        case .alert(let occurrence, let lead):
            key = AlertMessage.key(eventID: occurrence.event.id, occurrenceStart: occurrence.start, lead: lead, channel: channel)
        case .digest(let schedule, let date):
            key = DigestKey.make(name: schedule.name, date: date, channel: channel)
        }
    }

    /// `alert 'Dentist' (1h before)` or `digest 'morning' 2026-12-01`.
    public var summary: String {
        switch item {
        case .alert(let occurrence, let lead):
            "alert '\(TextWidth.clean(occurrence.event.title))' (\(lead) before)"
        case .digest(let schedule, let date):
            "digest '\(schedule.name)' \(date)"
        }
    }

    /// The ledger row for this delivery in `state`.
    func entry(state: LedgerEntry.State, reason: String? = nil) -> LedgerEntry {
        switch item {
        case .alert(let occurrence, let lead):
            LedgerEntry(key: key, kind: .alert, eventID: occurrence.event.id, occurrenceStart: occurrence.start,
                        lead: lead.description, channel: channel, dueAt: due, state: state, reason: reason)
        case .digest(let schedule, let date):
            LedgerEntry(key: key, kind: .digest, digest: schedule.name, digestDate: date.description, channel: channel,
                        dueAt: due, state: state, reason: reason)
        }
    }
}

/// Keys of digest deliveries: `digest:NAME:YYYY-MM-DD:channel`.
public enum DigestKey {
    public static func make(name: String, date: CalendarDate, channel: String) -> String {
        "digest:\(name):\(date):\(channel)"
    }
}
