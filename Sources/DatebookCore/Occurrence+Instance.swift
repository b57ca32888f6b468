import Foundation

extension Occurrence {
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

    /// True when this occurrence is one instance of a repeating event.
    public var isRepeating: Bool { event.recurrence != nil }
}
