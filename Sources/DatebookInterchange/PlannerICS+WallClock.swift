import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

extension PlannerICS {
    /// UTC, in which wall-clock times are read as instants.
    private static let wallClockZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    /// The wall-clock time (read as UTC) of the instance `recurrenceID` names in `master`'s series:
    /// all-day series on their dates, floating ones on their wall clock, others in their own zone.
    public static func wallClock(_ recurrenceID: ICalDateValue, of master: Event, fallback: TimeZone) -> Date {
        let utc = wallClockZone
        switch master.start {
        case .allDay: return instanceDay(recurrenceID, of: master, fallback: fallback).resolve(in: utc)
        case .floating: return recurrenceID.resolve(in: utc)
        case .instant:
            let zone = expansionZone(of: master, fallback: fallback)
            return ICalLocalDateTime.of(recurrenceID.resolve(in: zone), in: zone).instant(in: utc)
        }
    }

    /// The instance of `master`'s series at the wall-clock time `wall` (read as UTC), as a value.
    public static func instance(atWallClock wall: Date, of master: Event, fallback: TimeZone) -> ICalDateValue {
        let local = ICalLocalDateTime.of(wall, in: wallClockZone)
        switch master.start {
        case .allDay: return .date(year: local.year, month: local.month, day: local.day)
        case .floating: return .floating(local)
        case .instant: return .utc(local.instant(in: expansionZone(of: master, fallback: fallback)))
        }
    }
}
