import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation
import Synchronization

/// Runs the daemon's scheduler passes on background threads, each with its own store connection
/// and HTTP client, so a channel that hangs until its timeout holds up only its own pass: an item
/// falling due meanwhile starts another pass. Claims in the ledger keep passes from sending the
/// same delivery twice.
final class PassRunner: Sendable {
    /// What a pass needs, as values that may cross threads.
    struct Settings: Sendable {
        var storePath: String
        var config: Config
        var calendar: Calendar
        var environment: [String: String]
        var options: Scheduler.Options
        var digestRenderer: any DigestRendering
    }

    static let maxConcurrent = 4
    /// Passes running now.
    private let running = Mutex(0)
    /// Passes that failed in a row (the store unreachable, say); 0 after one that worked.
    private let failures = Mutex(0)
    private let group = DispatchGroup()
    private let log: SerialLog
    private let finished: @Sendable () -> Void

    init(log: SerialLog, finished: @escaping @Sendable () -> Void) {
        self.log = log
        self.finished = finished
        _ = HTTPClient()  // libcurl's global init on this thread, before any pass starts
    }

    var isBusy: Bool { running.withLock { $0 > 0 } }

    /// After a failed pass, how long to wait before the next (`ReconnectBackoff`); nil after one that worked.
    var retryDelay: TimeInterval? {
        let failed = failures.withLock { $0 }
        return failed > 0 ? ReconnectBackoff.delay(failures: failed) : nil
    }

    /// Starts a pass unless `maxConcurrent` are running (the end of one wakes the daemon again).
    func start(_ settings: Settings) {
        let started = running.withLock { running in
            guard running < Self.maxConcurrent else { return false }
            running += 1
            return true
        }
        guard started else { return }
        group.enter()
        DispatchQueue.global().async { [self] in
            do {
                let store = try StoreOpener.open(settings.storePath)
                try store.limitPageCache(kibibytes: 2048)
                let now = Date()
                store.recurrenceHorizon = Store.standardHorizon(now: now)
                try store.extendRecurrenceHorizon()
                FeedSync.refreshDue(store: store, config: settings.config, environment: settings.environment,
                                    timeZone: settings.calendar.timeZone, now: now, log: { [log] in log.write($0) })
                CalDAVScheduling.syncDue(store: store, config: settings.config, environment: settings.environment,
                                         timeZone: settings.calendar.timeZone, now: now, log: { [log] in log.write($0) })
                let scheduler = Scheduler(store: store, config: settings.config, calendar: settings.calendar,
                                          environment: settings.environment, digestRenderer: settings.digestRenderer,
                                          options: settings.options,
                                          log: { [log] in log.write($0) })
                try scheduler.tick(now: Date())
                failures.withLock { $0 = 0 }
            } catch {
                let failed = failures.withLock { failures in
                    failures += 1
                    return failures
                }
                log.write("pass failed: \(ErrorTranslator.translate(error).message); "
                          + "trying again in \(ReconnectBackoff.text(ReconnectBackoff.delay(failures: failed)))")
            }
            running.withLock { $0 -= 1 }
            group.leave()
            finished()
        }
    }

    /// Waits for the passes in flight (each bounded by its channels' timeouts).
    func waitForAll() { group.wait() }
}

/// Log lines from several threads to a file descriptor (stderr), one whole line at a time,
/// flushed at once (journald reads lines).
final class SerialLog: Sendable {
    private let sink: Mutex<FileDescriptorSink>

    init(fd: Int32) { sink = Mutex(FileDescriptorSink(fd: fd)) }

    func write(_ line: String) {
        sink.withLock { sink in
            sink.write("datebook: " + line + "\n")
            sink.flush()
        }
    }
}
