import DatebookCore
import DatebookInterchange
import DatebookStore
import Foundation

/// A feed refresh whose download answers with the input (the first byte picks the content
/// type), into a scratch store, then the agenda of the next year, as `tick` reads it.
enum FeedFuzz {
    static let zone = TimeZone(identifier: "America/New_York") ?? .current
    static let now = Date(timeIntervalSince1970: 1_796_284_800)
    static let types: [String?] = [nil, "text/calendar", "application/json", "text/html; charset=utf-8"]
    /// libFuzzer runs one input at a time on one thread.
    nonisolated(unsafe) static let store: Store? = {
        // On tmpfs where there is one: each input commits, and fsync on a disk caps a run at ~10 inputs/s.
        let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = directory + "/datebook-fuzz-\(getpid()).sqlite3"
        try? FileManager.default.removeItem(atPath: path)
        return try? Store(path: path)
    }()

    static func refresh(_ bytes: [UInt8]) {
        guard let store, let kind = bytes.first else { return }
        let body = Data(bytes.dropFirst())
        let contentType = types[Int(kind) % types.count]
        let feed = Feed(name: "fuzz", source: "https://127.0.0.1/fuzz.ics", every: 3600)
        _ = try? store.removeFeed(named: "fuzz")
        _ = try? store.addFeed(feed)
        let refresher = FeedRefresher(store: store, timeZone: zone) { _ in
            .body(body, contentType: contentType, etag: nil, lastModified: nil)
        }
        guard let current = try? store.feed(named: "fuzz"), (try? refresher.refresh(feed: current, now: now)) != nil
        else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var seen = 0
        try? store.forEachOccurrence(from: now.addingTimeInterval(-86_400), to: now.addingTimeInterval(366 * 86_400),
                                     calendar: calendar) { _ in seen += 1 }
        FuzzSink.keep(seen)
    }
}
