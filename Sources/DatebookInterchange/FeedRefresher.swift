import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

/// What to ask the network for: the URL and the validators of the last good copy.
public struct FeedFetchRequest: Sendable, Equatable {
    public var url: String
    public var etag: String?
    public var lastModified: String?
}

/// What the network answered.
public enum FeedFetchResult: Sendable, Equatable {
    /// 304: the last good copy is current.
    case notModified
    case body(Data, contentType: String?, etag: String?, lastModified: String?)
}

/// A refresh that failed; the store keeps the last good copy. `feed 'work': not iCalendar (got text/html)`.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var feed: String
    public var message: String

    public init(feed: String, message: String) {
        self.feed = feed
        self.message = message
    }

    public var description: String { "feed '\(feed)': \(message)" }
}

/// How one refresh went.
public enum FeedRefreshOutcome: Sendable, Equatable {
    case unchanged
    case updated(events: Int, warnings: [String])
    case failed(FeedError)
}

/// Refreshes feeds into the store: fetch (through `fetch`, e.g. `FeedHTTP` over libcurl, DatebookDelivery's HTTPClient),
/// detect iCalendar or planner JSON by content, convert, and replace the feed's events in one
/// transaction. A failure of any kind only records the reason; the last good copy stays.
///
/// The scheduler calls `dueFeeds(now:)` on each tick and `refresh(feed:now:)` for each.
public struct FeedRefresher {
    public let store: any PlannerStore
    public let timeZone: TimeZone
    public let fetch: (FeedFetchRequest) throws -> FeedFetchResult

    public init(store: any PlannerStore, timeZone: TimeZone, fetch: @escaping (FeedFetchRequest) throws -> FeedFetchResult) {
        self.store = store
        self.timeZone = timeZone
        self.fetch = fetch
    }

    /// Feeds whose `every` has passed since their last check.
    public func dueFeeds(now: Date) throws -> [Feed] {
        try store.feeds().filter { $0.isDue(now: now) }
    }

    /// Refreshes one feed; store errors (disk full, busy) are thrown, feed problems are returned.
    public func refresh(feed: Feed, now: Date) throws -> FeedRefreshOutcome {
        let fetched: FeedFetchResult
        do {
            fetched = try feed.isRemote ? fetch(FeedFetchRequest(url: feed.source, etag: feed.etag, lastModified: feed.lastModified))
                : Self.readLocal(feed)
        } catch {
            let failure = (error as? FeedError) ?? FeedError(feed: feed.name, message: "\(error)")
            try store.recordFeedCheck(feed, now: now, error: failure.message)
            return .failed(failure)
        }
        guard case let .body(data, contentType, etag, lastModified) = fetched else {
            try store.recordFeedCheck(feed, now: now, error: nil)
            return .unchanged
        }
        do {
            let result = try convert(data, feed: feed, contentType: contentType, now: now)
            try store.replaceFeedEvents(feed, with: result, etag: etag, lastModified: lastModified, now: now)
            return .updated(events: result.events.count, warnings: result.warnings)
        } catch let failure as FeedError {
            try store.recordFeedCheck(feed, now: now, error: failure.message)
            return .failed(failure)
        }
    }

    /// A local file is re-read only when its modification time changed. Only a regular file of at
    /// most `maxLocalBytes` is read (a FIFO or a device would block or never end).
    static func readLocal(_ feed: Feed) throws -> FeedFetchResult {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: feed.source) else {
            throw FeedError(feed: feed.name, message: "\(feed.source): no such file")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw FeedError(feed: feed.name, message: "\(feed.source): not a regular file; a local feed must be an .ics or planner .json file")
        }
        guard (attributes[.size] as? Int ?? 0) <= maxLocalBytes else {
            throw FeedError(feed: feed.name, message: "\(feed.source): larger than \(maxLocalBytes >> 20) MB; not read")
        }
        let stamp = (attributes[.modificationDate] as? Date).map { "mtime:\($0.timeIntervalSince1970)" }
        if let stamp, stamp == feed.lastModified { return .notModified }
        guard let data = FileManager.default.contents(atPath: feed.source) else {
            throw FeedError(feed: feed.name, message: "\(feed.source): cannot read (permissions?)")
        }
        return .body(data, contentType: nil, etag: nil, lastModified: stamp)
    }

    /// The cap on a local feed file (as on a download, `FeedHTTP.maxBytes`).
    public static let maxLocalBytes = 20 << 20

    /// iCalendar or planner JSON, by content; anything else is refused naming what it was.
    func convert(_ data: Data, feed: Feed, contentType: String?, now: Date) throws -> ICSImport {
        let options = PlannerICS.Options(calendar: feed.calendar, timeZone: timeZone, today: CalendarDate(now, in: timeZone),
                                         existing: { try? store.event(id: $0) }, store: store, overlays: true)
        if Self.looksLikeJSON(data) {
            return try decodeJSON(data, feed: feed, options: options, contentType: contentType)
        }
        do {
            return try PlannerICS.decode(data, fileName: feed.source, options: options)
        } catch let error as ICalError {
            if let contentType, !contentType.lowercased().contains("calendar") {
                let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? contentType
                throw FeedError(feed: feed.name, message: "not iCalendar (got \(type))")
            }
            guard case let .notICalendar(_, got) = error else { throw FeedError(feed: feed.name, message: "\(error)") }
            throw FeedError(feed: feed.name, message: "not iCalendar (\(got))")
        }
    }

    /// An object with an `events` member and no keys but `datebook` and `events`: a planner
    /// document, perhaps a broken one (its errors may then be shown in detail).
    static func isPlannerShaped(_ root: JSONNode) -> Bool {
        guard case .object(let members) = root.value else { return false }
        return members.contains { $0.key == "events" } && members.allSatisfy { $0.key == "events" || $0.key == "datebook" }
    }

    static func looksLikeJSON(_ data: Data) -> Bool {
        let first = data.prefix(64).drop { [0x20, 0x09, 0x0D, 0x0A, 0xEF, 0xBB, 0xBF].contains($0) }.first
        return first == UInt8(ascii: "{")
    }

    /// A planner JSON document (the `datebook export` shape); ids are namespaced by the feed.
    func decodeJSON(_ data: Data, feed: Feed, options: PlannerICS.Options, contentType: String?) throws -> ICSImport {
        let events: [Event]
        var result = ICSImport(events: [], uids: [:], warnings: [])
        do {
            let root = try JSONParser.parse(Array(data))
            // Another program's JSON (credentials, settings) is refused without a word of its content.
            guard Self.isPlannerShaped(root) else {
                throw FeedError(feed: feed.name, message: "not iCalendar (got JSON that is not a planner document)")
            }
            let defaults = PlannerDocument.Defaults(timeZone: timeZone.identifier, newID: { EventID.stable(UUID().uuidString) },
                                                    symbol: { .star }, color: { .primary })
            (events, result.warnings) = try PlannerDocument.decodeRepairing(root, file: feed.source, defaults: defaults,
                                                                            validation: .planner)
        } catch let error as InputError {
            throw FeedError(feed: feed.name, message: "not a planner document: \(error)")
        } catch let error as JSONSyntaxError {
            // Its message may quote a key or a word of the file: only the position is named.
            throw FeedError(feed: feed.name, message: "not iCalendar (got JSON that cannot be read: line \(error.line), column \(error.column))")
        } catch let error as FeedError {
            throw error
        } catch {
            throw FeedError(feed: feed.name, message: "not iCalendar (got JSON that is not a planner document)")
        }
        for var event in events {
            let uid = event.id
            event.id = EventID.stable(feed.calendar + "\u{0}" + uid)
            if let stored = options.existing(event.id) {
                event.symbol = stored.symbol
                event.color = stored.color
                if !stored.tasks.isEmpty { event.tasks = stored.tasks }
            }
            result.events.append(event)
            result.uids[event.id] = uid
        }
        return result
    }
}
