import CICal
import Foundation

/// Turns a TZID plus a wall-clock time into an `ICalDateValue`, never falling back to UTC.
///
/// Order: an IANA name (also inside prefixes such as `/mozilla.org/20070129_1/Europe/Berlin`),
/// then the Windows-name table, then a VTIMEZONE shipped in the same file (evaluated by libical),
/// and finally the default zone with a warning. libical alone would turn an unknown TZID into a
/// floating time that later converts as UTC; this type exists to stop that.
final class ICalZoneResolver {
    private enum Resolution {
        case iana(TimeZone)
        /// A file-defined zone; `label` is the zone used for repeats, `exact` when X-LIC-LOCATION named it
        /// (or the TZID is datebook's own `GMT±hhmm` for the zone's one offset), `alike` when `label` has
        /// the zone's UTC offsets all year (else it has the zone's offset in January only).
        case shipped(OpaquePointer, label: TimeZone, exact: Bool, alike: Bool = true)
        case unknown
    }

    let defaultTimeZone: TimeZone
    /// The calendar's own zone (X-WR-TIMEZONE), which floating times are read in; nil: they stay floating.
    let floatingZone: TimeZone?
    /// icaltimezone objects built from the file's VTIMEZONE components, by TZID; owned here.
    private var shipped: [String: OpaquePointer] = [:]
    private var cache: [String: Resolution] = [:]

    init(defaultTimeZone: TimeZone, floatingZone: TimeZone? = nil) {
        self.defaultTimeZone = defaultTimeZone
        self.floatingZone = floatingZone
    }

    /// A floating wall-clock time: zoned in the calendar's X-WR-TIMEZONE when it has one.
    func floating(_ local: ICalLocalDateTime) -> ICalDateValue {
        guard let floatingZone else { return .floating(local) }
        return .zoned(local.instant(in: floatingZone), tzid: floatingZone.identifier)
    }

    deinit {
        for zone in shipped.values { icaltimezone_free(zone, 1) }
    }

    /// Adopts a parsed VTIMEZONE (ownership moves to libical's zone object). Returns false if unusable.
    func adopt(vtimezone: OpaquePointer) -> Bool {
        guard let zone = icaltimezone_new() else {
            icalcomponent_free(vtimezone)
            return false
        }
        guard icaltimezone_set_component(zone, vtimezone) != 0 else {
            // Not attached (no TZID, say): the zone's free would not reach it.
            icalcomponent_free(vtimezone)
            icaltimezone_free(zone, 1)
            return false
        }
        guard let tzid = Libical.text(icaltimezone_get_tzid(zone)) else {
            icaltimezone_free(zone, 1)
            return false
        }
        if let previous = shipped[tzid] { icaltimezone_free(previous, 1) }
        shipped[tzid] = zone
        cache[tzid] = nil
        return true
    }

    /// The zone value of `local` read in `tzid`, plus a warning when the TZID had to be guessed.
    func value(tzid: String, local: ICalLocalDateTime) -> (ICalDateValue, String?) {
        switch resolution(tzid, year: local.year) {
        case let .iana(zone):
            return (.zoned(local.instant(in: zone), tzid: zone.identifier), nil)
        case let .shipped(zone, label, exact, alike):
            var time = Libical.floating(local, isDate: false)
            icaltimezone_convert_time(&time, zone, icaltimezone_get_utc_timezone())
            let instant = Libical.utcInstant(time)
            let warning = exact ? nil
                : "TZID '\(tzid)' is not a known zone name; the time follows the file's VTIMEZONE, and repeats "
                + "use \(label.identifier), " + (alike ? "which has the same UTC offsets" : "its offset in January: no known zone "
                    + "changes offset as it does, so a repeat on the other side of its change is off by the difference")
                + "; use an IANA name such as Europe/Berlin"
            return (.zoned(instant, tzid: label.identifier), warning)
        case .unknown:
            let instant = local.instant(in: defaultTimeZone)
            return (.zoned(instant, tzid: defaultTimeZone.identifier),
                    "unknown TZID '\(tzid)' (no such zone and no VTIMEZONE in the file); "
                    + "time read in \(defaultTimeZone.identifier) instead; use an IANA name such as Europe/Berlin")
        }
    }

    /// An IANA zone for a TZID without consulting the file (names, prefixes, Windows table).
    static func ianaZone(for tzid: String) -> TimeZone? {
        let quoteOrSpace: (UInt8?) -> Bool = { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: " ") }
        let trimmed = quoteOrSpace(tzid.utf8.first) || quoteOrSpace(tzid.utf8.last)
            ? tzid.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) : tzid
        if let zone = knownZone(trimmed) { return zone }
        if trimmed.hasPrefix("/") || trimmed.contains("/") {
            let parts = trimmed.split(separator: "/")
            for length in stride(from: min(3, parts.count), through: 1, by: -1) {
                let candidate = parts.suffix(length).joined(separator: "/")
                if let zone = knownZone(candidate) { return zone }
            }
        }
        if let mapped = WindowsTimeZones.iana(for: trimmed) { return TimeZone(identifier: mapped) }
        return nil
    }

    /// tz database names without a slash; other slash-less words (PST, GMT+1) are not zone names.
    private static let slashless: Set<String> = [
        "UTC", "GMT", "UCT", "Zulu", "CET", "EET", "MET", "WET", "EST", "MST", "HST",
        "EST5EDT", "CST6CDT", "MST7MDT", "PST8PDT",
    ]

    /// Only real tz database names: Foundation also accepts things like "GMT+1" and abbreviations.
    private static func knownZone(_ name: String) -> TimeZone? {
        guard name.contains("/") || slashless.contains(name) else { return nil }
        guard let zone = TimeZone(identifier: name) else { return nil }
        return zone
    }

    private func resolution(_ tzid: String, year: Int) -> Resolution {
        if let cached = cache[tzid] { return cached }
        let result: Resolution
        if let zone = Self.ianaZone(for: tzid) {
            result = .iana(zone)
        } else if let zone = shipped[tzid] {
            let location = Libical.text(icaltimezone_get_location(zone)).flatMap(Self.ianaZone(for:))
            let offsets = self.offsets(of: zone, year: year)
            if let location {
                result = .shipped(zone, label: location, exact: true)
            } else if let fixed = Self.fixedOffset(tzid), offsets.allSatisfy({ $0.offset == fixed.secondsFromGMT() }) {
                // A zone datebook exported itself: one offset, named by it.
                result = .shipped(zone, label: fixed, exact: true)
            } else if let alike = lookalike(offsets) {
                result = .shipped(zone, label: alike, exact: false)
            } else {
                let january = TimeZone(secondsFromGMT: offsets.first?.offset ?? 0) ?? defaultTimeZone
                result = .shipped(zone, label: january, exact: false, alike: offsets.allSatisfy { $0.offset == offsets.first?.offset })
            }
        } else {
            result = .unknown
        }
        cache[tzid] = result
        return result
    }

    private func icalOffset(_ zone: OpaquePointer, at local: ICalLocalDateTime) -> Int {
        var time = Libical.floating(local, isDate: false)
        var isDaylight: Int32 = 0
        return Int(icaltimezone_get_utc_offset(zone, &time, &isDaylight))
    }

    /// `GMT+hhmm` / `GMT-hhmm`, the names of the fixed-offset zones datebook exports (with a VTIMEZONE).
    private static func fixedOffset(_ tzid: String) -> TimeZone? {
        let bytes = Array(tzid.utf8)
        guard bytes.count == 8, tzid.hasPrefix("GMT"), bytes[3] == UInt8(ascii: "+") || bytes[3] == UInt8(ascii: "-"),
              bytes[4...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return TimeZone(identifier: tzid)
    }

    /// A file-defined zone's UTC offset at noon on the 1st and 15th of every month of `year`.
    private func offsets(of zone: OpaquePointer, year: Int) -> [(probe: ICalLocalDateTime, offset: Int)] {
        (1...12).flatMap { month in
            [1, 15].map { day in
                let probe = ICalLocalDateTime(year: year, month: month, day: day, hour: 12)
                return (probe, icalOffset(zone, at: probe))
            }
        }
    }

    /// An IANA zone with the same UTC offsets as a file-defined zone at each probe (`offsets`), the
    /// default zone first; nil when none has them. Runs once per such TZID.
    private func lookalike(_ offsets: [(probe: ICalLocalDateTime, offset: Int)]) -> TimeZone? {
        let utc = TimeZone(secondsFromGMT: 0) ?? defaultTimeZone
        func matches(_ candidate: TimeZone) -> Bool {
            offsets.allSatisfy { probe, offset in
                candidate.secondsFromGMT(for: probe.instant(in: utc).addingTimeInterval(TimeInterval(-offset))) == offset
            }
        }
        if matches(defaultTimeZone) { return defaultTimeZone }
        for identifier in TimeZone.knownTimeZoneIdentifiers where identifier.contains("/") && !identifier.hasPrefix("Etc/") {
            if let candidate = TimeZone(identifier: identifier), matches(candidate) { return candidate }
        }
        return nil
    }
}
