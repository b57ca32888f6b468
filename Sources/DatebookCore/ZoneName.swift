import Foundation

/// Whether a zone name means the same to other calendar programs.
///
/// Foundation accepts `GMT+0530`, `UTC+5` and `GMT+0130` as fixed-offset zones, but such a name is
/// no IANA name: written as a TZID without a VTIMEZONE (RFC 5545 §3.2.19 forbids that) it reads
/// as an unknown zone elsewhere, and the event moves by its offset on every other device. So
/// such names are refused, with the IANA name that keeps the same time.
public enum ZoneName {
    /// Zones whose offset is not whole hours, for the names with such an offset (`GMT+0530`).
    static let fractional = ["Asia/Kolkata", "Asia/Kathmandu", "Asia/Tehran", "Asia/Kabul", "Asia/Yangon",
                             "Australia/Darwin", "Australia/Eucla", "America/St_Johns", "Pacific/Marquesas",
                             "Pacific/Chatham", "Australia/Lord_Howe", "Asia/Colombo"]

    /// Why `name` (a zone Foundation reads) is refused, with the IANA name to use instead; nil
    /// for any name but an offset one (`GMT+0530`, `UTC+5`).
    public static func problem(_ name: String, zone: TimeZone, now: Date) -> String? {
        // Only offset names: an IANA alias (`US/Eastern`) may be missing from Foundation's list.
        let upper = name.uppercased()
        guard ["GMT+", "GMT-", "UTC+", "UTC-"].contains(where: upper.hasPrefix), !TimeZone.knownTimeZoneIdentifiers.contains(name)
        else { return nil }
        let offset = zone.secondsFromGMT(for: now)
        let hours = offset / 3600
        let alternative: String?
        if offset % 3600 == 0 {
            alternative = hours == 0 ? "UTC" : "Etc/GMT" + (hours > 0 ? "-" : "+") + String(abs(hours))
        } else {
            alternative = fractional.first { TimeZone(identifier: $0)?.secondsFromGMT(for: now) == offset }
        }
        let sign = offset < 0 ? "-" : "+"
        let shown = sign + String(format: "%02d:%02d", abs(offset) / 3600, abs(offset) % 3600 / 60)
        let instead = alternative.map { "use the IANA name \($0) (the same \(shown) all year" + ($0.hasPrefix("Etc/") ? "; Etc/ signs are inverted)" : " where it keeps no summer time)") }
            ?? "no IANA zone keeps \(shown); use the zone of the place, like Europe/Berlin"
        return "'\(name)' is not an IANA zone name, so other calendar programs would read it as an unknown zone and move "
            + "its events; " + instead
    }
}
