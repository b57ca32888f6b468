import Foundation

extension OccurrenceOf {
    /// This instance's start in the event's own terms: the occurrence's date for an all-day event,
    /// its wall-clock time for a floating one, its instant otherwise. For a recurring event it differs from `event.start` (the first one);
    /// display code should show this, not `event.start`.
    public func instanceStart(in timeZone: TimeZone) -> EventStart {
        switch event.start {
        case .allDay: return .allDay(CalendarDate(start, in: timeZone))
        case .floating: return .floating(FloatingTime(start, in: timeZone))
        case .instant: return .instant(start)
        }
    }
}

extension OccurrenceOf where Item == Event {
    /// This instance's end, as far from `instanceStart` as the event's end is from its start (nil
    /// when the event has none): the second instance of a weekly 10:00–11:00 meeting ends at 11:00
    /// of its own day, not of the first.
    public func instanceEnd(in timeZone: TimeZone) -> EventStart? {
        switch (event.start, event.end) {
        case let (.allDay(first), .allDay(end)?):
            return .allDay(CalendarDate(dayNumber: CalendarDate(start, in: timeZone).dayNumber + end.dayNumber - first.dayNumber))
        case let (.floating(first), .floating(end)?):
            return .floating(FloatingTime(wallSeconds: FloatingTime(start, in: timeZone).wallSeconds + end.wallSeconds - first.wallSeconds))
        case let (.instant(first), .instant(end)?):
            return .instant(start.addingTimeInterval(end.timeIntervalSince(first)))
        default:
            return nil
        }
    }

    /// True when this occurrence is one instance of a repeating event.
    public var isRepeating: Bool { event.recurrence != nil }
}
