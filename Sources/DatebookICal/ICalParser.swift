import CICal
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
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let start = ICalSniffer.contentStart(bytes)
            try ICalSniffer.check(bytes, start: start, fileName: fileName)
            let scan = ICalChunkScanner.scan(bytes, from: start)
            var session = Session(bytes: bytes, fileName: fileName,
                                  resolver: ICalZoneResolver(defaultTimeZone: defaultTimeZone))
            for (name, line) in scan.unterminated {
                session.warn(line: line, uid: nil, "BEGIN:\(name) has no END:\(name); the component was skipped")
            }
            for chunk in scan.chunks where chunk.name == "VTIMEZONE" { session.readTimeZone(chunk) }
            for chunk in scan.chunks {
                switch chunk.name {
                case "VEVENT": session.readEvent(chunk)
                case "VTODO": session.readTodo(chunk)
                default: continue
                }
            }
            return session.document
        }
    }
}

/// State of one parse: the bytes, a reusable C-string buffer, and the growing document.
private struct Session {
    let bytes: UnsafeBufferPointer<UInt8>
    let fileName: String
    let resolver: ICalZoneResolver
    var document = ICalDocument()
    private var buffer: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, fileName: String, resolver: ICalZoneResolver) {
        self.bytes = bytes
        self.fileName = fileName
        self.resolver = resolver
    }

    var reader: ICalComponentReader { ICalComponentReader(fileName: fileName, resolver: resolver) }

    mutating func warn(line: Int, uid: String?, _ message: String) {
        document.warnings.append(ICalWarning(fileName: fileName, line: line, uid: uid, message: message))
    }

    /// Runs libical's parser over the used lines of one chunk; also returns its raw RRULE values.
    private mutating func parse(_ chunk: ICalChunk) -> (LibicalComponent, [String])? {
        let rules = ICalChunkScanner.prepare(bytes, chunk: chunk.range, into: &buffer)
        let component = buffer.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { LibicalComponent(text: $0.assumingMemoryBound(to: CChar.self)) }
        }
        return component.map { ($0, rules) }
    }

    mutating func readTimeZone(_ chunk: ICalChunk) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunk.range]))
        buffer.append(0)
        let parsed = buffer.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { icalparser_parse_string($0.assumingMemoryBound(to: CChar.self)) }
        }
        guard let component = parsed, resolver.adopt(vtimezone: component) else {
            warn(line: chunk.line, uid: nil, "VTIMEZONE could not be read by libical; times using its TZID may be off")
            return
        }
    }

    mutating func readEvent(_ chunk: ICalChunk) {
        guard let (component, rules) = parse(chunk) else {
            warn(line: chunk.line, uid: nil, "VEVENT could not be parsed; skipped")
            return
        }
        let reader = self.reader
        var notes = ICalComponentReader.Notes()
        let uid = reader.uid(component, line: chunk.line, kind: "VEVENT", notes: &notes)
        defer { for message in notes.messages { warn(line: chunk.line, uid: uid, message) } }
        guard let property = component.first(ICAL_DTSTART_PROPERTY),
              let start = reader.dateValue(property, icalproperty_get_dtstart(property), notes: &notes) else {
            let why = component.parseErrors.first { $0.localizedCaseInsensitiveContains("DTSTART") }
            notes.add((why.map { "DTSTART is not a valid date or time (libical: \($0))" } ?? "no DTSTART")
                      + "; event skipped, fix the DTSTART line")
            return
        }
        let end = reader.end(of: start, component, notes: &notes)
        if rules.count > 1 { notes.add("more than one RRULE; only the first is used") }
        let recurrenceID = component.first(ICAL_RECURRENCEID_PROPERTY).flatMap {
            reader.dateValue($0, icalproperty_get_recurrenceid($0), notes: &notes)
        }
        document.events.append(ICalEvent(
            uid: uid,
            summary: reader.text(component, ICAL_SUMMARY_PROPERTY, icalproperty_get_summary),
            description: reader.text(component, ICAL_DESCRIPTION_PROPERTY, icalproperty_get_description),
            location: reader.text(component, ICAL_LOCATION_PROPERTY, icalproperty_get_location),
            url: reader.text(component, ICAL_URL_PROPERTY, icalproperty_get_url),
            start: start, end: end, rrule: rules.first,
            rdates: reader.dates(component, ICAL_RDATE_PROPERTY, notes: &notes),
            exdates: reader.dates(component, ICAL_EXDATE_PROPERTY, notes: &notes),
            recurrenceID: recurrenceID,
            alarms: reader.alarms(component, start: start, end: end, notes: &notes),
            sourceLine: chunk.line, status: reader.status(component)))
    }

    mutating func readTodo(_ chunk: ICalChunk) {
        if let todo = ICalSimpleTodo.parse(bytes, chunk: chunk) {
            document.todos.append(todo)
            return
        }
        guard let (component, _) = parse(chunk) else {
            warn(line: chunk.line, uid: nil, "VTODO could not be parsed; skipped")
            return
        }
        let reader = self.reader
        var notes = ICalComponentReader.Notes()
        let uid = reader.uid(component, line: chunk.line, kind: "VTODO", notes: &notes)
        defer { for message in notes.messages { warn(line: chunk.line, uid: uid, message) } }
        let raw = reader.status(component)
        let due = component.first(ICAL_DUE_PROPERTY).flatMap {
            reader.dateValue($0, icalproperty_get_due($0), notes: &notes)
        }
        document.todos.append(ICalTodo(
            uid: uid, summary: reader.text(component, ICAL_SUMMARY_PROPERTY, icalproperty_get_summary),
            status: ICalTaskStatus(icalStatus: raw), rawStatus: raw,
            relatedTo: reader.text(component, ICAL_RELATEDTO_PROPERTY, icalproperty_get_relatedto),
            due: due, sourceLine: chunk.line))
    }
}
