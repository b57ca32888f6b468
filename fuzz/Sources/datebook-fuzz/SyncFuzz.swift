import DatebookSync
import Foundation

/// A CalDAV server's answer: the input read as a multistatus by libxml2's streaming reader
/// (`DAVMultistatus(xml:base:)`), then every entry's calendar data and properties, as the sync reads them.
enum SyncFuzz {
    static func multistatus(_ bytes: [UInt8]) {
        guard let status = try? DAVMultistatus(xml: Data(bytes), base: "http://127.0.0.1:5232/ann/cal/") else { return }
        var seen = status.syncToken?.utf8.count ?? 0
        for entry in status.responses {
            seen += entry.url.utf8.count + (entry.calendarData?.utf8.count ?? 0) + entry.properties.count
        }
        FuzzSink.keep(seen)
    }
}
