import Foundation

/// One top-level component of a VCALENDAR, located by byte range and line number.
struct ICalChunk: Sendable, Equatable {
    /// Upper-cased component name (`VEVENT`, `VTODO`, `VTIMEZONE`, …).
    var name: String
    /// 1-based line of the `BEGIN:` line.
    var line: Int
    /// Byte range from `BEGIN:` through the end of the `END:` line.
    var range: Range<Int>
    /// Lines inside `range` that the readers must leave out: stray `END:` lines (a second
    /// `END:DAYLIGHT` in Thunderbird's files). Empty for nearly every component.
    var skipped: [Range<Int>] = []
}

/// Splits an iCalendar byte buffer into top-level components in one linear pass.
///
/// Why not hand the whole file to libical: `icalparser_parse_string` builds the full tree
/// (hundreds of MB for 100k events), reports no line numbers, and one broken component can
/// derail its neighbours. Scanning `BEGIN:`/`END:` lines ourselves gives line numbers for
/// warnings, lets each component be parsed and freed on its own (bounded memory), and isolates
/// failures. Continuation lines start with a space or tab, so a line that starts with `BEGIN:`
/// is always a real component boundary.
///
/// The scan is lenient where calendar programs are, and says so: an `END:` that closes nothing
/// open is left out, a component after `END:VCALENDAR` and the components of a nested
/// `BEGIN:VCALENDAR` are read as the calendar's own, each with a warning (`repairs`). An `END:`
/// naming a component further out closes the ones inside it, which are reported unterminated.
struct ICalChunkScanner {
    struct Result: Sendable {
        var chunks: [ICalChunk] = []
        /// Components opened but never closed: (name, line).
        var unterminated: [(String, Int)] = []
        /// What the scan read past, with the line it is about: (line, warning).
        var repairs: [(Int, String)] = []
    }

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Result {
        var scan = Resumable(bytes, from: start)
        var chunks: [ICalChunk] = []
        while let chunk = scan.next(keeping: { _ in true }) { chunks.append(chunk) }
        var result = scan.result
        result.chunks = chunks
        return result
    }

    /// The same scan one component at a time, so a large file's components need not all be listed
    /// at once (`ICalParser.BatchReader`): `result` gathers the repairs and unterminated components
    /// met so far; its `chunks` stay empty.
    struct Resumable: Sendable {
        /// The bytes, by address (a pointer is not `Sendable`): they outlive the scan, unchanged.
        private let address: UInt
        private let count: Int
        var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: UnsafePointer(bitPattern: address), count: count) }
        private(set) var result = Result()
        /// Open components, outermost first; VCALENDARs only below `open`.
        private var stack: [String] = []
        /// The open top-level component: its position in `stack`, BEGIN line and offset, skipped lines.
        private var open: (depth: Int, name: String, line: Int, offset: Int, skipped: [Range<Int>])?
        private var calendarEnd: Int?
        /// Whether the components outside any VCALENDAR were warned about already.
        private var outside = false
        private var line = 1
        private var lineStart: Int
        private var finished = false

        /// Lines before `start` (a BOM has none) are not counted.
        init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) {
            address = UInt(bitPattern: bytes.baseAddress)
            count = bytes.count
            lineStart = start
        }

        /// Where the scan stands: every byte before it has been scanned.
        var offset: Int { lineStart }

        /// Whether every byte has been scanned.
        var atEnd: Bool { finished }

        /// The next top-level component whose name `keeping` accepts; nil at the end of the bytes, or
        /// once the scan has passed `limit` (then `atEnd` is false and the scan goes on from there).
        mutating func next(keeping: (String) -> Bool, until limit: Int = Int.max) -> ICalChunk? {
            let bytes = bytes
            while lineStart < count {
                if lineStart >= limit { return nil }
                // By memchr: this pass is serial, before the parse workers start.
                let lineEnd = ICalBytes.first(0x0A, in: bytes, from: lineStart, to: count)  // position of LF or count
                let next = min(count, lineEnd + 1)
                var found: ICalChunk?
                if let (isBegin, name) = ICalChunkScanner.boundary(bytes, lineStart, lineEnd) {
                    found = step(isBegin: isBegin, name: name, next: next)
                }
                line += 1
                lineStart = next
                if let found, keeping(found.name) { return found }
            }
            if !finished, let current = open { result.unterminated.append((current.name, current.line)) }
            finished = true
            return nil
        }

        /// Takes one `BEGIN:`/`END:` line; the component it closes, if any.
        private mutating func step(isBegin: Bool, name: String, next: Int) -> ICalChunk? {
            if isBegin {
                if open == nil {
                    if name == "VCALENDAR" {
                        if !stack.isEmpty {
                            result.repairs.append((line, "BEGIN:VCALENDAR inside another VCALENDAR; its components are read "
                                                   + "as the outer calendar's"))
                        }
                    } else {
                        if stack.isEmpty, !outside {
                            // Once per stretch outside: a calendar cut short by a stray END:VCALENDAR
                            // would otherwise warn about every component after it.
                            outside = true
                            let after = calendarEnd.map { "after END:VCALENDAR (line \($0))" } ?? "outside any VCALENDAR"
                            result.repairs.append((line, "BEGIN:\(name) \(after); it and the components after it "
                                                   + "are read as part of the calendar"))
                        }
                        open = (stack.count, name, line, lineStart, [])
                    }
                }
                if name == "VCALENDAR" { outside = false }
                stack.append(name)
                return nil
            }
            guard let depth = ICalChunkScanner.position(of: name, in: stack, open: open?.depth) else {
                let inside = open.map { " inside \($0.name)" } ?? ""
                result.repairs.append((line, "END:\(name)\(inside) closes no BEGIN:\(name); the line was ignored"))
                open?.skipped.append(lineStart..<next)
                return nil
            }
            var closed: ICalChunk?
            if let current = open, depth <= current.depth {
                if depth == current.depth {
                    for inner in stack[(depth + 1)...] {
                        result.repairs.append((current.line, "BEGIN:\(inner) inside \(name) has no END:\(inner); "
                                               + "closed by END:\(name)"))
                    }
                    closed = ICalChunk(name: name, line: current.line, range: current.offset..<next, skipped: current.skipped)
                } else {
                    result.unterminated.append((current.name, current.line))
                }
                open = nil
            }
            // One by one: nearly always one name, and `removeSubrange` cost ~150 instructions an END line.
            while stack.count > depth { stack.removeLast() }
            if name == "VCALENDAR", stack.isEmpty { calendarEnd = line }
            return closed
        }
    }

    /// Where the component an `END:name` closes sits in `stack`: among the innermost 64, or the open
    /// top-level component. Real calendars nest four deep; a file of 50,000 unclosed BEGINs and as many
    /// stray ENDs would otherwise search the whole stack on each END.
    static func position(of name: String, in stack: [String], open: Int?) -> Int? {
        let low = max(0, stack.count - 64)
        if let found = stack[low...].lastIndex(of: name) { return found }
        if let open, open < low, stack[open] == name { return open }
        return nil
    }

    /// Recognises `BEGIN:NAME` / `END:NAME` (case-insensitive, trailing CR/blanks ignored).
    static func boundary(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> (Bool, String)? {
        guard e > s else { return nil }
        let first = b[s] | 0x20
        guard first == UInt8(ascii: "b") || first == UInt8(ascii: "e") else { return nil }
        let isBegin = first == UInt8(ascii: "b")
        let keyword = isBegin ? beginKeyword : endKeyword
        guard e - s > keyword.count else { return nil }
        for (k, expected) in keyword.enumerated() where (b[s + k] | 0x20) != expected {
            return nil
        }
        var end = e
        while end > s + keyword.count, b[end - 1] == 0x0D || b[end - 1] == 0x20 || b[end - 1] == 0x09 {
            end -= 1
        }
        let nameBytes = UnsafeBufferPointer(rebasing: b[(s + keyword.count)..<end])
        // The common names without making and upper-casing a new string per line.
        return (isBegin, commonNames.match(nameBytes) ?? String(decoding: nameBytes, as: UTF8.self).uppercased())
    }

    private static let beginKeyword = Array("begin:".utf8), endKeyword = Array("end:".utf8)
    private static let commonNames = ICalBytes.Words(["VEVENT", "VTODO", "VALARM", "VCALENDAR", "VTIMEZONE", "STANDARD",
                                                      "DAYLIGHT"].map { ($0, $0) })
}

extension ICalChunkScanner {
    /// Properties of VEVENT/VTODO (and their VALARMs) that the reader uses; libical never sees the
    /// others (ATTENDEE lists, X- properties, DTSTAMP…), which roughly halves its work on real feeds.
    static let usedProperties: Set<String> = [
        "BEGIN", "END", "UID", "SUMMARY", "DESCRIPTION", "LOCATION", "URL", "DTSTART", "DTEND", "DURATION",
        "RDATE", "EXDATE", "RECURRENCE-ID", "STATUS", "TRIGGER", "RELATED-TO", "DUE", "PRIORITY", "ACTION", "EXRULE", "SEQUENCE",
        "COLOR", ICalEvent.symbolProperty, ICalEvent.timeZoneProperty,
    ]

    /// A component's own RRULE and EXRULE values, unfolded, exactly as written.
    struct Rules {
        var rrules: [String] = []
        var exrules: [String] = []
    }

    /// Copies the chunk's used lines (with their continuation lines) into `buffer` as a C string for
    /// libical, and returns the component's own RRULE and EXRULE values, unfolded, exactly as written:
    /// libical re-serialises rules and drops parts it rejects (`INTERVAL=0`), so the text comes from here.
    /// `skipping`: lines to leave out (``ICalChunk/skipped``).
    static func prepare(_ b: UnsafeBufferPointer<UInt8>, chunk: Range<Int>, skipping: [Range<Int>] = [],
                        into buffer: inout [UInt8]) -> Rules {
        buffer.removeAll(keepingCapacity: true)
        var rules = Rules()
        var depth = 0
        var keeping = false
        var rule: [UInt8]?
        var exclusion = false
        func finish(_ done: [UInt8]) {
            if exclusion { rules.exrules.append(value(of: done)) } else { rules.rrules.append(value(of: done)) }
        }
        var lineStart = chunk.lowerBound
        while lineStart < chunk.upperBound {
            var end = lineStart
            while end < chunk.upperBound && b[end] != 0x0A { end += 1 }
            let next = min(chunk.upperBound, end + 1)
            if !skipping.isEmpty, skipping.contains(where: { $0.lowerBound == lineStart }) {
                lineStart = next
                continue
            }
            var contentEnd = end
            if contentEnd > lineStart, b[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let isContinuation = contentEnd > lineStart && (b[lineStart] == 0x20 || b[lineStart] == 0x09)
            if isContinuation {
                rule?.append(contentsOf: UnsafeBufferPointer(rebasing: b[(lineStart + 1)..<contentEnd]))
            } else {
                if let done = rule { finish(done) }
                rule = nil
                let name = propertyName(b, lineStart, contentEnd)
                if name == "BEGIN" { depth += 1 } else if name == "END" { depth -= 1 }
                keeping = usedProperties.contains(name)
                if name == "RRULE" || name == "EXRULE", depth == 1 {
                    rule = Array(UnsafeBufferPointer(rebasing: b[lineStart..<contentEnd]))
                    exclusion = name == "EXRULE"
                }
            }
            if keeping {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: b[lineStart..<next]))
            }
            lineStart = next
        }
        if let done = rule { finish(done) }
        buffer.append(0)
        return rules
    }

    /// The line number (counting the chunk's first line as 0) of the first property the reader
    /// uses whose value, unfolded, is not UTF-8; nil when there is none. libical's strings would
    /// carry such bytes into the planner as U+FFFD without a word. All-ASCII chunks answer at once.
    static func firstLineNotUTF8(_ b: UnsafeBufferPointer<UInt8>, chunk: Range<Int>) -> Int? {
        guard !ICalBytes.isASCII(UnsafeBufferPointer(rebasing: b[chunk])) else { return nil }
        var logical: [UInt8] = []
        var logicalLine = 0, line = 0
        var checking = false
        var found: Int?
        func check() {
            if checking, found == nil, !ICalBytes.isUTF8(logical.withUnsafeBufferPointer { $0 }) { found = logicalLine }
        }
        var lineStart = chunk.lowerBound
        while lineStart < chunk.upperBound, found == nil {
            let end = ICalBytes.first(0x0A, in: b, from: lineStart, to: chunk.upperBound)
            var contentEnd = end
            if contentEnd > lineStart, b[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            if contentEnd > lineStart, b[lineStart] == 0x20 || b[lineStart] == 0x09 {
                logical.append(contentsOf: UnsafeBufferPointer(rebasing: b[(lineStart + 1)..<contentEnd]))
            } else {
                check()
                logical.removeAll(keepingCapacity: true)
                logical.append(contentsOf: UnsafeBufferPointer(rebasing: b[lineStart..<contentEnd]))
                logicalLine = line
                checking = usedProperties.contains(propertyName(b, lineStart, contentEnd))
            }
            line += 1
            lineStart = end + 1
        }
        check()
        return found
    }

    /// The upper-cased property name (up to `;` or `:`); empty when longer than 15 bytes, so
    /// the common case stays an allocation-free small string.
    private static func propertyName(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> String {
        var end = s
        while end < e, b[end] != UInt8(ascii: ":"), b[end] != UInt8(ascii: ";") { end += 1 }
        // No property the reader uses has a longer name (X-DATEBOOK-TIMEZONE is the longest).
        guard end - s <= 19 else { return "" }
        var name = String(decoding: UnsafeBufferPointer(rebasing: b[s..<end]), as: UTF8.self)
        if name.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) { name = name.uppercased() }
        return name
    }

    /// The text after the first colon outside a quoted parameter value.
    private static func value(of line: [UInt8]) -> String {
        var quoted = false
        for (index, byte) in line.enumerated() {
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ":") && !quoted {
                return String(decoding: line[(index + 1)...], as: UTF8.self)
            }
        }
        return ""
    }
}
