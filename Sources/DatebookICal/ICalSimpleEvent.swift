import CICal
import Foundation

/// Reads the common, plain VEVENT without building a libical component tree.
///
/// libical's component parser costs about 70,000 instructions for a ten-line VEVENT with two
/// alarms: it looks every property and parameter name up by `strcasecmp` over its tables and builds
/// a tree that is read once and freed. A plain VEVENT is split into lines here instead, and its
/// values still go through libical's own value parsers (`icaltime_from_string`,
/// `icaldurationtype_from_string`) and the reader the libical path uses, so times, zones, durations
/// and alarm leads come out the same.
///
/// "Plain" means: no folded or escaped-beyond-TEXT values in the properties read, no RDATE, EXDATE,
/// RECURRENCE-ID, no parameters but `TZID=`/`VALUE=DATE` on DTSTART/DTEND and `RELATED=` on
/// TRIGGER, no nested component but VALARMs with a duration TRIGGER, each property at most once.
/// Anything else returns nil and takes the libical path with its warnings; properties the reader
/// never uses are skipped exactly as ``ICalChunkScanner/prepare(_:chunk:into:)`` skips them.
/// `ICalSimpleEventTests` parses every fixture both ways and compares.
enum ICalSimpleEvent {
    struct Read {
        var event: ICalEvent
        /// Warnings about the event (an unknown TZID), for the caller to give with file, line and UID.
        var warnings: [String]
    }

    private enum Name: String, CaseIterable {
        case begin = "BEGIN", end = "END", uid = "UID", summary = "SUMMARY", description = "DESCRIPTION"
        case location = "LOCATION", url = "URL", status = "STATUS", dtstart = "DTSTART", dtend = "DTEND"
        case duration = "DURATION", rrule = "RRULE", trigger = "TRIGGER", action = "ACTION", sequence = "SEQUENCE"
        case color = "COLOR", symbol = "X-DATEBOOK-SYMBOL", zone = "X-DATEBOOK-TIMEZONE"

        /// A small index for `Lines` (an enum with String raw values has no integer of its own).
        var slot: Int {
            switch self {
            case .begin: 0
            case .end: 1
            case .uid: 2
            case .summary: 3
            case .description: 4
            case .location: 5
            case .url: 6
            case .status: 7
            case .dtstart: 8
            case .dtend: 9
            case .duration: 10
            case .rrule: 11
            case .trigger: 12
            case .action: 13
            case .sequence: 14
            case .color: 15
            case .symbol: 16
            case .zone: 17
            }
        }
    }

    private static let names = ICalBytes.Words(Name.allCases.map { ($0.rawValue, $0) })
    /// The reader's other properties: their presence needs libical.
    private static let otherUsed: [[UInt8]] = ICalChunkScanner.usedProperties
        .filter { Name(rawValue: $0) == nil }.map { Array($0.utf8) }
    private static let vevent = Array("VEVENT".utf8), valarm = Array("VALARM".utf8)
    private static let statuses = ["TENTATIVE", "CONFIRMED", "CANCELLED"].map { Array($0.utf8) }

    /// The raw lines of the properties read, as byte ranges of the file.
    private struct Lines {
        /// Value ranges by property, indexed by `Name.slot` (a dictionary cost more than the lines).
        var values = [Range<Int>?](repeating: nil, count: Name.allCases.count)
        subscript(_ name: Name) -> Range<Int>? {
            get { values[name.slot] }
            set { values[name.slot] = newValue }
        }
        var start: (params: Range<Int>, value: Range<Int>)?
        var end: (params: Range<Int>, value: Range<Int>)?
        var triggers: [(params: Range<Int>, value: Range<Int>)] = []
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, chunk: ICalChunk, reader: ICalComponentReader) -> Read? {
        guard let lines = split(bytes, chunk.range) else { return nil }
        var scratch = [CChar]()
        var warnings = ICalComponentReader.Warnings()
        var plain = true
        /// The property's value, nil when absent or empty; `plain` turns false when it needs libical.
        func text(_ name: Name) -> String? {
            guard let range = lines[name] else { return nil }
            let value = UnsafeBufferPointer(rebasing: bytes[range])
            switch name {
            case .summary, .description, .location:
                guard !value.isEmpty, let text = textValue(value) else { plain = false; return nil }
                return text
            case .status:
                // libical knows these; it upper-cases them, and anything else is an X-value.
                guard statuses.contains(where: { $0.elementsEqual(value) }) else { plain = false; return nil }
                return String(decoding: value, as: UTF8.self)
            default:
                // UID, URL, RRULE, COLOR and the X-DATEBOOK- values are taken as written: no escapes, ASCII, not empty.
                guard !value.isEmpty, value.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) else { plain = false; return nil }
                return String(decoding: value, as: UTF8.self)
            }
        }
        let uid = text(.uid), summary = text(.summary), description = text(.description), location = text(.location)
        let url = text(.url), rrule = text(.rrule), status = text(.status), color = text(.color), symbol = text(.symbol)
        let zone = text(.zone)
        var sequence = 0
        if let range = lines[.sequence] {
            // A plain non-negative integer; anything else is libical's to judge.
            let value = UnsafeBufferPointer(rebasing: bytes[range])
            guard (1...9).contains(value.count), value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(String(decoding: value, as: UTF8.self)) else { return nil }
            sequence = number
        }
        guard plain, let uid, let startLine = lines.start,
              let start = date(bytes, startLine, reader: reader, scratch: &scratch, warnings: &warnings) else { return nil }
        var end: ICalDateValue?
        if let endLine = lines.end {
            guard lines[.duration] == nil,
                  let value = date(bytes, endLine, reader: reader, scratch: &scratch, warnings: &warnings) else { return nil }
            end = value
        } else if let range = lines[.duration] {
            // An end outside the representable range takes the libical path, which refuses it with a warning.
            guard let duration = duration(bytes, range, scratch: &scratch),
                  let value = ICalComponentReader.add(duration, to: start, defaultTimeZone: reader.defaultTimeZone) else { return nil }
            end = value
        }
        var alarms: [ICalAlarm] = []
        if !lines.triggers.isEmpty {
            let length = reader.length(start: start, end: end)
            for trigger in lines.triggers {
                let related = UnsafeBufferPointer(rebasing: bytes[trigger.params])
                let toEnd: Bool
                if related.isEmpty { toEnd = false }
                else if related.elementsEqual(";RELATED=END".utf8) { toEnd = true }
                else if related.elementsEqual(";RELATED=START".utf8) { toEnd = false }
                else { return nil }
                guard let duration = duration(bytes, trigger.value, scratch: &scratch) else { return nil }
                let alarm = ICalComponentReader.alarm(duration, relatedToEnd: toEnd)
                guard ICalComponentReader.isKept(alarm, start: start.resolve(in: reader.defaultTimeZone), length: length) else { return nil }
                alarms.append(alarm)
            }
        }
        let event = ICalEvent(uid: uid, summary: summary, description: description, location: location, url: url,
                              start: start, end: end, rrule: rrule, alarms: alarms, sourceLine: chunk.line,
                              status: status, sequence: sequence, color: color, symbol: symbol, timeZoneName: zone)
        return Read(event: event, warnings: warnings.messages)
    }

    /// The chunk's lines sorted by property, or nil when it is not plain.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Lines? {
        var lines = Lines()
        var depth = 0
        var alarmHasTrigger = false
        var skipping = false
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            let lineEnd = ICalBytes.first(0x0A, in: bytes, from: lineStart, to: range.upperBound)
            var contentEnd = lineEnd
            if contentEnd > lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { lineStart = lineEnd + 1 }
            guard contentEnd > lineStart else { skipping = false; continue }
            if bytes[lineStart] == 0x20 || bytes[lineStart] == 0x09 {
                // Continues the line before: fine for a skipped property, libical's job otherwise.
                if skipping { continue }
                return nil
            }
            var nameEnd = lineStart
            while nameEnd < contentEnd, bytes[nameEnd] != UInt8(ascii: ":"), bytes[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[lineStart..<nameEnd])
            guard let name = names.match(nameBytes) else {
                if otherUsed.contains(where: { ICalBytes.equalsIgnoringCase(nameBytes, $0) }) { return nil }
                skipping = true
                continue
            }
            skipping = false
            // Parameters run to the first colon; a quoted one (which may hold a colon) is libical's.
            var colon = nameEnd
            while colon < contentEnd, bytes[colon] != UInt8(ascii: ":") {
                if bytes[colon] == UInt8(ascii: "\"") { return nil }
                colon += 1
            }
            guard colon < contentEnd else { return nil }
            let params = nameEnd..<colon
            let value = min(colon + 1, contentEnd)..<contentEnd
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[value])
            switch (name, depth) {
            case (.begin, 0), (.begin, 1), (.end, 1), (.end, 2):
                guard params.isEmpty else { return nil }
                let expected = depth == 0 || name == .end && depth == 1 ? vevent : valarm
                guard ICalBytes.equalsIgnoringCase(valueBytes, expected) else { return nil }
                if name == .begin {
                    depth += 1
                    alarmHasTrigger = false
                } else {
                    if depth == 2, !alarmHasTrigger { return nil }
                    depth -= 1
                    if depth == 0, lineEnd + 1 < range.upperBound { return nil }
                }
            case (.trigger, 2):
                guard !alarmHasTrigger else { return nil }
                alarmHasTrigger = true
                lines.triggers.append((params, value))
            case (_, 2):
                // The reader reads nothing else of an alarm; RRULE here is not the event's.
                guard name != .begin, name != .end else { return nil }
            case (.dtstart, 1), (.dtend, 1):
                guard (name == .dtstart ? lines.start : lines.end) == nil else { return nil }
                if name == .dtstart { lines.start = (params, value) } else { lines.end = (params, value) }
            case (.uid, 1), (.summary, 1), (.description, 1), (.location, 1), (.url, 1), (.status, 1), (.duration, 1), (.rrule, 1),
                 (.sequence, 1), (.color, 1), (.symbol, 1), (.zone, 1):
                guard params.isEmpty, lines[name] == nil else { return nil }
                lines[name] = value
            default:
                return nil
            }
        }
        return depth == 0 && lines[.uid] != nil ? lines : nil
    }

    /// A DTSTART/DTEND: `TZID=` or `VALUE=DATE` (with an 8-digit date) and nothing else.
    private static func date(_ bytes: UnsafeBufferPointer<UInt8>, _ line: (params: Range<Int>, value: Range<Int>),
                             reader: ICalComponentReader, scratch: inout [CChar],
                             warnings: inout ICalComponentReader.Warnings) -> ICalDateValue? {
        let params = UnsafeBufferPointer(rebasing: bytes[line.params])
        let value = UnsafeBufferPointer(rebasing: bytes[line.value])
        var tzid: String?
        if params.isEmpty {
            guard value.count == 15 || value.count == 16 else { return nil }
        } else if params.elementsEqual(";VALUE=DATE".utf8) {
            guard value.count == 8 else { return nil }
        } else {
            let prefix = Array(";TZID=".utf8)
            guard params.count > prefix.count, params.starts(with: prefix), value.count == 15,
                  !params.dropFirst(prefix.count).contains(where: { $0 == UInt8(ascii: ";") || $0 >= 0x80 }) else { return nil }
            tzid = String(decoding: params.dropFirst(prefix.count), as: UTF8.self)
        }
        guard value.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "Z") }) else { return nil }
        guard let time = Self.time(value) ?? cString(value, &scratch, { icaltime_from_string($0) }),
              (time.is_date != 0) == (value.count == 8), (1...12).contains(time.month), (1...31).contains(time.day),
              time.hour < 24, time.minute < 60, time.second < 60 else { return nil }
        return reader.dateValue(time, tzid: tzid, warnings: &warnings)
    }

    /// What `icaltime_from_string` makes of `YYYYMMDD`, `YYYYMMDDTHHMMSS` and `YYYYMMDDTHHMMSSZ`, read
    /// here: its `sscanf` calls were half of a plain VEVENT's DTSTART. Nil for any other text, which
    /// libical reads (`ICalSimpleEventTests` compares the two).
    static func time(_ value: UnsafeBufferPointer<UInt8>) -> icaltimetype? {
        func number(_ range: Range<Int>) -> Int32? {
            var number: Int32 = 0
            for index in range {
                let digit = value[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                number = number * 10 + Int32(digit)
            }
            return number
        }
        guard value.count == 8 || value.count == 15 || value.count == 16,
              let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        var time = icaltimetype()
        (time.year, time.month, time.day) = (year, month, day)
        if value.count == 8 {
            time.is_date = 1
            return time
        }
        guard value[8] == UInt8(ascii: "T"), let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15)
        else { return nil }
        (time.hour, time.minute, time.second) = (hour, minute, second)
        if value.count == 16 {
            guard value[15] == UInt8(ascii: "Z") else { return nil }
            time.zone = icaltimezone_get_utc_timezone()
        }
        return time
    }

    /// A DURATION or TRIGGER value; nil when libical calls it bad.
    private static func duration(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scratch: inout [CChar]) -> icaldurationtype? {
        let value = UnsafeBufferPointer(rebasing: bytes[range])
        guard !value.isEmpty, ICalBytes.isASCII(value) else { return nil }
        guard let duration = Self.duration(value) ?? cString(value, &scratch, { icaldurationtype_from_string($0) }) else { return nil }
        return icaldurationtype_is_bad_duration(duration) == 0 ? duration : nil
    }

    /// What `icaldurationtype_from_string` makes of a duration as RFC 5545 writes one (`PT1H`,
    /// `-P1D`, `P1DT2H30M`, `P2W`: units in order, each once, up to six digits), read here: its
    /// `sscanf` per number was most of a VALARM's TRIGGER. Nil for any other text, which libical
    /// reads (`ICalSimpleEventTests` compares the two).
    static func duration(_ value: UnsafeBufferPointer<UInt8>) -> icaldurationtype? {
        var duration = icaldurationtype()
        var index = 0
        if value.first == UInt8(ascii: "-") {
            duration.is_neg = 1
            index = 1
        }
        guard index < value.count, value[index] == UInt8(ascii: "P") else { return nil }
        index += 1
        // The rank of the last unit read (D 0, H 1, M 2, S 3; W 4, which stands alone), so each comes
        // once and in order; `read`: a number read since P or T.
        var last = -1
        var inTime = false
        var read = false
        while index < value.count {
            if value[index] == UInt8(ascii: "T") {
                guard !inTime, last < 4 else { return nil }
                (inTime, read) = (true, false)
                index += 1
                continue
            }
            var number: UInt32 = 0
            let start = index
            // Seven digits at most, which the guard below refuses: the number cannot overflow.
            while index < value.count, index - start <= 6, case let digit = value[index] &- UInt8(ascii: "0"), digit < 10 {
                number = number * 10 + UInt32(digit)
                index += 1
            }
            guard index > start, index - start <= 6, index < value.count else { return nil }
            let rank: Int
            switch (value[index], inTime) {
            case (UInt8(ascii: "W"), false) where last == -1: (rank, duration.weeks) = (4, number)
            case (UInt8(ascii: "D"), false) where last == -1: (rank, duration.days) = (0, number)
            case (UInt8(ascii: "H"), true): (rank, duration.hours) = (1, number)
            case (UInt8(ascii: "M"), true): (rank, duration.minutes) = (2, number)
            case (UInt8(ascii: "S"), true): (rank, duration.seconds) = (3, number)
            default: return nil
            }
            guard rank > last else { return nil }
            (last, read) = (rank, true)
            index += 1
        }
        return read ? duration : nil
    }

    private static func cString<R>(_ value: UnsafeBufferPointer<UInt8>, _ scratch: inout [CChar],
                                   _ body: (UnsafePointer<CChar>) -> R) -> R? {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: value.lazy.map { CChar(bitPattern: $0) })
        scratch.append(0)
        return scratch.withUnsafeBufferPointer { $0.baseAddress.map(body) }
    }

    /// A TEXT value as libical's getters give it, escapes undone; nil when it needs libical (an
    /// escape TEXT does not define, bytes that are not UTF-8).
    private static func textValue(_ value: UnsafeBufferPointer<UInt8>) -> String? {
        let backslash = UInt8(ascii: "\\")
        if value.contains(backslash) {
            var index = 0
            while index < value.count {
                if value[index] == backslash {
                    guard index + 1 < value.count, [UInt8(ascii: ","), UInt8(ascii: ";"), backslash, UInt8(ascii: "n"),
                                                     UInt8(ascii: "N")].contains(value[index + 1]) else { return nil }
                    index += 1
                }
                index += 1
            }
        }
        return ICalBytes.text(value).map(ICalBytes.unescape)
    }
}
