import DatebookCore
import DatebookDelivery
import DatebookInterchange
import DatebookScheduler
import DatebookStore
import Foundation

/// The scheduler's part of feeds: the config's `feeds` list is registered in the store, and every
/// feed whose interval has passed is refreshed before a pass plans alerts (so alerts follow the
/// refreshed data: a cancelled meeting's pending alert is cancelled by the ledger).
public enum FeedSync {
    /// `describe` words a store error for the log (the command line's translator).
    public static func refreshDue(store: any PlannerStore, config: Config, environment: [String: String], timeZone: TimeZone,
                                  now: Date, describe: (any Error) -> String, log: (String) -> Void) {
        for subscription in config.feeds {
            do {
                let source = try subscription.source.resolve(environment: environment).value
                let every = Int(subscription.every)
                if let existing = try store.feed(named: subscription.name) {
                    if existing.source != source || existing.every != every {
                        try store.updateFeed(named: subscription.name, source: source, every: every)
                    }
                } else {
                    try store.addFeed(Feed(name: subscription.name, source: source, every: every))
                }
            } catch {
                log("feed '\(subscription.name)': \(error); skipped")
            }
        }
        do {
            let refresher = FeedRefresher(store: store, timeZone: timeZone,
                                          fetch: FeedHTTP.fetcher(client: HTTPClient(), caInfo: environment["DATEBOOK_CA_FILE"]))
            for feed in try refresher.dueFeeds(now: now) {
                switch try refresher.refresh(feed: feed, now: now) {
                case .failed(let error): log(error.description + " (kept the last good copy)")
                default: break
                }
            }
        } catch {
            log("feeds not refreshed: \(describe(error))")
        }
    }
}
