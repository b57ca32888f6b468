import DatebookCore
import DatebookICal
import Foundation

/// Changes a few properties of a server's iCalendar text and leaves every other line as it was,
/// byte for byte (X- properties, attendees, categories, other VALARMs, the VTIMEZONEs).
///
/// Only the first `VEVENT`/`VTODO` without a RECURRENCE-ID is touched, and only its own lines
/// (not those of its VALARMs).
public enum ICalPatch {
    /// One property line to set (`line` nil: remove the property).
    public struct Change: Sendable, Equatable {
        public var name: String
        public var line: String?
        public init(_ name: String, _ line: String?) {
            self.name = name
            self.line = line
        }
    }

    /// `text` with each change applied: the first line of that name replaced (its repeats removed),
    /// or added before the component's END when it had none.
    public static func apply(_ changes: [Change], to text: String, component: String) -> String {
        let separator = text.contains("\r\n") ? "\r\n" : "\n"
        let lines = logicalLines(text, separator: separator)
        guard let range = target(in: lines, component: component) else { return text }
        func folded(_ line: String) -> String {
            ICalWriter.fold(line).replacingOccurrences(of: "\r\n", with: separator)
        }
        var out: [String] = []
        var done = Set<String>()
        var depth = 0
        for (index, line) in lines.enumerated() {
            if index == range.upperBound {
                for change in changes where !done.contains(change.name) {
                    if let new = change.line { out.append(folded(new)) }
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
                if !done.contains(name), let new = change.line { out.append(folded(new)) }
                done.insert(name)
                continue
            }
            out.append(line)
        }
        return out.joined(separator: separator) + (text.hasSuffix("\n") || text.hasSuffix("\r\n") ? separator : "")
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

    /// Indexes of the target component's BEGIN … END lines.
    static func target(in lines: [String], component: String) -> ClosedRange<Int>? {
        var start: Int?
        var depth = 0
        var recurrence = false
        for (index, line) in lines.enumerated() {
            let name = propertyName(line)
            if let begin = start {
                if name == "BEGIN" { depth += 1 }
                if name == "END" {
                    if depth == 0 {
                        if !recurrence { return begin...index }
                        start = nil
                        continue
                    }
                    depth -= 1
                }
                if depth == 0, name == "RECURRENCE-ID" { recurrence = true }
            } else if name == "BEGIN", line.uppercased().hasSuffix(":" + component) {
                start = index
                depth = 0
                recurrence = false
            }
        }
        return nil
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

    /// `DTSTART:20261203T130000Z` / `DTSTART;VALUE=DATE:20261203`; nil for a floating time (kept as it was).
    public static func dateLine(_ name: String, _ start: EventStart) -> String? {
        switch start {
        case .instant(let date): "\(name):\(utc(date))"
        case .allDay(let day): "\(name);VALUE=DATE:" + String(format: "%04d%02d%02d", day.year, day.month, day.day)
        case .floating: nil
        }
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
