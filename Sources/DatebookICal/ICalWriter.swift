import CICal
import Foundation

/// Writes events and todos as an RFC 5545 calendar (CRLF, folded at 75 octets, TEXT escaped).
///
/// Zoned times are written as `TZID=<IANA name>` with local wall-clock time, and each zone used
/// gets a VTIMEZONE taken from libical's built-in zone data (with its TZID set to the plain IANA
/// name), so strict readers are satisfied and the DST rules travel with the file.
public enum ICalWriter {
    /// The calendar text. `dtstamp` fills the required DTSTAMP (pass "now"; it is an argument so
    /// output is reproducible).
    public static func write(events: [ICalEvent], todos: [ICalTodo], prodID: String,
                             dtstamp: Date = Date(timeIntervalSince1970: 0)) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(escape(prodID))", "CALSCALE:GREGORIAN"]
        var zones: [String] = []
        func note(_ value: ICalDateValue?) {
            if case let .zoned(_, tzid)? = value, !zones.contains(tzid) { zones.append(tzid) }
        }
        for event in events {
            note(event.start); note(event.end); note(event.recurrenceID)
            event.rdates.forEach(note); event.exdates.forEach(note)
        }
        todos.forEach { note($0.due) }
        for tzid in zones { lines += ICalTimeZoneExport.vtimezone(tzid) }
        let stamp = "DTSTAMP:" + ICalFormat.utc(dtstamp)
        for event in events { lines += eventLines(event, stamp: stamp) }
        for todo in todos {
            lines += ["BEGIN:VTODO", "UID:\(escape(todo.uid))", stamp]
            if let summary = todo.summary { lines.append("SUMMARY:\(escape(summary))") }
            let keepRaw = todo.rawStatus.map { ICalTaskStatus(icalStatus: $0) == todo.status } ?? false
            lines.append("STATUS:" + (keepRaw ? (todo.rawStatus ?? todo.status.icalStatus) : todo.status.icalStatus))
            if let related = todo.relatedTo { lines.append("RELATED-TO:\(escape(related))") }
            if let due = todo.due { lines.append(property("DUE", due)) }
            lines.append("END:VTODO")
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    private static func eventLines(_ event: ICalEvent, stamp: String) -> [String] {
        var lines = ["BEGIN:VEVENT", "UID:\(escape(event.uid))", stamp, property("DTSTART", event.start)]
        if let end = event.end { lines.append(property("DTEND", end)) }
        if let recurrenceID = event.recurrenceID { lines.append(property("RECURRENCE-ID", recurrenceID)) }
        if let summary = event.summary { lines.append("SUMMARY:\(escape(summary))") }
        if let description = event.description { lines.append("DESCRIPTION:\(escape(description))") }
        if let location = event.location { lines.append("LOCATION:\(escape(location))") }
        if let url = event.url { lines.append("URL:\(url)") }
        if let status = event.status { lines.append("STATUS:\(status)") }
        if let color = event.color { lines.append("COLOR:\(escape(color))") }
        if let symbol = event.symbol { lines.append(ICalEvent.symbolProperty + ":\(escape(symbol))") }
        if let zone = event.timeZoneName { lines.append(ICalEvent.timeZoneProperty + ":\(escape(zone))") }
        if let rrule = event.rrule { lines.append("RRULE:\(rrule)") }
        lines += event.rdates.map { property("RDATE", $0) }
        lines += event.exdates.map { property("EXDATE", $0) }
        for lead in event.alarms {
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(escape(event.summary ?? "Reminder"))",
                      "TRIGGER:\(ICalFormat.trigger(leadSeconds: lead))", "END:VALARM"]
        }
        lines.append("END:VEVENT")
        return lines
    }

    /// `NAME;params:value` for a date value.
    static func property(_ name: String, _ value: ICalDateValue) -> String {
        switch value {
        case let .date(year, month, day):
            return "\(name);VALUE=DATE:" + ICalFormat.date(year, month, day)
        case let .zoned(instant, tzid):
            let zone = TimeZone(identifier: tzid) ?? TimeZone(secondsFromGMT: 0) ?? .current
            return "\(name);TZID=\(quoteParameter(tzid)):" + ICalFormat.local(.of(instant, in: zone))
        case let .utc(instant):
            return "\(name):" + ICalFormat.utc(instant)
        case let .floating(local):
            return "\(name):" + ICalFormat.local(local)
        }
    }

    /// TEXT escaping (RFC 5545 3.3.11): backslash, semicolon, comma, newline.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func quoteParameter(_ value: String) -> String {
        value.contains(where: { ":;,".contains($0) }) ? "\"\(value.replacingOccurrences(of: "\"", with: ""))\"" : value
    }

    /// Folds one content line at 75 octets, never inside a UTF-8 sequence.
    public static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 37)
        var index = 0
        var limit = 75
        while index < bytes.count {
            var end = min(bytes.count, index + limit)
            while end < bytes.count, end > index + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if index > 0 { out += [0x0D, 0x0A, 0x20] }
            out += bytes[index..<end]
            index = end
            limit = 74
        }
        return String(decoding: out, as: UTF8.self)
    }
}
