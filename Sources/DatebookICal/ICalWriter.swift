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
        var zones: [String] = []
        func note(_ value: ICalDateValue?) {
            if case let .zoned(_, tzid)? = value, !zones.contains(tzid) { zones.append(tzid) }
        }
        for event in events {
            note(event.start); note(event.end); note(event.recurrenceID)
            event.rdates.forEach(note); event.exdates.forEach(note)
        }
        todos.forEach { note($0.due) }
        var stream = ICalStreamWriter(prodID: prodID, dtstamp: dtstamp, zones: zones)
        events.forEach { stream.event($0) }
        todos.forEach { stream.todo($0) }
        stream.end()
        return String(decoding: stream.take(), as: UTF8.self)
    }

    static func eventLines(_ event: ICalEvent, stamp: String, into out: inout ICalLines) {
        out.line("BEGIN:VEVENT")
        out.text("UID", event.uid)
        out.line(stamp)
        out.date("DTSTART", event.start)
        if let end = event.end { out.date("DTEND", end) }
        if let recurrenceID = event.recurrenceID {
            out.date(event.thisAndFuture ? "RECURRENCE-ID;RANGE=THISANDFUTURE" : "RECURRENCE-ID", recurrenceID)
        }
        if let summary = event.summary { out.text("SUMMARY", summary) }
        if let description = event.description { out.text("DESCRIPTION", description) }
        if let location = event.location { out.text("LOCATION", location) }
        if let url = event.url { out.line("URL:" + url) }
        if let status = event.status { out.line("STATUS:" + status) }
        if let color = event.color { out.text("COLOR", color) }
        if let symbol = event.symbol { out.text(ICalEvent.symbolProperty, symbol) }
        if let zone = event.timeZoneName { out.text(ICalEvent.timeZoneProperty, zone) }
        if let rrule = event.rrule { out.line("RRULE:" + rrule) }
        for rdate in event.rdates { out.date("RDATE", rdate) }
        for exdate in event.exdates { out.date("EXDATE", exdate) }
        for exrule in event.exrules { out.line("EXRULE:" + exrule) }
        for alarm in event.alarms {
            out.line("BEGIN:VALARM")
            out.line("ACTION:DISPLAY")
            out.text("DESCRIPTION", event.summary ?? "Reminder")
            out.line(alarm.triggerLine)
            out.line("END:VALARM")
        }
        out.line("END:VEVENT")
    }

    static func todoLines(_ todo: ICalTodo, stamp: String, into out: inout ICalLines) {
        out.line("BEGIN:VTODO")
        out.text("UID", todo.uid)
        out.line(stamp)
        if let summary = todo.summary { out.text("SUMMARY", summary) }
        let keepRaw = todo.rawStatus.map { ICalTaskStatus(icalStatus: $0) == todo.status } ?? false
        out.line("STATUS:" + (keepRaw ? (todo.rawStatus ?? todo.status.icalStatus) : todo.status.icalStatus))
        if let related = todo.relatedTo { out.text("RELATED-TO", related) }
        if let due = todo.due { out.date("DUE", due) }
        if todo.priority > 0 { out.line("PRIORITY:\(todo.priority)") }
        if let color = todo.color { out.text("COLOR", color) }
        if let symbol = todo.symbol { out.text(ICalEvent.symbolProperty, symbol) }
        out.line("END:VTODO")
    }

    /// `NAME;params:value` for a date value, as the writer puts it in a VEVENT (a zoned time as
    /// `TZID=…` and its wall clock, in UTC in the hour a DST change repeats): for patching a text.
    public static func dateProperty(_ name: String, _ value: ICalDateValue) -> String {
        var zones: [String: TimeZone] = [:]
        return property(name, value, zones: &zones)
    }

    /// The VTIMEZONE lines the writer puts in for `tzid` (an IANA name; none when libical has no such zone).
    public static func vtimezone(_ tzid: String) -> [String] { ICalTimeZoneExport.vtimezone(tzid) }

    /// `NAME;params:value` for a date value; `zones` keeps the zones already looked up.
    static func property(_ name: String, _ value: ICalDateValue, zones: inout [String: TimeZone]) -> String {
        switch value {
        case let .date(year, month, day):
            return "\(name);VALUE=DATE:" + ICalFormat.date(year, month, day)
        case let .zoned(instant, tzid):
            let zone = zones[tzid] ?? TimeZone(identifier: tzid) ?? TimeZone(secondsFromGMT: 0) ?? .current
            zones[tzid] = zone
            let local = ICalLocalDateTime.of(instant, in: zone)
            guard readsBack(instant, as: local, in: zone) else { return "\(name):" + ICalFormat.utc(instant) }
            return "\(name);TZID=\(quoteParameter(tzid)):" + ICalFormat.local(local)
        case let .utc(instant):
            return "\(name):" + ICalFormat.utc(instant)
        case let .floating(local):
            return "\(name):" + ICalFormat.local(local)
        }
    }

    /// Whether `instant`, written as its wall-clock time in `zone`, is read back as itself. A wall
    /// time in the hour a DST change repeats names two instants and the reader takes the first, so
    /// the second (02:15 CET after 02:15 CEST) is written in UTC instead.
    public static func readsBack(_ instant: Date, in zone: TimeZone) -> Bool {
        readsBack(instant, as: .of(instant, in: zone), in: zone)
    }

    static func readsBack(_ instant: Date, as local: ICalLocalDateTime, in zone: TimeZone) -> Bool {
        local.instant(in: zone).timeIntervalSince1970 == instant.timeIntervalSince1970.rounded(.down)
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
        var out: [UInt8] = []
        fold(line, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `line` folded (without its line end) to `out`.
    static func fold(_ line: String, into out: inout [UInt8]) {
        var line = line
        line.withUTF8 { fold($0, into: &out) }
    }

    static func fold(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard bytes.count > 75 else { return out.append(contentsOf: bytes) }
        var index = 0
        var limit = 75
        while index < bytes.count {
            var end = min(bytes.count, index + limit)
            while end < bytes.count, end > index + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if index > 0 { out.append(contentsOf: [0x0D, 0x0A, 0x20]) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
            index = end
            limit = 74
        }
    }
}

/// Content lines on their way out: folded, CRLF-terminated UTF-8, and the zones looked up so far.
///
/// A line is put together as bytes (TEXT escaped byte by byte, which is safe in UTF-8: every
/// character escaped is ASCII) and folded once; building each line as a String and escaping it
/// scalar by scalar was the larger part of exporting 100k events.
struct ICalLines {
    var bytes: [UInt8] = []
    var zones: [String: TimeZone] = [:]
    private var pending: [UInt8] = []

    /// A line written as given.
    mutating func line(_ text: String) {
        var text = text
        text.withUTF8 { pending.append(contentsOf: $0) }
        end()
    }

    /// `NAME:value` with the value TEXT-escaped (RFC 5545 3.3.11).
    mutating func text(_ name: String, _ value: String) {
        var name = name, value = value
        name.withUTF8 { pending.append(contentsOf: $0) }
        pending.append(UInt8(ascii: ":"))
        value.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\\"), UInt8(ascii: ";"), UInt8(ascii: ","):
                    pending.append(UInt8(ascii: "\\"))
                    pending.append(byte)
                case 0x0A:
                    pending.append(UInt8(ascii: "\\"))
                    pending.append(UInt8(ascii: "n"))
                case 0x0D:
                    continue
                default:
                    pending.append(byte)
                }
            }
        }
        end()
    }

    /// A date property (`ICalWriter.property`).
    mutating func date(_ name: String, _ value: ICalDateValue) {
        line(ICalWriter.property(name, value, zones: &zones))
    }

    /// Folds the pending line into `bytes` with its CRLF.
    private mutating func end() {
        pending.withUnsafeBufferPointer { ICalWriter.fold($0, into: &bytes) }
        bytes.append(contentsOf: [0x0D, 0x0A])
        pending.removeAll(keepingCapacity: true)
    }
}

/// Writes a calendar piece by piece, so a large planner is never held as text at once: the
/// header and the VTIMEZONEs of `zones` first, then events and todos in any order, then `end()`.
/// `take()` hands over the bytes written so far (call it every few hundred components).
///
/// `export --format ics` of 100k events (300k tasks) took 5.2 s and 656 MB built as one string;
/// streamed through this writer it is measured in `bench/results.md`.
public struct ICalStreamWriter {
    private var out = ICalLines()
    private let stamp: String

    public init(prodID: String, dtstamp: Date, zones: [String]) {
        stamp = "DTSTAMP:" + ICalFormat.utc(dtstamp)
        for line in ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:" + ICalWriter.escape(prodID), "CALSCALE:GREGORIAN"] {
            out.line(line)
        }
        for tzid in zones {
            for line in ICalTimeZoneExport.vtimezone(tzid) { out.line(line) }
        }
    }

    public mutating func event(_ event: ICalEvent) { ICalWriter.eventLines(event, stamp: stamp, into: &out) }

    public mutating func todo(_ todo: ICalTodo) { ICalWriter.todoLines(todo, stamp: stamp, into: &out) }

    public mutating func end() { out.line("END:VCALENDAR") }

    /// How many bytes are waiting to be taken.
    public var pending: Int { out.bytes.count }

    /// The bytes written since the last `take()`.
    public mutating func take() -> [UInt8] {
        defer { out.bytes.removeAll(keepingCapacity: true) }
        return out.bytes
    }
}
