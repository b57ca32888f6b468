import CICal
import DatebookCore
import Foundation

/// Reads one parsed VEVENT or VTODO into neutral values, collecting warnings.
struct ICalComponentReader {
    let fileName: String
    let resolver: ICalZoneResolver
    var defaultTimeZone: TimeZone { resolver.defaultTimeZone }

    /// Problems found in the component being read (messages only; the caller adds file/line/UID).
    struct Warnings {
        var messages: [String] = []
        mutating func add(_ message: String?) {
            if let message, !messages.contains(message) { messages.append(message) }
        }
    }

    /// Why a component is refused as a whole (a date or duration datebook cannot keep).
    struct Refusal: Error {
        var message: String
    }

    func uid(_ component: LibicalComponent, line: Int, kind: String, warnings: inout Warnings) -> String {
        if let property = component.first(ICAL_UID_PROPERTY), let uid = Libical.text(icalproperty_get_uid(property)) {
            return uid
        }
        let made = "\(fileName)#\(kind)-line-\(line)"
        warnings.add("\(kind) has no UID; using '\(made)', which changes if lines move; give every \(kind) a UID")
        return made
    }

    /// The date value of a DTSTART-like property, or nil when it holds no usable time.
    func dateValue(_ property: OpaquePointer, _ time: icaltimetype, warnings: inout Warnings) -> ICalDateValue? {
        dateValue(time, tzid: Libical.tzid(property), warnings: &warnings)
    }

    /// The date value of a libical time with the property's TZID parameter, if any; nil for a null
    /// time or one that names no representable date (``problem(_:)`` says why).
    func dateValue(_ time: icaltimetype, tzid: String?, warnings: inout Warnings) -> ICalDateValue? {
        guard icaltime_is_null_time(time) == 0, Self.problem(time) == nil else { return nil }
        if time.is_date != 0 {
            return .date(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        }
        if Libical.isUTC(time) {
            return .utc(Libical.utcInstant(time))
        }
        if let tzid {
            let (value, warning) = resolver.value(tzid: tzid, local: Libical.local(time))
            warnings.add(warning)
            return value
        }
        return resolver.floating(Libical.local(time))
    }

    /// Why a libical time names no date datebook keeps (`month 13 does not exist`), or nil.
    ///
    /// libical reads `2024-13-45` and `20241345T250000Z` without complaint, and its own validity
    /// check stops at the year 3000; datebook's range is ``RepresentableDates``.
    static func problem(_ time: icaltimetype) -> String? {
        let isDate = time.is_date != 0
        return RepresentableDates.problem(year: Int(time.year), month: Int(time.month), day: Int(time.day),
                                          hour: isDate ? 0 : Int(time.hour), minute: isDate ? 0 : Int(time.minute),
                                          second: isDate ? 0 : Int(time.second))
    }

    /// The value of a date property that must be usable when present: nil when absent or
    /// unreadable, a ``Refusal`` naming the property when it names a date datebook cannot keep.
    func checkedDate(_ property: OpaquePointer, _ time: icaltimetype, name: String, warnings: inout Warnings) throws(Refusal) -> ICalDateValue? {
        if icaltime_is_null_time(time) == 0, let problem = Self.problem(time) {
            throw Refusal(message: "\(name) is not a date datebook can keep (\(problem)); \(Self.skipped(fix: name))")
        }
        return dateValue(property, time, warnings: &warnings)
    }

    static func skipped(fix name: String) -> String { "the event was skipped; fix the \(name) line" }

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

    /// DTEND, or DTSTART + DURATION; throws a ``Refusal`` when either lies outside ``RepresentableDates``.
    func end(of start: ICalDateValue, _ component: LibicalComponent, warnings: inout Warnings) throws(Refusal) -> ICalDateValue? {
        if let property = component.first(ICAL_DTEND_PROPERTY) {
            let value = try checkedDate(property, icalproperty_get_dtend(property), name: "DTEND", warnings: &warnings)
            if value == nil { warnings.add("DTEND is not a valid date or time; the event has no end") }
            return value
        }
        guard let property = component.first(ICAL_DURATION_PROPERTY) else { return nil }
        let duration = icalproperty_get_duration(property)
        guard icaldurationtype_is_bad_duration(duration) == 0 else {
            warnings.add("DURATION is not valid; the event has no end")
            return nil
        }
        guard let end = Self.add(duration, to: start, defaultTimeZone: defaultTimeZone) else {
            throw Refusal(message: "DURATION \(Libical.text(duration)) ends after \(RepresentableDates.years.upperBound)-12-31, the last date datebook keeps; "
                          + Self.skipped(fix: "DURATION"))
        }
        return end
    }

    /// DTSTART + DURATION: days and weeks are calendar days in the start's zone, the rest exact
    /// seconds; nil when the end falls outside ``RepresentableDates``. libical's fields are 32-bit
    /// (`P1000000000W`); the sums here are 64-bit and checked before any calendar arithmetic.
    static func add(_ d: icaldurationtype, to start: ICalDateValue, defaultTimeZone: TimeZone) -> ICalDateValue? {
        let (days, seconds) = Libical.parts(d)
        let span = RepresentableDates.latest.timeIntervalSince(RepresentableDates.earliest)
        guard Double(abs(days)) * 86_400 + Double(abs(seconds)) <= span else { return nil }
        let zone = start.timeZone(fallback: defaultTimeZone)
        let calendar = ICalCalendars.calendar(for: zone)
        let end: ICalDateValue
        switch start {
        case let .date(year, month, day):
            let base = ICalLocalDateTime(year: year, month: month, day: day).instant(in: zone)
            guard let moved = calendar.date(byAdding: .day, value: days, to: base) else { return nil }
            let local = ICalLocalDateTime.of(moved, in: zone)
            end = .date(year: local.year, month: local.month, day: local.day)
        case let .floating(local):
            let utc = TimeZone(identifier: "UTC") ?? defaultTimeZone
            let moved = local.instant(in: utc).addingTimeInterval(TimeInterval(days * 86_400 + seconds))
            guard RepresentableDates.contains(moved) else { return nil }
            end = .floating(ICalLocalDateTime.of(moved, in: utc))
        case let .zoned(instant, tzid):
            // No calendar arithmetic for the common PT1H: adding zero days is the same instant.
            guard let dayMoved = days == 0 ? instant : calendar.date(byAdding: .day, value: days, to: instant) else { return nil }
            end = .zoned(dayMoved.addingTimeInterval(TimeInterval(seconds)), tzid: tzid)
        case let .utc(instant):
            end = .utc(instant.addingTimeInterval(TimeInterval(days * 86_400 + seconds)))
        }
        return end.isRepresentable ? end : nil
    }

    func dates(_ component: LibicalComponent, _ kind: icalproperty_kind, warnings: inout Warnings) -> [ICalDateValue] {
        component.properties(kind).compactMap { property in
            let time: icaltimetype
            if kind == ICAL_RDATE_PROPERTY {
                let rdate = icalproperty_get_rdate(property)
                time = icaltime_is_null_time(rdate.time) == 0 ? rdate.time : rdate.period.start
            } else {
                time = icalproperty_get_exdate(property)
            }
            let value = dateValue(property, time, warnings: &warnings)
            if value == nil { warnings.add("an \(kind == ICAL_RDATE_PROPERTY ? "RDATE" : "EXDATE") is not a valid date; ignored") }
            return value
        }
    }

    /// The VALARMs' triggers; one datebook cannot keep is left out with a warning.
    func alarms(_ component: LibicalComponent, start: ICalDateValue, end: ICalDateValue?, warnings: inout Warnings) -> [ICalAlarm] {
        let startInstant = start.resolve(in: defaultTimeZone)
        let length = length(start: start, end: end)
        return component.children(ICAL_VALARM_COMPONENT).compactMap { alarm in
            guard let property = icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) else {
                warnings.add("a VALARM has no TRIGGER; ignored")
                return nil
            }
            let trigger = icalproperty_get_trigger(property)
            let made: ICalAlarm
            if icaltime_is_null_time(trigger.time) == 0 {
                guard Self.problem(trigger.time) == nil else {
                    warnings.add("a VALARM TRIGGER is not a date datebook can keep; ignored")
                    return nil
                }
                made = .at(Libical.utcInstant(trigger.time))
            } else {
                let related = icalproperty_get_first_parameter(property, ICAL_RELATED_PARAMETER)
                made = Self.alarm(trigger.duration, relatedToEnd: related.map { icalparameter_get_related($0) == ICAL_RELATED_END } ?? false)
            }
            guard Self.isKept(made, start: startInstant, length: length) else {
                warnings.add("a VALARM TRIGGER falls outside years \(RepresentableDates.rangeText); ignored")
                return nil
            }
            return made
        }
    }

    /// Seconds from start to end (0 without an end), for triggers related to the end.
    func length(start: ICalDateValue, end: ICalDateValue?) -> Int {
        end.map { Int($0.resolve(in: defaultTimeZone).timeIntervalSince(start.resolve(in: defaultTimeZone))) } ?? 0
    }

    /// True when `alarm` falls on a date datebook keeps, for an event from `start` lasting `length` seconds.
    static func isKept(_ alarm: ICalAlarm, start: Date, length: Int) -> Bool {
        switch alarm {
        case .beforeStart(let lead): return RepresentableDates.contains(start.addingTimeInterval(TimeInterval(-lead)))
        case .beforeEnd(let lead): return RepresentableDates.contains(start.addingTimeInterval(TimeInterval(length - lead)))
        case .at(let instant): return RepresentableDates.contains(instant)
        }
    }

    /// The alarm of a duration TRIGGER: before the start, or before the end with `RELATED=END`.
    static func alarm(_ trigger: icaldurationtype, relatedToEnd: Bool) -> ICalAlarm {
        let lead = -Libical.seconds(trigger)
        return relatedToEnd ? .beforeEnd(lead) : .beforeStart(lead)
    }
}
