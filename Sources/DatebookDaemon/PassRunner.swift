import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation
import Synchronization

/// Runs the daemon's scheduler passes on background threads, each with its own store connection
/// and HTTP client, so a channel that hangs until its timeout holds up only its own pass: an item
/// falling due meanwhile starts another pass. Claims in the ledger keep passes from sending the
/// same delivery twice.
public final class PassRunner: Sendable {
    /// What a pass needs, as values that may cross threads.
    public struct Settings: Sendable {
        public var storePath: String
        public var config: Config
        public var calendar: Calendar
        public var environment: [String: String]
        public var options: Scheduler.Options
        public var digestRenderer: any DigestRendering
        /// How a CalDAV account's server is reached, and how an error reads in the log.
        public var accounts: any CalDAVAccountAccess
        /// Also sync the CalDAV accounts changed in datebook since their last sync (`CalDAVScheduling`).
        public var calDAVLocalChanges = false

        public init(storePath: String, config: Config, calendar: Calendar, environment: [String: String], options: Scheduler.Options,
                    digestRenderer: any DigestRendering, accounts: any CalDAVAccountAccess) {
            self.storePath = storePath
            self.config = config
            self.calendar = calendar
            self.environment = environment
            self.options = options
            self.digestRenderer = digestRenderer
            self.accounts = accounts
        }
    }

    static let maxConcurrent = 4
    /// How long the running passes must have recorded nothing before a store change gets a pass of
    /// its own beside them (`untilQuiet`): until then it waits for them to end.
    static let quietBeforeAnother: Duration = .seconds(1)
    /// Passes running now.
    private let running = Mutex(0)
    /// The passes' log, which notes when a pass last started or logged a line (an outcome, a plan).
    private let progress: ProgressLog
    /// Passes that failed in a row (the store unreachable, say); 0 after one that worked.
    private let failures = Mutex(0)
    /// Which pass refreshes the feeds and syncs the CalDAV accounts.
    private let sources = SourceRefresh()
    private let group = DispatchGroup()
    private let finished: @Sendable () -> Void

    public init(log: @escaping @Sendable (String) -> Void, finished: @escaping @Sendable () -> Void) {
        progress = ProgressLog(log: log)
        self.finished = finished
        _ = HTTPClient()  // libcurl's global init on this thread, before any pass starts
    }

    public var isBusy: Bool { running.withLock { $0 > 0 } }

    /// How long until the running passes have been quiet for `quietBeforeAnother`; zero or less when
    /// they have (all held up by slow channels, say) or none runs.
    public var untilQuiet: Duration {
        guard isBusy else { return .zero }
        return progress.last + Self.quietBeforeAnother - ContinuousClock.now
    }

    /// After a failed pass, how long to wait before the next (`ReconnectBackoff`); nil after one that worked.
    public var retryDelay: TimeInterval? {
        let failed = failures.withLock { $0 }
        return failed > 0 ? ReconnectBackoff.delay(failures: failed) : nil
    }

    /// Starts a pass unless `maxConcurrent` are running (the end of one wakes the daemon again);
    /// false when it did not start.
    @discardableResult
    public func start(_ settings: Settings) -> Bool {
        let started = running.withLock { running in
            guard running < Self.maxConcurrent else { return false }
            running += 1
            return true
        }
        guard started else { return false }
        progress.mark()
        group.enter()
        let log = progress
        DispatchQueue.global().async { [self] in
            do {
                // A SQLite store deleted meanwhile is not made anew by a pass: the daemon waits for one.
                guard !SQLDialect.of(location: settings.storePath).hasFile || StoreFile.identity(settings.storePath) != nil else {
                    throw StoreError.cannotCreate(path: settings.storePath, reason: "it is gone; waiting for a store there")
                }
                let store = try StoreOpener.open(settings.storePath)
                try store.limitPageCache(kibibytes: 2048)
                store.recurrenceHorizon = Store.standardHorizon(now: Date())
                try store.extendRecurrenceHorizon()
                // One pass at a time refreshes the feeds and syncs the accounts (`SourceRefresh`).
                sources.run(localChanges: settings.calDAVLocalChanges) { localChanges in
                    let now = Date()
                    FeedSync.refreshDue(store: store, config: settings.config, environment: settings.environment,
                                        timeZone: settings.calendar.timeZone, now: now, describe: settings.accounts.describe,
                                        log: log.write)
                    CalDAVScheduling.syncDue(store: store, config: settings.config, environment: settings.environment,
                                             timeZone: settings.calendar.timeZone, now: now, localChanges: localChanges,
                                             accounts: settings.accounts, log: log.write)
                }
                let scheduler = Scheduler(store: store, config: settings.config, calendar: settings.calendar,
                                          environment: settings.environment, digestRenderer: settings.digestRenderer,
                                          options: settings.options,
                                          log: log.write)
                try scheduler.tick(now: Date())
                // The write-ahead log folded into the file, unless another connection is busy (the last
                // pass to end does it): an idle daemon's store file is whole (docs/scheduler.md, "Faults").
                store.emptyLogIfIdle()
                failures.withLock { $0 = 0 }
            } catch {
                let failed = failures.withLock { failures in
                    failures += 1
                    return failures
                }
                log.write("pass failed: \(settings.accounts.describe(error)); "
                          + "trying again in \(ReconnectBackoff.text(ReconnectBackoff.delay(failures: failed)))")
            }
            running.withLock { $0 -= 1 }
            group.leave()
            finished()
        }
        return true
    }

    /// Waits for the passes in flight (each bounded by its channels' timeouts).
    public func waitForAll() { group.wait() }
}

/// The passes' log: each line also marks the passes as making progress.
private final class ProgressLog: Sendable {
    private let log: @Sendable (String) -> Void
    private let marked = Mutex(ContinuousClock.now)

    init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    /// When a pass last started or logged a line.
    var last: ContinuousClock.Instant { marked.withLock { $0 } }

    func mark() { marked.withLock { $0 = ContinuousClock.now } }

    func write(_ line: String) {
        mark()
        log(line)
    }
}
