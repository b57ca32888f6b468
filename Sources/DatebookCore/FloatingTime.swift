import Foundation

/// A wall-clock date and time with no zone (RFC 5545 §3.3.5 "floating" time): 09:30 stays 09:30
/// in whatever zone it is viewed, as an all-day date stays its date.
///
/// Held as the wall-clock time read as if it were UTC (`wallSeconds`), which is also its store key.
public struct FloatingTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds from 1970-01-01T00:00 to this wall-clock time, counted as if in UTC.
    public var wallSeconds: Int64

    public init(wallSeconds: Int64) { self.wallSeconds = wallSeconds }

    public init(date: CalendarDate, hour: Int, minute: Int, second: Int = 0) {
        wallSeconds = Int64(date.dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The wall-clock time `instant` shows in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        wallSeconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: instant))
    }

    /// Parses `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` (no offset, no `Z`); nil for anything else.
    public init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, let date = CalendarDate(iso: parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = clock.count == 3 ? Int(clock[2]) : 0,
              (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second)
        else { return nil }
        self.init(date: date, hour: hour, minute: minute, second: second)
    }

    private var dayNumber: Int { Int(wallSeconds >= 0 ? wallSeconds / 86_400 : (wallSeconds - 86_399) / 86_400) }
    private var secondOfDay: Int { Int(wallSeconds - Int64(dayNumber) * 86_400) }

    public var date: CalendarDate { CalendarDate(dayNumber: dayNumber) }
    public var hour: Int { secondOfDay / 3600 }
    public var minute: Int { secondOfDay % 3600 / 60 }
    public var second: Int { secondOfDay % 60 }

    /// The wall-clock fields (what `list` shows: the same in every zone).
    public var wallClock: LocalTime { LocalTime(Date(timeIntervalSince1970: TimeInterval(wallSeconds)), offset: 0) }

    /// `2026-12-02T09:30` (seconds only when not zero): the planner JSON form.
    public var description: String {
        var text = date.description + "T" + CivilDate.pad2(hour) + ":" + CivilDate.pad2(minute)
        if second != 0 { text += ":" + CivilDate.pad2(second) }
        return text
    }

    /// The instant this wall-clock time names in `calendar`'s zone. A time in a spring-forward gap
    /// moves forward by the gap (02:30 → 03:30); in a repeated hour the first is taken (as
    /// Foundation and libical read them).
    public func resolved(in calendar: Calendar) -> Date {
        let zone = calendar.timeZone
        func offset(_ seconds: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
        }
        // Offsets change at most once within a day of any real time (zones move by ≤ 26 h).
        let before = offset(wallSeconds - 86_400), after = offset(wallSeconds + 86_400)
        let early = wallSeconds - before, late = wallSeconds - after
        let earlyHolds = offset(early) == before, lateHolds = offset(late) == after
        let seconds = earlyHolds && lateHolds ? min(early, late) : lateHolds ? late : early
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    public static func < (a: FloatingTime, b: FloatingTime) -> Bool { a.wallSeconds < b.wallSeconds }
}
