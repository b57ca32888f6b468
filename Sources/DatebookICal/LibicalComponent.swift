import CICal
import DatebookCore
import Foundation

/// Owns one parsed libical component tree and frees it in `deinit`.
final class LibicalComponent {
    let pointer: OpaquePointer

    /// Parses one component's text; nil when libical finds no component at all.
    init?(text: UnsafePointer<CChar>) {
        guard let parsed = icalparser_parse_string(text) else { return nil }
        pointer = parsed
    }

    deinit { icalcomponent_free(pointer) }

    /// All properties of `kind` directly on this component (not on sub-components).
    func properties(_ kind: icalproperty_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var property = icalcomponent_get_first_property(pointer, kind)
        while let current = property {
            result.append(current)
            property = icalcomponent_get_next_property(pointer, kind)
        }
        return result
    }

    func first(_ kind: icalproperty_kind) -> OpaquePointer? {
        icalcomponent_get_first_property(pointer, kind)
    }

    /// Direct sub-components of `kind` (e.g. VALARMs of a VEVENT); they stay owned by this tree.
    func children(_ kind: icalcomponent_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var child = icalcomponent_get_first_component(pointer, kind)
        while let current = child {
            result.append(current)
            child = icalcomponent_get_next_component(pointer, kind)
        }
        return result
    }

    /// The texts of libical's X-LIC-ERROR properties: what it could not parse.
    var parseErrors: [String] {
        properties(ICAL_XLICERROR_PROPERTY).compactMap { property in
            icalproperty_get_xlicerror(property).map { String(cString: $0) }
        }
    }
}

/// Small helpers over libical property and parameter values.
enum Libical {
    /// RRULE weekday names in the order of `icaltime_day_of_week` (1 = SU … 7 = SA).
    static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// The property's value as libical serialises it (caller-owned `_r` string, freed here).
    static func valueString(_ property: OpaquePointer) -> String? {
        guard let raw = icalproperty_get_value_as_string_r(property) else { return nil }
        defer { cical_free_string(raw) }
        return String(cString: raw)
    }

    static func text(_ cString: UnsafePointer<CChar>?) -> String? {
        guard let cString else { return nil }
        let value = String(cString: cString)
        return value.isEmpty ? nil : value
    }

    static func tzid(_ property: OpaquePointer) -> String? {
        guard let parameter = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER) else { return nil }
        return text(icalparameter_get_tzid(parameter))
    }

    static func isUTC(_ time: icaltimetype) -> Bool {
        icaltime_is_utc(time) != 0
    }

    static func local(_ time: icaltimetype) -> ICalLocalDateTime {
        ICalLocalDateTime(year: Int(time.year), month: Int(time.month), day: Int(time.day),
                          hour: Int(time.hour), minute: Int(time.minute), second: Int(time.second))
    }

    /// A floating libical time for `local`; `isDate` makes it an all-day date.
    static func floating(_ local: ICalLocalDateTime, isDate: Bool) -> icaltimetype {
        var time = icaltime_null_time()
        time.year = Int32(local.year)
        time.month = Int32(local.month)
        time.day = Int32(local.day)
        if isDate {
            time.is_date = 1
        } else {
            time.hour = Int32(local.hour)
            time.minute = Int32(local.minute)
            time.second = Int32(local.second)
        }
        return time
    }

    /// A libical duration as signed whole days (weeks included) and exact seconds, summed in 64
    /// bits: libical's fields are 32-bit and `icaldurationtype_as_int` overflows without a word.
    static func parts(_ duration: icaldurationtype) -> (days: Int, seconds: Int) {
        let sign = duration.is_neg != 0 ? -1 : 1
        return (sign * (Int(duration.weeks) * 7 + Int(duration.days)),
                sign * (Int(duration.hours) * 3600 + Int(duration.minutes) * 60 + Int(duration.seconds)))
    }

    /// Seconds in a libical duration, signed.
    static func seconds(_ duration: icaldurationtype) -> Int {
        let (days, seconds) = parts(duration)
        return days * 86_400 + seconds
    }

    /// A duration as iCalendar text (`P1000000000W`), for messages.
    static func text(_ duration: icaldurationtype) -> String {
        guard let text = icaldurationtype_as_ical_string_r(duration) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }

    /// The instant of a UTC libical time, from its fields: `icaltime_as_timet` answers -1 for
    /// years before 1902 (1900-01-01 became 1969-12-31T23:59:59Z). Fields checked by the caller.
    static func utcInstant(_ time: icaltimetype) -> Date {
        let isDate = time.is_date != 0
        let seconds = RepresentableDates.secondsSince1970(
            year: Int(time.year), month: Int(time.month), day: Int(time.day),
            hour: isDate ? 0 : Int(time.hour), minute: isDate ? 0 : Int(time.minute), second: isDate ? 0 : Int(time.second))
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
