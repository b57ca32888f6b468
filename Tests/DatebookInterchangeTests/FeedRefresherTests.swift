import DatebookCore
@testable import DatebookInterchange
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `FeedRefresher` with an in-memory fetch: the decisions the scheduler relies on, without sockets.
struct FeedRefresherTests {
    static let calendar = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:a@x\r\nDTSTAMP:20260101T000000Z\r
        SUMMARY:Team sync\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
        """

    final class Answers: @unchecked Sendable {
        var queue: [Result<FeedFetchResult, FeedError>] = []
        var requests: [FeedFetchRequest] = []
    }

    func refresher(_ store: any PlannerStore, _ answers: Answers) -> FeedRefresher {
        FeedRefresher(store: store, timeZone: TimeZone(identifier: "UTC") ?? .current) { request in
            answers.requests.append(request)
            guard !answers.queue.isEmpty else { return .notModified }
            return try answers.queue.removeFirst().get()
        }
    }

    @Test(arguments: Backend.allCases)
    func dueFeedsFollowEveryAndRefreshKeepsTheLastGoodCopy(_ backend: Backend) throws {
        let store = try backend.open()
        try store.addFeed(Feed(name: "work", source: "https://example.org/work.ics", every: 1800))
        let answers = Answers()
        let feeds = refresher(store, answers)
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        #expect(try feeds.dueFeeds(now: now).map(\.name) == ["work"])

        answers.queue = [.success(.body(Data(Self.calendar.utf8), contentType: "text/calendar", etag: "\"v1\"", lastModified: nil))]
        let first = try feeds.refresh(feed: #require(try store.feed(named: "work")), now: now)
        #expect(first == .updated(events: 1, warnings: []))
        #expect(try feeds.dueFeeds(now: now.addingTimeInterval(60)).isEmpty)
        #expect(try feeds.dueFeeds(now: now.addingTimeInterval(1800)).count == 1)

        answers.queue = [.success(.body(Data("<html></html>".utf8), contentType: "text/html; charset=utf-8", etag: nil, lastModified: nil))]
        let broken = try feeds.refresh(feed: #require(try store.feed(named: "work")), now: now.addingTimeInterval(1800))
        #expect(broken == .failed(FeedError(feed: "work", message: "not iCalendar (got text/html)")))
        #expect(try store.eventCount() == 1)
        #expect(try store.feed(named: "work")?.lastError == "not iCalendar (got text/html)")

        let unchanged = try feeds.refresh(feed: #require(try store.feed(named: "work")), now: now.addingTimeInterval(3600))
        #expect(unchanged == .unchanged)
        #expect(answers.requests.last?.etag == "\"v1\"")
        #expect(try store.feed(named: "work")?.lastError == nil)
    }
}
