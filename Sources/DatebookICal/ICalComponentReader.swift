import CICal
import Foundation

/// Reads one parsed VEVENT or VTODO into neutral values, collecting warnings.
struct ICalComponentReader {
    let fileName: String
    let resolver: ICalZoneResolver
    var defaultTimeZone: TimeZone { resolver.defaultTimeZone }

    /// Problems found in the component being read (messages only; the caller adds file/line/UID).
    struct Notes {
        var messages: [String] = []
        mutating func add(_ message: String?) {
            if let message, !messages.contains(message) { messages.append(message) }
        }
    }

    func uid(_ component: LibicalComponent, line: Int, kind: String, notes: inout Notes) -> String {
        if let property = component.first(ICAL_UID_PROPERTY), let uid = Libical.text(icalproperty_get_uid(property)) {
            return uid
        }
        let made = "\(fileName)#\(kind)-line-\(line)"
        notes.add("\(kind) has no UID; using '\(made)', which changes if lines move; give every \(kind) a UID")
        return made
    }

    /// The date value of a DTSTART-like property, or nil when it holds no usable time.
    func dateValue(_ property: OpaquePointer, _ time: icaltimetype, notes: inout Notes) -> ICalDateValue? {
        dateValue(time, tzid: Libical.tzid(property), notes: &notes)
    }

    /// The date value of a libical time with the property's TZID parameter, if any.
    func dateValue(_ time: icaltimetype, tzid: String?, notes: inout Notes) -> ICalDateValue? {
        guard icaltime_is_null_time(time) == 0, icaltime_is_valid_time(time) != 0 else { return nil }
        if time.is_date != 0 {
            return .date(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        }
        if Libical.isUTC(time) {
            var utc = time
            utc.zone = nil
            return .utc(Date(timeIntervalSince1970: TimeInterval(icaltime_as_timet(utc))))
        }
        if let tzid {
            let (value, warning) = resolver.value(tzid: tzid, local: Libical.local(time))
            notes.add(warning)
            return value
        }
        return resolver.floating(Libical.local(time))
    }

    /// A TEXT property, unescaped, through its typed libical getter (the string stays libical's).
    func text(_ component: LibicalComponent, _ kind: icalproperty_kind,
              _ getter: (OpaquePointer) -> UnsafePointer<CChar>?) -> String? {
        component.first(kind).flatMap { Libical.text(getter($0)) }
    }

    /// The first `X-` property called `name` (case-insensitive), as libical gives its value.
    func xText(_ component: LibicalComponent, _ name: String) -> String? {
        component.properties(ICAL_X_PROPERTY)
            .first { icalproperty_get_x_name($0).map { String(cString: $0).uppercased() == name } ?? false }
            .flatMap { Libical.text(icalproperty_get_x($0)) }
    }

    /// STATUS, upper-cased.
    func status(_ component: LibicalComponent) -> String? {
        component.first(ICAL_STATUS_PROPERTY).flatMap(Libical.valueString)?.uppercased()
    }

    func end(of start: ICalDateValue, _ component: LibicalComponent, notes: inout Notes) -> ICalDateValue? {
        if let property = component.first(ICAL_DTEND_PROPERTY) {
            let value = dateValue(property, icalproperty_get_dtend(property), notes: &notes)
            if value == nil { notes.add("DTEND is not a valid date or time; the event has no end") }
            return value
        }
        guard let property = component.first(ICAL_DURATION_PROPERTY) else { return nil }
        let duration = icalproperty_get_duration(property)
        guard icaldurationtype_is_bad_duration(duration) == 0 else {
            notes.add("DURATION is not valid; the event has no end")
            return nil
        }
        return Self.add(duration, to: start, defaultTimeZone: defaultTimeZone)
    }

    /// DTSTART + DURATION: days and weeks are calendar days in the start's zone, the rest exact seconds.
    static func add(_ d: icaldurationtype, to start: ICalDateValue, defaultTimeZone: TimeZone) -> ICalDateValue {
        let sign = d.is_neg != 0 ? -1 : 1
        let days = sign * Int(d.weeks * 7 + d.days)
        let seconds = sign * Int(d.hours * 3600 + d.minutes * 60 + d.seconds)
        let zone = start.timeZone(fallback: defaultTimeZone)
        let calendar = ICalCalendars.calendar(for: zone)
        switch start {
        case let .date(year, month, day):
            let base = ICalLocalDateTime(year: year, month: month, day: day).instant(in: zone)
            let moved = calendar.date(byAdding: .day, value: days, to: base) ?? base
            let local = ICalLocalDateTime.of(moved, in: zone)
            return .date(year: local.year, month: local.month, day: local.day)
        case let .floating(local):
            let utc = TimeZone(identifier: "UTC") ?? defaultTimeZone
            let base = local.instant(in: utc)
            let moved = base.addingTimeInterval(TimeInterval(days * 86_400 + seconds))
            return .floating(ICalLocalDateTime.of(moved, in: utc))
        case let .zoned(instant, tzid):
            // No calendar arithmetic for the common PT1H: adding zero days is the same instant.
            let moved = (days == 0 ? instant : calendar.date(byAdding: .day, value: days, to: instant) ?? instant)
                .addingTimeInterval(TimeInterval(seconds))
            return .zoned(moved, tzid: tzid)
        case let .utc(instant):
            return .utc(instant.addingTimeInterval(TimeInterval(days * 86_400 + seconds)))
        }
    }

    func dates(_ component: LibicalComponent, _ kind: icalproperty_kind, notes: inout Notes) -> [ICalDateValue] {
        component.properties(kind).compactMap { property in
            let time: icaltimetype
            if kind == ICAL_RDATE_PROPERTY {
                let rdate = icalproperty_get_rdate(property)
                time = icaltime_is_null_time(rdate.time) == 0 ? rdate.time : rdate.period.start
            } else {
                time = icalproperty_get_exdate(property)
            }
            let value = dateValue(property, time, notes: &notes)
            if value == nil { notes.add("an \(kind == ICAL_RDATE_PROPERTY ? "RDATE" : "EXDATE") is not a valid date; ignored") }
            return value
        }
    }

    /// VALARM triggers as lead times in seconds before start.
    func alarms(_ component: LibicalComponent, start: ICalDateValue, end: ICalDateValue?, notes: inout Notes) -> [Int] {
        let startInstant = start.resolve(in: defaultTimeZone)
        let length = length(start: start, end: end)
        return component.children(ICAL_VALARM_COMPONENT).compactMap { alarm in
            guard let property = icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) else {
                notes.add("a VALARM has no TRIGGER; ignored")
                return nil
            }
            let trigger = icalproperty_get_trigger(property)
            if icaltime_is_null_time(trigger.time) == 0 {
                var utc = trigger.time
                utc.zone = nil
                let at = Date(timeIntervalSince1970: TimeInterval(icaltime_as_timet(utc)))
                return Int(startInstant.timeIntervalSince(at).rounded())
            }
            let related = icalproperty_get_first_parameter(property, ICAL_RELATED_PARAMETER)
            return Self.lead(trigger.duration, relatedToEnd: related.map { icalparameter_get_related($0) == ICAL_RELATED_END } ?? false,
                             length: length)
        }
    }

    /// Seconds from start to end (0 without an end), for triggers related to the end.
    func length(start: ICalDateValue, end: ICalDateValue?) -> Int {
        end.map { Int($0.resolve(in: defaultTimeZone).timeIntervalSince(start.resolve(in: defaultTimeZone))) } ?? 0
    }

    /// The lead time of a duration TRIGGER: seconds before start, or before end with `RELATED=END`.
    static func lead(_ trigger: icaldurationtype, relatedToEnd: Bool, length: Int) -> Int {
        let offset = Libical.seconds(trigger)
        return relatedToEnd ? -(offset + length) : -offset
    }
}
