import Foundation

/// When an alert of an occurrence is due: a lead before its start (`1d`, `1h`, `10m`, `1h30m`),
/// a lead before its end (`end-15m`, iCalendar's `TRIGGER;RELATED=END`), or a fixed instant
/// (`@2026-12-24T08:00:00Z`, `TRIGGER;VALUE=DATE-TIME`).
///
/// Days and weeks are calendar days (an alert `1d` before a 09:00 event fires at 09:00 the day
/// before, even across a DST change); hours, minutes and seconds are exact durations. The text
/// forms are single words, so the store's space-separated `alerts` column holds every kind and a
/// store written before the end and instant forms reads the same.
public struct LeadTime: Sendable, Hashable, CustomStringConvertible {
    public var days: Int
    public var seconds: Int
    /// What the lead counts back from.
    public var anchor: Anchor

    /// The point of an occurrence an alert is timed from.
    public enum Anchor: Sendable, Hashable {
        /// The occurrence's start (the lead is before it).
        case start
        /// The occurrence's end (the lead is before it); an event without an end ends as it starts,
        /// an all-day one at the midnight after its last day.
        case end
        /// This instant, whatever the occurrence: a recurring event is alerted once, for its first
        /// occurrence that starts at or after it (else its last one before it).
        case instant(Date)
    }

    public init(days: Int = 0, seconds: Int = 0, anchor: Anchor = .start) {
        self.days = days
        self.seconds = seconds
        self.anchor = anchor
    }

    /// An alert at `instant` (whole seconds).
    public static func at(_ instant: Date) -> LeadTime {
        LeadTime(anchor: .instant(Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))))
    }

    /// The longest lead time: the days from 0001-01-01 to the last day of ``RepresentableDates``.
    public static let maxDays = CivilDate.days(year: RepresentableDates.years.upperBound, month: 12, day: 31)
        - CivilDate.days(year: 1, month: 1, day: 1)

    /// Parses every stored form: a duration (`2w`, `1d`, `1h30m`, `90m`, `45s`, `0m`) before the
    /// start, `end-` and a duration before the end, `@` and an RFC 3339 instant; nil for anything
    /// else and for leads longer than `maxDays`.
    public init?(_ text: String) {
        if text.hasPrefix("@") {
            guard let instant = ISOInstant.parse(String(text.dropFirst())), RepresentableDates.contains(instant) else { return nil }
            self = .at(instant)
        } else if text.lowercased().hasPrefix("end-") {
            guard let lead = LeadTime(duration: String(text.dropFirst(4))) else { return nil }
            self.init(days: lead.days, seconds: lead.seconds, anchor: .end)
        } else {
            guard let lead = LeadTime(duration: text) else { return nil }
            self = lead
        }
    }

    /// Parses a plain duration only (`2w`, `1d`, `1h30m`, `90m`, `45s`, `0m`): what a relative
    /// time, an interval or a wait is; nil for anything else and for leads longer than `maxDays`.
    public init?(duration text: String) {
        var days = 0, seconds = 0, number = 0, digits = 0, sawUnit = false
        for char in text.lowercased() {
            if let d = char.wholeNumberValue, char.isASCII {
                guard number < 1_000_000 else { return nil }
                number = number * 10 + d
                digits += 1
                continue
            }
            guard digits > 0 else { return nil }
            switch char {
            case "w": days += number * 7
            case "d": days += number
            case "h": seconds += number * 3600
            case "m": seconds += number * 60
            case "s": seconds += number
            default: return nil
            }
            number = 0
            digits = 0
            sawUnit = true
        }
        guard sawUnit, digits == 0, days + seconds / 86_400 <= Self.maxDays else { return nil }
        self.init(days: days, seconds: seconds)
    }

    /// Canonical text, the stored form: `1d`, `1h30m`, `0m`, `end-15m`, `@2026-12-24T08:00:00Z`.
    public var description: String {
        switch anchor {
        case .start: return durationText
        case .end: return "end-" + durationText
        case .instant(let date): return "@" + ISOInstant.format(date)
        }
    }

    /// The lead as a duration (`1h30m`, `0m`), whatever it counts back from.
    public var durationText: String {
        var out = ""
        if days > 0 { out += days % 7 == 0 ? "\(days / 7)w" : "\(days)d" }
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if s > 0 { out += "\(s)s" }
        return out.isEmpty ? "0m" : out
    }

    /// The lead in seconds when days are taken as 86 400 s (iCalendar's duration of a TRIGGER).
    public var totalSeconds: Int { days * 86_400 + seconds }

    /// True for a lead before the start, the kind every config lead and `alerts.before` is.
    public var isBeforeStart: Bool { anchor == .start }

    /// The instant a lead before start is due for an occurrence starting at `start`.
    public func due(before start: Date, calendar: Calendar) -> Date {
        let dayShifted = days == 0 ? start : calendar.date(byAdding: .day, value: -days, to: start) ?? start
        return dayShifted.addingTimeInterval(TimeInterval(-seconds))
    }

    /// The instant this alert is due for `occurrence`: before its start or its end, or the fixed
    /// instant; in `calendar`'s zone (calendar days across DST, all-day and floating times there).
    public func due(for occurrence: Occurrence, calendar: Calendar) -> Date {
        switch anchor {
        case .start: return due(before: occurrence.start, calendar: calendar)
        case .end: return due(before: occurrence.endInstant(calendar: calendar), calendar: calendar)
        case .instant(let date): return date
        }
    }
}

extension OccurrenceOf where Item == Event {
    /// The instant this occurrence ends: its end, or its start for a timed event without one; an
    /// all-day occurrence ends at the midnight (in `calendar`'s zone) after its last day.
    public func endInstant(calendar: Calendar) -> Date {
        switch instanceEnd(in: calendar.timeZone) {
        case .allDay(let last)?: return CalendarDate(dayNumber: last.dayNumber + 1).start(in: calendar)
        case let end?: return end.resolved(in: calendar)
        case nil:
            guard event.start.isAllDay else { return start }
            return CalendarDate(dayNumber: CalendarDate(start, in: calendar.timeZone).dayNumber + 1).start(in: calendar)
        }
    }
}
