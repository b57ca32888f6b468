import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook run`'s loop: sleeps until the next due moment (an alert, a digest, a retry, a CalDAV
/// account's backoff), a store change, a signal or the end of a pass, then starts a pass (`PassRunner`)
/// like `tick`. Notices a store file replaced or deleted under it, reloads the config on SIGHUP,
/// keeps its row in the store fresh (`Heartbeat`) and stops on SIGTERM or SIGINT once the
/// deliveries in flight are done. `RunCommand` parses the options, starts the web server of
/// `--serve` and hands over; a test drives it directly (`wakeups.post(.stop)` ends `run`).
public final class Daemon {
    /// What the daemon needs from the program that runs it: how to open the store and build a
    /// scheduler, how to read the config again, and where its log lines go.
    public struct Host {
        public var storePath: String
        public var configPath: String
        public var config: Config
        public var calendar: Calendar
        public var environment: [String: String]
        /// datebook's version, in the row `status` lists.
        public var version: String
        public var openStore: () throws -> any PlannerStore
        /// The scheduler for a store and a config (its options and `nextWake` are read here).
        public var scheduler: (any PlannerStore, Config) -> Scheduler
        public var digestRenderer: (Config) -> any DigestRendering
        /// The config read again (SIGHUP); a throw keeps the old one.
        public var reloadConfig: () throws -> Config
        public var accounts: any CalDAVAccountAccess
        /// One line of the log (stderr), from any thread.
        public var log: @Sendable (String) -> Void
        /// Lines logged right after the start line (warnings about how it was started).
        public var notes: [String] = []

        public init(storePath: String, configPath: String, config: Config, calendar: Calendar, environment: [String: String],
                    version: String, openStore: @escaping () throws -> any PlannerStore,
                    scheduler: @escaping (any PlannerStore, Config) -> Scheduler,
                    digestRenderer: @escaping (Config) -> any DigestRendering, reloadConfig: @escaping () throws -> Config,
                    accounts: any CalDAVAccountAccess, log: @escaping @Sendable (String) -> Void) {
            self.storePath = storePath
            self.configPath = configPath
            self.config = config
            self.calendar = calendar
            self.environment = environment
            self.version = version
            self.openStore = openStore
            self.scheduler = scheduler
            self.digestRenderer = digestRenderer
            self.reloadConfig = reloadConfig
            self.accounts = accounts
            self.log = log
        }
    }

    /// A web server running in the same process (`run --serve`): told of store changes, stopped first.
    public struct Server {
        public var storeChanged: () -> Void
        public var stop: () -> Void

        public init(storeChanged: @escaping () -> Void, stop: @escaping () -> Void) {
            self.storeChanged = storeChanged
            self.stop = stop
        }
    }

    /// The longest sleep: a wall-clock step or suspend is noticed within this.
    public static let maxSleep: TimeInterval = 60

    private let host: Host
    /// The store `init` opened, handed over to `run`: held nowhere else, so the connection to a file
    /// the path no longer names is closed when `run` lets go of it.
    private var opened: (any PlannerStore)?
    /// What wakes the loop: `post(.stop)` ends `run` as SIGTERM does, `.reload` reads the config
    /// again as SIGHUP does (from any thread).
    public let wakeups: Wakeups

    /// Opens the store; SIGTERM, SIGINT and SIGHUP are handled from here on (before a server
    /// started next answers, so a stop sent as soon as it answers is never lost).
    public init(_ host: Host) throws {
        self.host = host
        let store = try host.openStore()
        // The main thread only decides when to run a pass; it reads a few pages around now.
        try store.limitPageCache(kibibytes: 1024)
        opened = store
        let log = host.log
        wakeups = Wakeups(watchingStore: store.watchedFile, listener: store.changeListener(), log: { log($0) })
    }

    /// Runs passes when they are due until a stop; returns once the deliveries in flight are done.
    public func run(server: Server? = nil) throws {
        let host = host
        let log = host.log
        let wakeups = wakeups
        guard var store = opened else { preconditionFailure("Daemon.run is called once") }
        opened = nil
        // The file the daemon has open: a path that comes to name another file (a backup moved
        // over it) or none (deleted) is noticed at the next wake-up (StoreFile).
        let checksFile = store.watchedFile != nil
        var identity = checksFile ? StoreFile.identity(host.storePath) : nil
        let runner = PassRunner(log: log) { [wakeups] in wakeups.post(.passFinished) }
        var planner = host.scheduler(store, host.config)
        var settings = PassRunner.Settings(storePath: host.storePath, config: host.config, calendar: host.calendar,
                                           environment: host.environment, options: planner.options,
                                           digestRenderer: host.digestRenderer(host.config), accounts: host.accounts)
        var version = try store.dataVersion()
        var heartbeat = Heartbeat(started: Date(), version: host.version)
        log("started (pid \(getpid()), store \(store.location)\(wakeups.watchesStore ? "" : ", store changes noticed within a minute"))")
        host.notes.forEach(log)
        var due = true
        // The store file itself was written (a checkpoint, or a file copied over it): whether this
        // daemon's row is still in it is looked at (through a connection of its own, whose log
        // writes wake the daemon again: not at every wake-up). Without inotify, at every wake-up.
        var lookAtContent = false
        // This thread wrote, or a pass ended, since the log was last folded into the file.
        var tidy = false
        // A store change not yet given a pass: noticed while passes ran, it most likely came from
        // their own writes (a plan, outcomes), so it waits for them to end, or to fall quiet.
        var changed = false
        // The next due moment as last read: while a noted change waits for busy passes it stands,
        // since reading it expands the events near now (10,000 due ones take longer than a pass's share).
        var next: Date?
        // The due moment last slept toward, until a pass starts once it has come: a wake-up for another
        // reason just after it (a store change, a pass's end) still starts that pass, though `nextWake`
        // read then no longer names it (it looks after now).
        var target: Date?
        // When to sync the CalDAV accounts changed here: a while after the first store change since.
        var calDAVSync: ContinuousClock.Instant?
        // The synced calendars' local changes as last seen (`CalDAVScheduling.localChangesMark`).
        var calDAVMark = CalDAVScheduling.localChangesMark(store)
        while true {
            if let at = calDAVSync, ContinuousClock.now >= at {
                var local = settings
                local.calDAVLocalChanges = true
                // A whole pass: it stands for a due one too.
                if runner.start(local) {
                    calDAVSync = nil
                    due = false
                    changed = false
                }
            }
            // The same file with other content (copied over it, or restored): this daemon's own row is
            // not in it as last written. Read through a connection of its own, before this one is used.
            // (The file named the same before and after the look: a deletion meanwhile is not taken for one.)
            let contentReplaced = checksFile && lookAtContent && identity != nil && StoreFile.identity(host.storePath) == identity
                && heartbeat.isLost(inFile: host.storePath) && StoreFile.identity(host.storePath) == identity
            lookAtContent = !wakeups.watchesStore
            let current = checksFile ? StoreFile.identity(host.storePath) : nil
            if checksFile, current != identity || contentReplaced {
                // Passes in flight finish on the file they opened; none starts on a missing one.
                runner.waitForAll()
                if contentReplaced {
                    // This connection's cache and log belong to the old content: closed without writing
                    // anything (its row, its log) into the new one. Opened again once the copy is done.
                    store.keepLogOnClose()
                    heartbeat.forgetWritten()
                    StoreFile.waitUntilQuiet(host.storePath)
                } else {
                    heartbeat.remove(from: store)
                    // The old connection is closed before the new file is opened: its write-ahead log and
                    // index are at the path's `-wal` and `-shm` names, where a connection to the new file
                    // would read them as its own (SQLite leaves a moved file's log behind on close).
                    do { try store.emptyLog() } catch {
                        log("could not empty the old store's write-ahead log: \(host.accounts.describe(error))")
                    }
                }
                store = try Store.standIn()
                planner = host.scheduler(store, settings.config)
                var opened: StoreFile?
                if current != nil {
                    do {
                        store = try host.openStore()
                        try store.limitPageCache(kibibytes: 1024)
                        planner = host.scheduler(store, settings.config)
                        opened = StoreFile.identity(host.storePath)
                    } catch {
                        // Being made by another program, say: tried again at the next wake-up.
                        log("store \(StoreLocation.redacted(host.storePath)) cannot be opened yet: \(host.accounts.describe(error))")
                    }
                }
                if current == nil || opened != nil {
                    log(current == nil
                              ? "store \(host.storePath) is gone (deleted or moved away): the old file is no longer used; "
                                + "no pass runs until a store is there again"
                              : identity == nil ? "store \(host.storePath) is there again: opened it"
                              : contentReplaced
                              ? "store \(host.storePath) has other content (a file copied over it, or restored): the old "
                                + "content's connection was closed without writing into it, opened the new content"
                                + " (copying over a live store is unsafe: use 'datebook store restore')"
                              : "store \(host.storePath) now names another file (replaced or moved over): the old one "
                                + "is no longer used, opened the new one")
                }
                // A copy that met a write-ahead log of the old content (changes being written) may have
                // taken some of its pages: checked once (rare, and the user should know).
                if contentReplaced, opened != nil, case let check = (try? store.integrityCheck()) ?? "unreadable", check != "ok" {
                    log("store \(host.storePath) is damaged (\(check.split(separator: "\n").prefix(3).joined(separator: "; "))): "
                              + "it was copied over while changes were being written; restore it from a backup with 'datebook store restore'")
                }
                // Nil (no file, or not opened): looked at again at each wake-up.
                identity = opened
                version = (try? store.dataVersion()) ?? version
                next = nil
                due = true
            }
            let storeThere = !checksFile || identity != nil
            if changed, runner.untilQuiet <= .zero { due = true }
            if due, storeThere, runner.start(settings) {
                changed = false
                if let moment = target, moment <= Date() { target = nil }
            }
            let now = Date()
            // A beat writes through this connection: never into content copied over the file since
            // the last look. A copy's inotify events may not be read yet when a timer's beat comes (on
            // a loaded machine): then the content is looked at first, at once.
            var lookNow = false
            if due || heartbeat.isDue(now: now) {
                if checksFile, identity != nil, !heartbeat.isHeld(inFile: host.storePath) {
                    lookAtContent = true
                    lookNow = true
                } else {
                    heartbeat.beat(store, now: now)
                    tidy = true
                }
            }
            // Idle, the store file is whole: its log folded in (a pass does this when it ends, but
            // this thread's own writes may come after). Once per beat or pass end, never waiting.
            if tidy, !runner.isBusy {
                store.emptyLogIfIdle()
                tidy = false
            }
            var sleep = min(Self.maxSleep, heartbeat.nextBeat(now: now))
            if storeThere, !changed || !runner.isBusy { next = try? planner.nextWake(after: now) }
            if let next {
                // A few milliseconds past the due second, so the pass sees it as due. Something already
                // due is left to a running pass; its end wakes this loop again.
                let wait = next.timeIntervalSince(now) + 0.005
                if wait > 0.005 || !runner.isBusy {
                    sleep = min(Self.maxSleep, max(0, wait))
                    target = min(target ?? next, next)
                }
            }
            if !storeThere { target = nil }
            // A pass that failed (the store unreachable) is tried again with backoff.
            if let retry = runner.retryDelay, !runner.isBusy { sleep = min(sleep, retry) }
            // A failing CalDAV account is tried again when its backoff ends (a pass then finds it due).
            // Slept toward as a due moment: when a pass is still running then, its end starts the one
            // that tries (else the retry waited for the next beat, 30 s, once it was in the past).
            if let retry = CalDAVScheduling.nextAttempt(store), retry > now {
                sleep = min(sleep, retry.timeIntervalSince(now) + 0.005)
                target = min(target ?? retry, retry)
            }
            // Not started for want of a free pass: the end of one wakes this loop.
            if let at = calDAVSync, !(ContinuousClock.now >= at && runner.isBusy) {
                sleep = min(sleep, max(0.01, Self.seconds(at - ContinuousClock.now)))
            }
            if lookNow { sleep = 0 }
            let timer = sleep
            // A noted change: looked at again when the passes may have fallen quiet.
            if changed, case let left = runner.untilQuiet, left > .zero { sleep = min(sleep, Self.seconds(left)) }
            let started = ContinuousClock.now
            var reasons = wakeups.wait(seconds: sleep)
            // More changes while one is noted and passes run: slept through, without reading the store.
            // (Unless the path now names another file or none: that is looked at at once.)
            while reasons == [.storeChanged], changed, runner.isBusy, ContinuousClock.now - started < .seconds(sleep),
                  !checksFile || StoreFile.identity(host.storePath) == identity {
                reasons = wakeups.wait(seconds: sleep - Self.seconds(ContinuousClock.now - started))
            }
            if reasons.contains(.stop) { break }
            if reasons.contains(.storeFileWritten) { lookAtContent = true }
            if reasons.contains(.passFinished) { tidy = true }
            due = (reasons.isEmpty && sleep >= timer) || ContinuousClock.now - started >= .seconds(timer)
                || target.map { Date() >= $0 } == true
            if reasons.contains(.reload) {
                do {
                    let config = try host.reloadConfig()
                    settings.config = config
                    settings.digestRenderer = host.digestRenderer(config)
                    planner = host.scheduler(store, config)
                    log("config reloaded from \(host.configPath)")
                } catch {
                    log("config not reloaded, keeping the old one: \(host.accounts.describe(error))")
                }
                due = true
            }
            // A version that cannot be read (a lost connection) counts as a change: the pass meets
            // the loss, logs it and is tried again with backoff.
            if reasons.contains(.storeChanged) {
                let current = try? store.dataVersion()
                if current == nil || current != version {
                    version = current ?? version
                    if runner.isBusy { changed = true } else { due = true }
                    // Only a change to a synced calendar calls for a sync: a sync's own record (a
                    // failure, a backoff) is not one, or a failing account would retry at once.
                    let mark = CalDAVScheduling.localChangesMark(store)
                    if calDAVSync == nil, mark != calDAVMark, CalDAVScheduling.hasAccounts(store) {
                        calDAVSync = ContinuousClock.now + CalDAVScheduling.afterLocalChange
                    }
                    calDAVMark = mark
                    server?.storeChanged()
                }
            }
        }
        server?.stop()
        runner.waitForAll()
        heartbeat.remove(from: store)
        log("stopping: in-flight \(server == nil ? "" : "requests and ")deliveries finished")
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
