import CICal
import Foundation

/// Keeps libical's expansion of a file's VTIMEZONE as bounded as the expansion of an event's rule.
///
/// libical turns a VTIMEZONE into its list of offset changes (`icaltimezone_expand_vtimezone`) the
/// first time a time is converted with it: every STANDARD/DAYLIGHT RRULE is walked from the
/// observance's DTSTART to the year 2035, with no other bound. One observance with
/// `RRULE:FREQ=SECONDLY` made that a list of two billion changes: `import`, `feed add` and every
/// `tick` of the feed hung. Real zones change a few times a year, so an observance's rule must
/// repeat yearly or monthly and give at most ``cap`` changes before 2038 (walked here, with the
/// bounds of ``ICalRecurrence``); any other rule is taken out of the observance before libical
/// sees it, which leaves the observance's own DTSTART offset, with a warning naming the TZID.
enum ICalZoneRules {
    /// Changes one observance may give before 2038: a yearly rule from the year 1 gives 2,037
    /// (Outlook starts its observances in 1601).
    static let cap = 2_500

    /// The frequencies a time zone's observance may repeat at.
    private static let frequencies: Set<String> = ["YEARLY", "MONTHLY"]

    /// True when the VTIMEZONE's TZID is an IANA or Windows zone name, which ``ICalZoneResolver``
    /// reads from the system's zone data instead of the file's rules.
    static func isNamedZone(_ vtimezone: OpaquePointer) -> Bool {
        icalcomponent_get_first_property(vtimezone, ICAL_TZID_PROPERTY)
            .flatMap { Libical.text(icalproperty_get_tzid($0)) }
            .flatMap(ICalZoneResolver.ianaZone(for:)) != nil
    }

    /// Removes the RRULEs of `vtimezone`'s observances that would give more than ``cap`` changes,
    /// or repeat more often than monthly; one warning per removed rule.
    static func tame(_ vtimezone: OpaquePointer) -> [String] {
        let tzid = icalcomponent_get_first_property(vtimezone, ICAL_TZID_PROPERTY)
            .flatMap { Libical.text(icalproperty_get_tzid($0)) } ?? "(no TZID)"
        var warnings: [String] = []
        for kind in [ICAL_XSTANDARD_COMPONENT, ICAL_XDAYLIGHT_COMPONENT] {
            var observance = icalcomponent_get_first_component(vtimezone, kind)
            while let current = observance {
                observance = icalcomponent_get_next_component(vtimezone, kind)
                var rules: [OpaquePointer] = []
                var property = icalcomponent_get_first_property(current, ICAL_RRULE_PROPERTY)
                while let rule = property {
                    rules.append(rule)
                    property = icalcomponent_get_next_property(current, ICAL_RRULE_PROPERTY)
                }
                let start = icalcomponent_get_first_property(current, ICAL_DTSTART_PROPERTY).map { icalproperty_get_dtstart($0) }
                for rule in rules {
                    let text = Libical.valueString(rule) ?? ""
                    guard let problem = problem(text, start: start) else { continue }
                    icalcomponent_remove_property(current, rule)
                    icalproperty_free(rule)
                    let name = kind == ICAL_XDAYLIGHT_COMPONENT ? "DAYLIGHT" : "STANDARD"
                    let shown = text.count > 60 ? text.prefix(60) + "…" : text
                    warnings.append("VTIMEZONE '\(tzid)': the \(name) rule '\(shown)' \(problem); the rule was dropped, "
                                    + "so that observance applies only from its DTSTART on (times using this TZID may be off)")
                }
            }
        }
        return warnings
    }

    /// An upper bound on the changes a yearly rule gives in one year: the product of its lists'
    /// lengths, a weekday without an ordinal (and no day of the month or year to pin it) counting
    /// as every such weekday of a year.
    static func mostPerYear(_ rule: ICalRuleText) -> Int {
        // Clamped at each step (a fuzzed rule has lists of any length): far above any cap, far below overflow.
        let ceiling = 1 << 32
        var most = 1
        for key in ["BYMONTH", "BYWEEKNO", "BYYEARDAY", "BYMONTHDAY", "BYHOUR", "BYMINUTE", "BYSECOND"] {
            most = min(ceiling, most * (rule[key].map { max(1, $0.split(separator: ",").count) } ?? 1))
        }
        if let days = rule["BYDAY"] {
            let pinned = rule["BYMONTHDAY"] != nil || rule["BYYEARDAY"] != nil
            let perDay = days.split(separator: ",").reduce(0) { sum, day in
                sum + (pinned || day.first.map { $0 == "+" || $0 == "-" || $0.isNumber } == true ? 1 : 53)
            }
            most = min(ceiling, most * max(1, perDay))
        }
        return most
    }

    /// Why an observance's rule cannot be expanded within the bounds, or nil.
    static func problem(_ text: String, start: icaltimetype?) -> String? {
        let rule = ICalRuleText(text)
        let frequency = rule["FREQ"]?.uppercased() ?? ""
        guard frequencies.contains(frequency) else {
            return "repeats \(frequency.isEmpty ? "without a FREQ" : "FREQ=" + frequency) (a time zone changes at most monthly)"
        }
        if let problem = rule.problem { return "is refused: " + problem }
        guard let start, icaltime_is_null_time(start) == 0, let utc = TimeZone(identifier: "UTC") else { return nil }
        // The common rules (`FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10`) are bounded on their face: no walk.
        if frequency == "YEARLY", max(1, 2_038 - Int(start.year)) * mostPerYear(rule) <= cap { return nil }
        let first = ICalDateValue.floating(Libical.local(start))
        let from = first.resolve(in: utc)
        let end = ICalLocalDateTime(year: 2038, month: 1, day: 1).instant(in: utc)
        guard from < end else { return nil }
        let walk = try? ICalRecurrence.occurrences(rrule: text, rdates: [], exdates: [], start: first, duration: 0, timeZone: utc,
                                                   window: DateInterval(start: from, end: end), cap: cap)
        guard let walk, !walk.truncated, walk.warning == nil else {
            return "gives more than \(cap) changes before 2038"
        }
        return nil
    }
}
