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

/// VTIMEZONE components from libical's built-in zone data, relabelled with the plain IANA name;
/// a zone without one there (a fixed offset such as `GMT+0130`, kept from an imported file whose
/// VTIMEZONE matched no IANA zone) gets a VTIMEZONE of that one offset: RFC 5545 §3.2.19 wants a
/// VTIMEZONE for every TZID, and a reader without it would take the time as floating or UTC.
enum ICalTimeZoneExport {
    static func vtimezone(_ tzid: String) -> [String] {
        guard let zone = icaltimezone_get_builtin_timezone(tzid),
              let component = icaltimezone_get_component(zone),
              let copy = icalcomponent_new_clone(component) else { return fixedOffset(tzid) }
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

    /// A VTIMEZONE with one STANDARD observance for a zone that keeps one UTC offset (Foundation's
    /// `GMT+0130`); none for an unknown name or a zone with transitions.
    static func fixedOffset(_ tzid: String) -> [String] {
        guard let zone = TimeZone(identifier: tzid), zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: 0)) == nil
        else { return [] }
        let seconds = zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0))
        let offset = (seconds < 0 ? "-" : "+") + ICalFormat.pad(abs(seconds) / 3600, 2) + ICalFormat.pad(abs(seconds) % 3600 / 60, 2)
            + (abs(seconds) % 60 == 0 ? "" : ICalFormat.pad(abs(seconds) % 60, 2))
        return ["BEGIN:VTIMEZONE", "TZID:" + ICalWriter.escape(tzid), "BEGIN:STANDARD", "DTSTART:16010101T000000",
                "TZOFFSETFROM:" + offset, "TZOFFSETTO:" + offset, "TZNAME:" + ICalWriter.escape(tzid), "END:STANDARD", "END:VTIMEZONE"]
    }
}
