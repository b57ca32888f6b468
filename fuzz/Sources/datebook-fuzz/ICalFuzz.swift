import Foundation
@testable import DatebookICal

/// The iCalendar reader (fast path or libical's only) and RRULE expansion in a bounded window.
enum ICalFuzz {
    static let zone = TimeZone(identifier: "Europe/Berlin") ?? .current

    static func parse(_ bytes: [UInt8], fastPaths: Bool) {
        guard let document = try? ICalParser.parse(data: Data(bytes), fileName: "fuzz.ics", defaultTimeZone: zone,
                                                   workers: 1, fastPaths: fastPaths) else { return }
        FuzzSink.keep(document.events.count + document.todos.count + document.warnings.count)
    }

    /// A whole calendar, or a bare rule put into one event; every event expanded over one year.
    static func expand(_ bytes: [UInt8]) {
        var text = bytes
        if !bytes.starts(with: Array("BEGIN:".utf8)) {
            let rule = bytes.filter { $0 != 0x0A && $0 != 0x0D }
            text = Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:f\r\nDTSTART;TZID=Europe/Berlin:20260105T090000\r\nRRULE:".utf8)
                + rule + Array("\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        }
        guard let document = try? ICalParser.parse(data: Data(text), fileName: "fuzz.ics", defaultTimeZone: zone,
                                                   workers: 1) else { return }
        for event in document.events.prefix(8) {
            let start = event.start.resolve(in: zone)
            let window = DateInterval(start: start.addingTimeInterval(-86_400), duration: 366 * 86_400)
            let duration = event.end.map { $0.resolve(in: zone).timeIntervalSince(start) } ?? 0
            guard let result = try? ICalRecurrence.occurrences(
                rrule: event.rrule, rdates: event.rdates, exdates: event.exdates, start: event.start,
                duration: duration, timeZone: zone, window: window, cap: 500) else { continue }
            FuzzSink.keep(result.starts.count)
        }
    }
}
