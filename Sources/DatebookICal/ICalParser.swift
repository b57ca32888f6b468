import CICal
import DatebookCore
import Foundation

/// Reads iCalendar bytes into neutral events and todos.
///
/// The file is split into top-level components by ``ICalChunkScanner`` (line numbers, bounded
/// memory, isolation of broken components); each component is then parsed by libical on its own
/// and freed before the next. VTIMEZONEs are read first, wherever they sit in the file.
public enum ICalParser {
    /// Parses a whole file. Throws only when the bytes are not iCalendar at all; a broken
    /// component is skipped with a warning and the rest is imported.
    public static func parse(data: Data, fileName: String, defaultTimeZone: TimeZone) throws -> ICalDocument {
        try parse(data: data, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: nil)
    }

    /// `workers`: how many threads read components (nil: one per core for large files); `fastPaths`
    /// false sends every component through libical's parser (tests compare the two).
    static func parse(data: Data, fileName: String, defaultTimeZone: TimeZone, workers: Int?,
                      fastPaths: Bool = true) throws -> ICalDocument {
        var parts = try parseParts(data: data, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: workers,
                                   fastPaths: fastPaths)
        var document = parts.removeFirst()
        for part in parts {
            document.events += part.events
            document.todos += part.todos
            document.warnings += part.warnings
        }
        return document
    }

    /// Like `parse`, as consecutive parts in file order (one per worker), so a large file's
    /// components need not be copied into one document; the first part holds the file-level warnings.
    ///
    /// `consumed`, when given, is called from the workers with byte ranges of `data` that the
    /// parse will not read again, every few thousand components: a caller that owns the
    /// bytes and drops them afterwards can give those pages back while the parse still runs.
    public static func parseParts(data: Data, fileName: String, defaultTimeZone: TimeZone,
                                  workers: Int? = nil,
                                  consumed: (@Sendable (Range<Int>) -> Void)? = nil) throws -> [ICalDocument] {
        try parseParts(data: data, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: workers, fastPaths: true,
                       consumed: consumed)
    }

    /// The same over bytes the caller lends for the parse (`consumed` ranges count from their start).
    public static func parseParts(bytes: UnsafeRawBufferPointer, fileName: String, defaultTimeZone: TimeZone,
                                  workers: Int? = nil,
                                  consumed: (@Sendable (Range<Int>) -> Void)? = nil) throws -> [ICalDocument] {
        try parseParts(bytes: bytes, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: workers, fastPaths: true,
                       consumed: consumed)
    }

    /// `releaseBatch`: components read between two `consumed` calls.
    static func parseParts(data: Data, fileName: String, defaultTimeZone: TimeZone,
                           workers: Int?, fastPaths: Bool,
                           consumed: (@Sendable (Range<Int>) -> Void)? = nil, releaseBatch: Int = 4_096) throws -> [ICalDocument] {
        try data.withUnsafeBytes { raw in
            try parseParts(bytes: raw, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: workers, fastPaths: fastPaths,
                           consumed: consumed, releaseBatch: releaseBatch)
        }
    }

    static func parseParts(bytes raw: UnsafeRawBufferPointer, fileName: String, defaultTimeZone: TimeZone,
                           workers: Int?, fastPaths: Bool,
                           consumed: (@Sendable (Range<Int>) -> Void)? = nil, releaseBatch: Int = 4_096) throws -> [ICalDocument] {
        do {
            let bytes = raw.bindMemory(to: UInt8.self)
            // Old Mac files end lines with CR alone: read on a copy with each lone CR as a line break
            // (the same length, so `consumed` ranges stay the caller's).
            if ICalBytes.endsLinesWithCROnly(bytes) {
                let copy = ICalBytes.lineFeedsForLoneCarriageReturns(bytes)
                return try copy.withUnsafeBytes { copied in
                    try parseParts(bytes: copied, fileName: fileName, defaultTimeZone: defaultTimeZone, workers: workers,
                                   fastPaths: fastPaths, consumed: consumed, releaseBatch: releaseBatch)
                }
            }
            let start = ICalSniffer.contentStart(bytes)
            try ICalSniffer.check(bytes, start: start, fileName: fileName)
            let scan = ICalChunkScanner.scan(bytes, from: start)
            let opening = openingSession(bytes, start: start, fileName: fileName, defaultTimeZone: defaultTimeZone, fastPaths: fastPaths)
            var first = opening.session
            let floatingZone = opening.floatingZone
            first.warn(about: scan)
            for chunk in scan.chunks where chunk.name == "VTIMEZONE" { first.readTimeZone(chunk) }
            // Workers take slices of all chunks and skip what is not VEVENT/VTODO (no filtered copy).
            let items = scan.chunks
            let slices = Self.slices(items.count, workers: workers)
            guard slices.count > 1 else {
                first.read(items[...])
                return [first.document]
            }
            // Components are independent once the file's time zones are known: each worker reads a
            // contiguous slice with its own libical trees and zone resolver.
            let parts = IndexedResults<ICalDocument>(count: slices.count)
            let job = Job(address: UInt(bitPattern: bytes.baseAddress), count: bytes.count, fileName: fileName, defaultTimeZone: defaultTimeZone, floatingZone: floatingZone,
                          fastPaths: fastPaths,
                          zones: scan.chunks.filter { $0.name == "VTIMEZONE" }, items: items, consumed: consumed,
                          releaseBatch: releaseBatch)
            DispatchQueue.concurrentPerform(iterations: slices.count) { n in
                parts.set(n, job.read(slices[n]))
            }
            var documents = parts.values(missing: ICalDocument())
            documents[0].warnings = first.document.warnings + documents[0].warnings
            return documents
        }
    }

    /// The session that reads the file's VTIMEZONEs and gives its file-level warnings, X-WR-TIMEZONE's first;
    /// and the zone of the file's floating times.
    static func openingSession(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, fileName: String, defaultTimeZone: TimeZone,
                               fastPaths: Bool) -> (session: Session, floatingZone: TimeZone?) {
        let calendarZone = Self.calendarZone(bytes, from: start)
        let floatingZone = calendarZone.flatMap { ICalZoneResolver.ianaZone(for: $0.name) }
        var session = Session(bytes: bytes, fileName: fileName,
                              resolver: ICalZoneResolver(defaultTimeZone: defaultTimeZone, floatingZone: floatingZone),
                              fastPaths: fastPaths)
        if let calendarZone, floatingZone == nil {
            session.warn(line: calendarZone.line, uid: nil, "X-WR-TIMEZONE '\(calendarZone.name)' is not a known time zone; "
                         + "its floating times stay floating (read in the zone they are viewed in)")
        }
        return (session, floatingZone)
    }

    /// The calendar's X-WR-TIMEZONE (Google's exports) and its line, from the properties before the
    /// first component.
    static func calendarZone(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (name: String, line: Int)? {
        let key = Array("X-WR-TIMEZONE".utf8), begin = Array("BEGIN:".utf8)
        func starts(_ text: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
            text.count >= prefix.count && ICalBytes.equalsIgnoringCase(UnsafeBufferPointer(rebasing: text[..<prefix.count]), prefix)
        }
        var lineStart = start
        var line = 1
        var depth = 0
        while lineStart < bytes.count {
            var end = lineStart
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var contentEnd = end
            if contentEnd > lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let text = UnsafeBufferPointer(rebasing: bytes[lineStart..<contentEnd])
            if starts(text, with: begin) {
                depth += 1
                if depth > 1 { return nil }
            } else if depth == 1, text.count > key.count, starts(text, with: key),
                      text[key.count] == UInt8(ascii: ":") || text[key.count] == UInt8(ascii: ";"),
                      let colon = text.firstIndex(of: UInt8(ascii: ":")) {
                let name = String(decoding: UnsafeBufferPointer(rebasing: text[(colon + 1)...]), as: UTF8.self)
                return (name.trimmingWhitespace(), line)
            }
            lineStart = end + 1
            line += 1
        }
        return nil
    }

    /// Large files are read by one worker per core (at most 4); small ones on the calling thread.
    static func slices(_ count: Int, workers requested: Int? = nil) -> [Range<Int>] {
        let workers = requested ?? (count < 4_000 ? 1 : max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)))
        let size = (count + workers - 1) / max(workers, 1)
        return stride(from: 0, to: max(count, 1), by: max(size, 1)).map { $0 ..< min(count, $0 + size) }
    }
}

/// What a worker needs: the file's bytes stay alive and unchanged for the whole parse.
///
/// They are lent by address (a pointer is not `Sendable`): every worker only reads them, and
/// `parseParts` returns only after every worker is done.
struct Job: Sendable {
    let address: UInt
    let count: Int
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: UnsafePointer(bitPattern: address), count: count) }
    let fileName: String
    let defaultTimeZone: TimeZone
    let floatingZone: TimeZone?
    let fastPaths: Bool
    let zones: [ICalChunk]
    let items: [ICalChunk]
    let consumed: (@Sendable (Range<Int>) -> Void)?
    let releaseBatch: Int

    /// Reads `items[range]`; the zone warnings were already given by the first session.
    ///
    /// Every worker reads all VTIMEZONEs first, wherever they sit, so no byte before the end of
    /// the last one is reported consumed; each worker reports only bytes of its own slice.
    func read(_ range: Range<Int>) -> ICalDocument {
        var session = Session(bytes: bytes, fileName: fileName,
                              resolver: ICalZoneResolver(defaultTimeZone: defaultTimeZone, floatingZone: floatingZone),
                              fastPaths: fastPaths)
        for chunk in zones { session.readTimeZone(chunk) }
        session.document = ICalDocument()
        // Sized once: grown by doubling, the arrays' last copy came as the parse ended, when memory
        // is fullest (the import's peak RSS was 9 MB higher).
        var events = 0, todos = 0
        for chunk in items[range] {
            if chunk.name == "VEVENT" { events += 1 } else if chunk.name == "VTODO" { todos += 1 }
        }
        session.document.events.reserveCapacity(events)
        session.document.todos.reserveCapacity(todos)
        guard let consumed, let first = items[range].first else {
            session.read(items[range])
            return session.document
        }
        var released = max(first.range.lowerBound, zones.map(\.range.upperBound).max() ?? 0)
        for start in stride(from: range.lowerBound, to: range.upperBound, by: releaseBatch) {
            let batch = items[start ..< min(range.upperBound, start + releaseBatch)]
            session.read(batch)
            let end = batch.last?.range.upperBound ?? released
            if end > released {
                consumed(released ..< end)
                released = end
            }
        }
        return session.document
    }
}

/// State of one parse: the bytes, a reusable C-string buffer, and the growing document.
struct Session {
    let bytes: UnsafeBufferPointer<UInt8>
    let fileName: String
    let resolver: ICalZoneResolver
    /// Plain VEVENTs and VTODOs skip libical's component parser (``ICalSimpleEvent``, ``ICalSimpleTodo``).
    let fastPaths: Bool
    var document = ICalDocument()
    private var buffer: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, fileName: String, resolver: ICalZoneResolver, fastPaths: Bool) {
        self.bytes = bytes
        self.fileName = fileName
        self.resolver = resolver
        self.fastPaths = fastPaths
    }

    var reader: ICalComponentReader { ICalComponentReader(fileName: fileName, resolver: resolver) }

    mutating func read(_ chunks: ArraySlice<ICalChunk>) {
        for chunk in chunks {
            switch chunk.name {
            case "VEVENT": readEvent(chunk)
            case "VTODO": readTodo(chunk)
            default: continue
            }
        }
    }

    mutating func warn(line: Int, uid: String?, _ message: String) {
        document.warnings.append(ICalWarning(fileName: fileName, line: line, uid: uid, message: message))
    }

    /// What the scan of the file's components read past or found unclosed.
    mutating func warn(about scan: ICalChunkScanner.Result) {
        for (line, message) in scan.repairs { warn(line: line, uid: nil, message) }
        for (name, line) in scan.unterminated {
            warn(line: line, uid: nil, "BEGIN:\(name) has no END:\(name); the component was skipped")
        }
    }

    /// Runs libical's parser over the used lines of one chunk; also returns its raw RRULE values.
    private mutating func parse(_ chunk: ICalChunk) -> (LibicalComponent, ICalChunkScanner.Rules)? {
        let rules = ICalChunkScanner.prepare(bytes, chunk: chunk.range, skipping: chunk.skipped, into: &buffer)
        let component = buffer.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { LibicalComponent(text: $0.assumingMemoryBound(to: CChar.self)) }
        }
        return component.map { ($0, rules) }
    }

    mutating func readTimeZone(_ chunk: ICalChunk) {
        buffer.removeAll(keepingCapacity: true)
        var from = chunk.range.lowerBound
        for line in chunk.skipped {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<line.lowerBound]))
            from = line.upperBound
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<chunk.range.upperBound]))
        buffer.append(0)
        let parsed = buffer.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { icalparser_parse_string($0.assumingMemoryBound(to: CChar.self)) }
        }
        // A zone datebook resolves by name is never expanded by libical; any other is tamed first.
        if let parsed, !ICalZoneRules.isNamedZone(parsed) {
            for message in ICalZoneRules.tame(parsed) { warn(line: chunk.line, uid: nil, message) }
        }
        guard let component = parsed, resolver.adopt(vtimezone: component) else {
            warn(line: chunk.line, uid: nil, "VTIMEZONE could not be read by libical; times using its TZID may be off")
            return
        }
    }

    mutating func readEvent(_ chunk: ICalChunk) {
        if fastPaths, chunk.skipped.isEmpty, var read = ICalSimpleEvent.parse(bytes, chunk: chunk, reader: reader) {
            for message in read.warnings { warn(line: chunk.line, uid: read.event.uid, message) }
            repairRule(of: &read.event, line: chunk.line)
            document.events.append(read.event)
            return
        }
        guard let (component, rules) = parse(chunk) else {
            warn(line: chunk.line, uid: nil, "VEVENT could not be parsed; skipped")
            return
        }
        let reader = self.reader
        var warnings = ICalComponentReader.Warnings()
        let uid = reader.uid(component, line: chunk.line, kind: "VEVENT", warnings: &warnings)
        defer { for message in warnings.messages { warn(line: chunk.line, uid: uid, message) } }
        warnIfNotUTF8(chunk, uid: uid)
        let start: ICalDateValue, end: ICalDateValue?
        do {
            guard let property = component.first(ICAL_DTSTART_PROPERTY),
                  let value = try reader.checkedDate(property, icalproperty_get_dtstart(property), name: "DTSTART", warnings: &warnings)
            else {
                let why = component.parseErrors.first { $0.localizedCaseInsensitiveContains("DTSTART") }
                warnings.add((why.map { "DTSTART is not a valid date or time (libical: \($0))" } ?? "no DTSTART")
                          + "; event skipped, fix the DTSTART line")
                return
            }
            start = value
            end = try reader.end(of: start, component, warnings: &warnings)
        } catch {
            warnings.add(error.message)
            return
        }
        if rules.rrules.count > 1 { warnings.add("more than one RRULE; only the first is used") }
        let recurrenceIDProperty = component.first(ICAL_RECURRENCEID_PROPERTY)
        let recurrenceID = recurrenceIDProperty.flatMap {
            reader.dateValue($0, icalproperty_get_recurrenceid($0), warnings: &warnings)
        }
        let range = recurrenceIDProperty.flatMap { icalproperty_get_first_parameter($0, ICAL_RANGE_PARAMETER) }
        var event = ICalEvent(
            uid: uid,
            summary: reader.text(component, ICAL_SUMMARY_PROPERTY, icalproperty_get_summary),
            description: reader.text(component, ICAL_DESCRIPTION_PROPERTY, icalproperty_get_description),
            location: reader.text(component, ICAL_LOCATION_PROPERTY, icalproperty_get_location),
            url: reader.text(component, ICAL_URL_PROPERTY, icalproperty_get_url),
            start: start, end: end, rrule: rules.rrules.first,
            rdates: reader.dates(component, ICAL_RDATE_PROPERTY, warnings: &warnings),
            exdates: reader.dates(component, ICAL_EXDATE_PROPERTY, warnings: &warnings), exrules: rules.exrules,
            recurrenceID: recurrenceID,
            alarms: reader.alarms(component, start: start, end: end, warnings: &warnings),
            sourceLine: chunk.line, status: reader.status(component),
            sequence: component.first(ICAL_SEQUENCE_PROPERTY).map { Int(icalproperty_get_sequence($0)) } ?? 0,
            color: reader.text(component, ICAL_COLOR_PROPERTY, icalproperty_get_color),
            symbol: reader.xText(component, ICalEvent.symbolProperty),
            timeZoneName: reader.xText(component, ICalEvent.timeZoneProperty))
        event.thisAndFuture = range.map { icalparameter_get_range($0) == ICAL_RANGE_THISANDFUTURE } ?? false
        repairRule(of: &event, line: chunk.line)
        document.events.append(event)
    }

    /// The RRULE's repairs, each with a warning, on both paths (`keepValidEnd`, `dropForbiddenOrdinals`).
    private mutating func repairRule(of event: inout ICalEvent, line: Int) {
        keepValidEnd(of: &event, line: line)
        dropForbiddenOrdinals(of: &event, line: line)
    }

    /// An RRULE with both UNTIL and COUNT, one of them malformed, keeps the valid one (with a warning)
    /// instead of being refused whole, which would leave only DTSTART.
    private mutating func keepValidEnd(of event: inout ICalEvent, line: Int) {
        guard let rrule = event.rrule, let repaired = ICalRuleText(rrule).withoutMalformedEnd else { return }
        event.rrule = repaired.rule.text
        let kept = repaired.dropped.hasPrefix("COUNT") ? "UNTIL" : "COUNT"
        warn(line: line, uid: event.uid, "RRULE \(repaired.dropped) is malformed and was dropped; the rule ends by its \(kept) alone")
    }

    /// BYDAY ordinals where RFC 5545 forbids them are dropped, with a warning (`ICalRuleText.withoutForbiddenOrdinals`).
    private mutating func dropForbiddenOrdinals(of event: inout ICalEvent, line: Int) {
        guard let rrule = event.rrule, let repaired = ICalRuleText(rrule).withoutForbiddenOrdinals else { return }
        event.rrule = repaired.rule.text
        warn(line: line, uid: event.uid, "RRULE \(repaired.dropped) has ordinals, which RFC 5545 forbids with "
             + (repaired.rule["BYWEEKNO"] == nil ? "FREQ=\(repaired.rule["FREQ"] ?? "")" : "BYWEEKNO")
             + "; read as BYDAY=\(repaired.rule["BYDAY"] ?? "")")
    }

    /// A warning naming the first line whose bytes are not UTF-8 (a Latin-1 file, say). The plain
    /// paths read only UTF-8 and leave any other component to libical, so only its path checks.
    private mutating func warnIfNotUTF8(_ chunk: ICalChunk, uid: String) {
        guard let offset = ICalChunkScanner.firstLineNotUTF8(bytes, chunk: chunk.range) else { return }
        warn(line: chunk.line + offset, uid: uid, "the line has bytes that are not UTF-8 (is the file Latin-1?); "
             + "each was read as U+FFFD; save the file as UTF-8 and import it again")
    }

    mutating func readTodo(_ chunk: ICalChunk) {
        if fastPaths, chunk.skipped.isEmpty, let todo = ICalSimpleTodo.parse(bytes, chunk: chunk) {
            document.todos.append(todo)
            return
        }
        guard let (component, _) = parse(chunk) else {
            warn(line: chunk.line, uid: nil, "VTODO could not be parsed; skipped")
            return
        }
        let reader = self.reader
        var warnings = ICalComponentReader.Warnings()
        let uid = reader.uid(component, line: chunk.line, kind: "VTODO", warnings: &warnings)
        defer { for message in warnings.messages { warn(line: chunk.line, uid: uid, message) } }
        warnIfNotUTF8(chunk, uid: uid)
        let raw = reader.status(component)
        let due = component.first(ICAL_DUE_PROPERTY).flatMap {
            reader.dateValue($0, icalproperty_get_due($0), warnings: &warnings)
        }
        document.todos.append(ICalTodo(
            uid: uid, summary: reader.text(component, ICAL_SUMMARY_PROPERTY, icalproperty_get_summary),
            status: ICalTaskStatus(icalStatus: raw), rawStatus: raw,
            relatedTo: reader.text(component, ICAL_RELATEDTO_PROPERTY, icalproperty_get_relatedto),
            due: due, priority: component.first(ICAL_PRIORITY_PROPERTY).map { ICalTodo.priority(Int(icalproperty_get_priority($0))) } ?? 0,
            sourceLine: chunk.line, color: reader.text(component, ICAL_COLOR_PROPERTY, icalproperty_get_color),
            symbol: reader.xText(component, ICalEvent.symbolProperty)))
    }
}
