import DatebookCore
import Foundation

/// What `Event.recurrence` holds: the RRULE value on the first line, then `RDATE`/`EXDATE`/`EXRULE` lines.
///
/// `FREQ=WEEKLY;BYDAY=MO` alone is the common case (and what older stores and planner JSON
/// documents contain). Dates imported from iCalendar follow on their own lines in iCalendar
/// syntax, always as UTC instants (`EXDATE:20261207T080000Z`) or dates
/// (`EXDATE;VALUE=DATE:20261207`), so the text needs no zone table to be read back.
public struct RecurrenceText: Sendable, Equatable {
    /// The RRULE value; nil when the event recurs only on RDATEs.
    public var rule: String?
    public var rdates: [ICalDateValue]
    public var exdates: [ICalDateValue]
    /// EXRULE values (`EXRULE:FREQ=WEEKLY;BYDAY=SA,SU` lines).
    public var exrules: [String]

    public init(rule: String?, rdates: [ICalDateValue] = [], exdates: [ICalDateValue] = [], exrules: [String] = []) {
        self.rule = rule
        self.rdates = rdates
        self.exdates = exdates
        self.exrules = exrules
    }

    /// Reads the stored text; unreadable date lines are ignored.
    public init(_ text: String) {
        var lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        var rule: String?
        if let first = lines.first, !["RDATE", "EXDATE", "EXRULE"].contains(where: first.uppercased().hasPrefix) {
            let value = first.uppercased().hasPrefix("RRULE:") ? String(first.dropFirst(6)) : first
            rule = value.isEmpty ? nil : value
            lines.removeFirst()
        }
        self.init(rule: rule)
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].uppercased()
            if name == "EXRULE" {
                exrules.append(String(line[line.index(after: colon)...]))
                continue
            }
            let values = line[line.index(after: colon)...].split(separator: ",").compactMap { Self.value(String($0)) }
            if name.hasPrefix("RDATE") { rdates += values }
            if name.hasPrefix("EXDATE") { exdates += values }
        }
    }

    /// The text stored in `Event.recurrence`.
    public var text: String {
        var lines = [rule ?? ""]
        if !rdates.isEmpty { lines.append(Self.line("RDATE", rdates)) }
        if !exdates.isEmpty { lines.append(Self.line("EXDATE", exdates)) }
        lines += exrules.map { "EXRULE:" + $0 }
        return lines.joined(separator: "\n")
    }

    static func line(_ name: String, _ values: [ICalDateValue]) -> String {
        let dates = values.filter(\.isAllDay)
        let times = values.filter { !$0.isAllDay }
        var parts: [String] = []
        if !times.isEmpty { parts.append(name + ":" + times.map(format).joined(separator: ",")) }
        if !dates.isEmpty { parts.append(name + ";VALUE=DATE:" + dates.map(format).joined(separator: ",")) }
        return parts.joined(separator: "\n")
    }

    /// `20261207T080000Z` (instants as UTC), `20261207` (dates) or a floating local time.
    public static func format(_ value: ICalDateValue) -> String {
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        func local(_ t: ICalLocalDateTime) -> String {
            pad(t.year, 4) + pad(t.month, 2) + pad(t.day, 2) + "T" + pad(t.hour, 2) + pad(t.minute, 2) + pad(t.second, 2)
        }
        switch value {
        case let .date(year, month, day): return pad(year, 4) + pad(month, 2) + pad(day, 2)
        case let .floating(time): return local(time)
        case let .zoned(instant, _), let .utc(instant):
            return local(.of(instant, in: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current)) + "Z"
        }
    }

    /// The value a text `format` wrote names (`YYYYMMDD`, `YYYYMMDDTHHMMSS`, with `Z` in UTC), read by its digits;
    /// nil with fewer than eight.
    public static func value(_ text: String) -> ICalDateValue? {
        let digits = Array(text.filter(\.isNumber))
        func number(_ from: Int, _ count: Int) -> Int? { Int(String(digits[from..<(from + count)])) }
        guard digits.count >= 8, let y = number(0, 4), let m = number(4, 2), let d = number(6, 2) else { return nil }
        guard digits.count >= 14, let h = number(8, 2), let mi = number(10, 2), let s = number(12, 2) else {
            return .date(year: y, month: m, day: d)
        }
        let local = ICalLocalDateTime(year: y, month: m, day: d, hour: h, minute: mi, second: s)
        guard text.uppercased().hasSuffix("Z"), let utc = TimeZone(identifier: "UTC") else { return .floating(local) }
        return .utc(local.instant(in: utc))
    }
}

/// Expands an event's recurrence into occurrence keys (`EventStart.occurrenceKey`) inside a key window.
///
/// Bounded: at most `cap` keys per event and call, libical's own step limit, and rules libical
/// would spin on (SECONDLY, MINUTELY, INTERVAL=0, impossible BYxxx) yield only the first start
/// plus a warning. Instants expand in the event's own zone, so 09:00 stays 09:00 across DST;
/// all-day events expand on dates (keys are midnight UTC), floating ones on wall-clock times
/// (keys are those times read as UTC; each is read in the viewer's zone when listed).
public enum RecurrenceExpander {
    /// Most occurrences one event contributes to one window.
    public static let cap = 1_000

    /// Keys of occurrences starting in `window` (`[lower, upper)` in key seconds).
    public static func keys(start: EventStart, timeZone: String, recurrence: String, window: Range<Int64>,
                            cap: Int = cap) -> (keys: [Int64], warning: String?) {
        let text = RecurrenceText(recurrence)
        let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        let value: ICalDateValue
        let zone: TimeZone
        switch start {
        case .instant(let date):
            zone = TimeZone(identifier: timeZone) ?? utc
            value = .zoned(date, tzid: zone.identifier)
        case .allDay(let day):
            zone = utc
            value = .date(year: day.year, month: day.month, day: day.day)
        case .floating(let time):
            // Keys of floating occurrences are wall-clock times read as UTC, like the start's.
            zone = utc
            value = .floating(ICalLocalDateTime(time))
        }
        let lower = Date(timeIntervalSince1970: TimeInterval(max(window.lowerBound, -62_000_000_000)))
        let upper = Date(timeIntervalSince1970: TimeInterval(min(window.upperBound, 250_000_000_000)))
        guard lower < upper else { return ([], nil) }
        let result: (starts: [Date], truncated: Bool, warning: String?)
        do {
            result = try ICalRecurrence.occurrences(
                rrule: text.rule, rdates: text.rdates, exdates: text.exdates, exrules: text.exrules, start: value, duration: 0,
                timeZone: zone, window: DateInterval(start: lower, end: upper), cap: cap)
        } catch {
            return ([], "\(error)")
        }
        let keys = result.starts.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
            .filter { window.contains($0) }
        return (keys, result.warning)
    }

    /// Why `rule` would be refused, or nil when it expands normally; checks `--repeat` and
    /// imported rules before they are saved.
    public static func problem(rule: String) -> String? {
        let text = RecurrenceText(rule)
        if let refusal = text.exrules.lazy.compactMap(ICalRecurrence.refusal(exrule:)).first { return refusal }
        guard let rrule = text.rule else { return nil }
        return ICalRecurrence.refusal(rrule: rrule)
    }
}
