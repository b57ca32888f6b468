import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// Changes a few properties of a server's iCalendar text and leaves every other line as it was,
/// byte for byte (X- properties, attendees, categories, other VALARMs, the VTIMEZONEs).
///
/// Only the first `VEVENT`/`VTODO` without a RECURRENCE-ID is touched (or, given an `instance`,
/// the override whose RECURRENCE-ID names it), and only its own lines (not those of its VALARMs).
/// Overrides are added and removed whole (`adding(_:to:)`, `removing(instance:from:)`).
public enum ICalPatch {
    /// One property to set: its lines (none: remove the property). Several lines for a property
    /// that repeats (EXDATE, RDATE); `ownAlarms` for datebook's own VALARM blocks.
    public struct Change: Sendable, Equatable {
        public var name: String
        public var lines: [String]
        public init(_ name: String, _ line: String?) {
            self.name = name
            lines = line.map { [$0] } ?? []
        }

        public init(_ name: String, lines: [String]) {
            self.name = name
            self.lines = lines
        }

        /// The lines as one text (for merging and messages); nil when the property is removed.
        public var line: String? { lines.isEmpty ? nil : lines.joined(separator: "\n") }
    }

    /// The name of the change that replaces datebook's own VALARMs (those holding `alarmMarker`);
    /// no property can have it (a name has no colon). Other VALARMs stay as they were.
    public static let ownAlarms = "VALARM:datebook"
    /// The line that marks a VALARM datebook wrote.
    public static let alarmMarker = "X-DATEBOOK-ALERT:1"

    /// `text` with each change applied: the first line of that name replaced by the change's lines
    /// (its repeats removed), or the lines added before the component's END when it had none.
    /// - Parameter instance: patch the override of this instance (`RecurrenceText.format` of its
    ///   RECURRENCE-ID, as a stored override source ends) instead of the master.
    public static func apply(_ changes: [Change], to text: String, component: String, instance: String? = nil) -> String {
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        var lines = logicalLines(text, separator: separator)
        guard var range = target(in: lines, component: component, instance: instance) else { return text }
        let blocks = (changes.contains(where: { $0.name == ownAlarms }) ? ownAlarmBlocks(lines, range) : [])
            + serverAlarmBlocks(lines, range, removing: changes.first { $0.name == serverAlarmsRemoved }?.lines ?? [])
        for block in blocks.sorted(by: { $0.lowerBound > $1.lowerBound }) { lines.removeSubrange(block) }
        range = range.lowerBound...(range.upperBound - blocks.reduce(0) { $0 + $1.count })
        func folded(_ line: String) -> String {
            ICalWriter.fold(line).replacingOccurrences(of: "\r\n", with: separator)
        }
        var out: [String] = []
        var done: Set<String> = [serverAlarmsRemoved]
        var depth = 0
        for (index, line) in lines.enumerated() {
            if index == range.upperBound {
                for change in changes where !done.contains(change.name) {
                    out += change.lines.map(folded)
                }
            }
            guard index > range.lowerBound, index < range.upperBound else {
                out.append(line)
                continue
            }
            let name = propertyName(line)
            if name == "BEGIN" { depth += 1 }
            if name == "END" { depth -= 1 }
            if depth == 0, let change = changes.first(where: { $0.name == name }) {
                if !done.contains(name) { out += change.lines.map(folded) }
                done.insert(name)
                continue
            }
            out.append(line)
        }
        return out.joined(separator: separator) + (text.hasSuffix("\n") || text.hasSuffix("\r\n") ? separator : "")
    }

    /// The target component's datebook VALARM blocks (line index ranges, BEGIN to END).
    static func ownAlarmBlocks(_ lines: [String], _ range: ClosedRange<Int>) -> [Range<Int>] {
        alarmBlocks(lines, range).filter(\.marked).map(\.lines)
    }

    /// Every unfolded line of property `name` of the target component (for `ownAlarms`: the lines
    /// of datebook's VALARMs), one text; nil when there is none.
    public static func value(_ name: String, in text: String, component: String) -> String? {
        let lines = logicalLines(text, separator: "\r\n")
        guard let range = target(in: lines, component: component) else { return nil }
        var found: [String] = []
        if name == ownAlarms {
            found = ownAlarmBlocks(lines, range).flatMap { lines[$0].map(unfold) }
        } else {
            var depth = 0
            for line in lines[range].dropFirst() {
                let property = propertyName(line)
                if property == "BEGIN" { depth += 1 }
                if property == "END" { depth -= 1 }
                if depth == 0, property == name { found.append(unfold(line)) }
            }
        }
        return found.isEmpty ? nil : found.joined(separator: "\n")
    }

    /// Datebook's own VALARM block for an alert.
    public static func alarm(_ alarm: ICalAlarm, title: String) -> [String] {
        ["BEGIN:VALARM", alarmMarker, "ACTION:DISPLAY", textLine("DESCRIPTION", title), alarm.triggerLine, "END:VALARM"]
    }

    /// The unfolded line of property `name` of the target component, or nil.
    public static func line(_ name: String, in text: String, component: String) -> String? {
        let lines = logicalLines(text, separator: "\r\n")
        guard let range = target(in: lines, component: component) else { return nil }
        var depth = 0
        for line in lines[range].dropFirst() {
            let property = propertyName(line)
            if property == "BEGIN" { depth += 1 }
            if property == "END" { depth -= 1 }
            if depth == 0, property == name { return unfold(line) }
        }
        return nil
    }

    /// Indexes of the target component's BEGIN … END lines: the first one without a RECURRENCE-ID,
    /// or with `instance` the one whose RECURRENCE-ID names that instance (`instanceKey`).
    static func target(in lines: [String], component: String, instance: String? = nil) -> ClosedRange<Int>? {
        var start: Int?
        var depth = 0
        var recurrence: String?
        for (index, line) in lines.enumerated() {
            let name = propertyName(line)
            if let begin = start {
                if name == "BEGIN" { depth += 1 }
                if name == "END" {
                    if depth == 0 {
                        let wanted: Bool
                        switch (recurrence, instance) {
                        case (nil, nil): wanted = true
                        case let (found?, key?): wanted = matches(found, key)
                        default: wanted = false
                        }
                        if wanted { return begin...index }
                        start = nil
                        continue
                    }
                    depth -= 1
                }
                if depth == 0, name == "RECURRENCE-ID" { recurrence = instanceKey(unfold(line)) ?? "" }
            } else if name == "BEGIN", line.uppercased().hasSuffix(":" + component) {
                start = index
                depth = 0
                recurrence = nil
            }
        }
        return nil
    }

    /// Whether a RECURRENCE-ID's key names the instance `key`; an all-day series' instance (a date)
    /// is also named by a time on that day (Outlook writes its midnight in a Windows zone).
    static func matches(_ recurrence: String, _ key: String) -> Bool {
        recurrence == key || key.count == 8 && recurrence.hasPrefix(key)
    }

    /// The instance a `RECURRENCE-ID` line names, as `RecurrenceText.format` writes it (a time in
    /// UTC, a date, or a floating time); nil when it cannot be read.
    static func instanceKey(_ line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let parameters = line[..<colon].split(separator: ";").dropFirst().map { $0.uppercased() }
        let digits = Array(value.filter(\.isNumber))
        guard digits.count >= 8 else { return nil }
        let number = { (from: Int, count: Int) in Int(String(digits[from..<(from + count)])) ?? 0 }
        guard digits.count >= 14 else { return RecurrenceText.format(.date(year: number(0, 4), month: number(4, 2), day: number(6, 2))) }
        let local = ICalLocalDateTime(year: number(0, 4), month: number(4, 2), day: number(6, 2),
                                      hour: number(8, 2), minute: number(10, 2), second: number(12, 2))
        if value.uppercased().hasSuffix("Z") { return RecurrenceText.format(.floating(local)) + "Z" }
        guard let tzid = parameters.first(where: { $0.hasPrefix("TZID=") }) else { return RecurrenceText.format(.floating(local)) }
        let name = line[..<colon].split(separator: ";").first { $0.uppercased().hasPrefix("TZID=") }
            .map { String($0.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? String(tzid.dropFirst(5))
        guard let zone = TimeZone(identifier: name) else { return RecurrenceText.format(.floating(local)) }
        return RecurrenceText.format(.utc(local.instant(in: zone)))
    }

    /// `text` without the override (the whole component) of `instance`; as it was when there is none.
    public static func removing(instance: String, from text: String, component: String = "VEVENT") -> String {
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        var lines = logicalLines(text, separator: separator)
        guard let range = target(in: lines, component: component, instance: instance) else { return text }
        lines.removeSubrange(range)
        return lines.joined(separator: separator) + (text.hasSuffix("\n") ? separator : "")
    }

    /// `text` with the component `block` (its lines, BEGIN to END) added before the calendar's end,
    /// and a VTIMEZONE for each zone its lines name that the text has none for.
    public static func adding(_ block: [String], to text: String) -> String {
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        var lines = logicalLines(text, separator: separator)
        guard let end = lines.lastIndex(where: { $0.uppercased() == "END:VCALENDAR" }) else { return text }
        lines.insert(contentsOf: block.map { ICalWriter.fold($0).replacingOccurrences(of: "\r\n", with: separator) }, at: end)
        return addingZones(named: block, to: lines.joined(separator: separator) + (text.hasSuffix("\n") ? separator : ""))
    }

    /// `text` with a VTIMEZONE (before its first component) for each zone the `TZID=` parameters
    /// of `lines` name and the text has none for (RFC 5545 §3.2.19: a TZID needs its VTIMEZONE).
    public static func addingZones(named lines: [String], to text: String) -> String {
        var tzids: [String] = []
        for line in lines {
            let head = line.prefix { $0 != ":" }
            for parameter in head.split(separator: ";") where parameter.uppercased().hasPrefix("TZID=") {
                let tzid = String(parameter.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if !tzids.contains(tzid) { tzids.append(tzid) }
            }
        }
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        var all = logicalLines(text, separator: separator)
        let held = Set(all.filter { propertyName($0) == "TZID" }.map { unfold($0).drop { $0 != ":" }.dropFirst() }.map(String.init))
        let missing = tzids.filter { !held.contains($0) }.flatMap(ICalWriter.vtimezone)
        guard !missing.isEmpty, let first = all.firstIndex(where: {
            propertyName($0) == "BEGIN" && !$0.uppercased().hasSuffix(":VCALENDAR")
        }) else { return text }
        all.insert(contentsOf: missing.map { ICalWriter.fold($0).replacingOccurrences(of: "\r\n", with: separator) }, at: first)
        return all.joined(separator: separator) + (text.hasSuffix("\n") ? separator : "")
    }

    /// Content lines with their continuation lines attached (still folded, as written).
    static func logicalLines(_ text: String, separator: String) -> [String] {
        var result: [String] = []
        for line in ICalResources.lines(text) {
            if line.first == " " || line.first == "\t", !result.isEmpty {
                result[result.count - 1] += separator + line
            } else {
                result.append(String(line))
            }
        }
        return result
    }

    static func unfold(_ line: String) -> String {
        // "\r\n" is one Character: take the scalars.
        var scalars = String.UnicodeScalarView()
        var skipping = false
        for scalar in line.unicodeScalars {
            if scalar == "\r" || scalar == "\n" {
                skipping = true
                continue
            }
            if skipping, scalar == " " || scalar == "\t" {
                skipping = false
                continue
            }
            skipping = false
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// `SUMMARY` of `SUMMARY;LANGUAGE=en:…`.
    static func propertyName(_ line: String) -> String {
        let end = line.firstIndex { $0 == ";" || $0 == ":" } ?? line.endIndex
        return line[..<end].uppercased()
    }

    // MARK: Values

    /// `DTSTART;TZID=Europe/Berlin:20261203T140000` (a time in its event's zone, as `export` writes
    /// it: UTC for `UTC` or a zone that is no IANA name) / `DTSTART;VALUE=DATE:20261203` /
    /// `DTSTART:20261203T130000` (floating). A TZID needs its VTIMEZONE: `addingZones`.
    public static func dateLine(_ name: String, _ start: EventStart, zone: String = "UTC") -> String {
        switch start {
        case .instant(let date):
            zone != "UTC" && TimeZone(identifier: zone) != nil
                ? ICalWriter.dateProperty(name, .zoned(date, tzid: zone)) : "\(name):\(utc(date))"
        case .allDay(let day): "\(name);VALUE=DATE:" + String(format: "%04d%02d%02d", day.year, day.month, day.day)
        case .floating(let time): "\(name):" + floating(time)
        }
    }

    /// `20261204T120000`: a floating time (RFC 5545 §3.3.5 form 1, no TZID and no Z), as `export` writes it.
    static func floating(_ time: FloatingTime) -> String {
        String(format: "%04d%02d%02dT%02d%02d%02d", time.date.year, time.date.month, time.date.day, time.hour, time.minute, time.second)
    }

    /// `20261203T130000Z`.
    public static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// `NAME:escaped text`.
    public static func textLine(_ name: String, _ text: String) -> String { "\(name):\(ICalWriter.escape(text))" }
}
