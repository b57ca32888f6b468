import CICal
import Foundation

/// Date and duration texts in iCalendar's basic format.
public enum ICalFormat {
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    static func date(_ year: Int, _ month: Int, _ day: Int) -> String {
        pad(year, 4) + pad(month, 2) + pad(day, 2)
    }

    static func local(_ t: ICalLocalDateTime) -> String {
        date(t.year, t.month, t.day) + "T" + pad(t.hour, 2) + pad(t.minute, 2) + pad(t.second, 2)
    }

    static func utc(_ instant: Date) -> String {
        let zone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        return local(.of(instant, in: zone)) + "Z"
    }

    /// TRIGGER value for a lead time: 900 → `-PT15M`, 86400 → `-P1D`, -300 → `PT5M`.
    public static func trigger(leadSeconds: Int) -> String {
        let sign = leadSeconds > 0 ? "-" : ""
        var rest = abs(leadSeconds)
        if rest == 0 { return "PT0S" }
        let days = rest / 86_400
        rest %= 86_400
        var text = sign + "P"
        if days > 0 { text += "\(days)D" }
        if rest > 0 {
            text += "T"
            if rest / 3600 > 0 { text += "\(rest / 3600)H" }
            if rest % 3600 / 60 > 0 { text += "\(rest % 3600 / 60)M" }
            if rest % 60 > 0 { text += "\(rest % 60)S" }
        }
        return text
    }
}

/// VTIMEZONE components from libical's built-in zone data, relabelled with the plain IANA name.
enum ICalTimeZoneExport {
    static func vtimezone(_ tzid: String) -> [String] {
        guard let zone = icaltimezone_get_builtin_timezone(tzid),
              let component = icaltimezone_get_component(zone),
              let copy = icalcomponent_new_clone(component) else { return [] }
        defer { icalcomponent_free(copy) }
        if let property = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) {
            icalproperty_set_tzid(property, tzid)
        }
        guard let raw = icalcomponent_as_ical_string_r(copy) else { return [] }
        defer { cical_free_string(raw) }
        // libical folds and ends lines itself; unfold so our folding applies uniformly.
        let text = String(cString: raw).replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\n ", with: "")
        return text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).map(String.init)
            .filter { !$0.isEmpty }
    }
}
