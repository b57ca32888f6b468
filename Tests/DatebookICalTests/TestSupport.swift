import DatebookICal
import Foundation

/// Fixture access and small helpers shared by the tests.
enum TestSupport {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func fixtureURL(_ name: String) -> URL {
        directory.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: fixtureURL(name))
    }

    static func zone(_ id: String) -> TimeZone {
        TimeZone(identifier: id) ?? TimeZone(secondsFromGMT: 0) ?? .current
    }

    static func parse(_ name: String, zone id: String = "Europe/Berlin") throws -> ICalDocument {
        try ICalParser.parse(data: data(name), fileName: name, defaultTimeZone: zone(id))
    }

    static func parse(text: String, zone id: String = "Europe/Berlin") throws -> ICalDocument {
        try ICalParser.parse(data: Data(text.utf8), fileName: "inline.ics", defaultTimeZone: zone(id))
    }

    /// An instant from a wall-clock time in a zone.
    static func instant(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, zone id: String) -> Date {
        ICalLocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi).instant(in: zone(id))
    }

    static func local(_ date: Date, _ id: String) -> ICalLocalDateTime {
        ICalLocalDateTime.of(date, in: zone(id))
    }

    static func window(_ from: Date, _ to: Date) -> DateInterval {
        DateInterval(start: from, end: to)
    }

    /// A minimal calendar around VEVENT bodies.
    static func calendar(_ body: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + body + "END:VCALENDAR\r\n"
    }
}
