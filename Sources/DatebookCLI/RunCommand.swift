import DatebookCore
import DatebookDaemon
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook run`: the daemon. Sleeps until the next due moment, then runs a pass like `tick`.
enum RunCommand: Command {
    static let spec = CommandSpec(
        name: "run", summary: "run as a daemon: deliver alerts and digests when they are due",
        usage: "[--serve [--listen HOST:PORT]]",
        options: [
            .flag("--serve", "also run the web server of 'datebook serve' in this process"),
            .value("--listen", "HOST:PORT", "with --serve: where to listen (default: serve.listen, else 127.0.0.1:8650)"),
        ],
        examples: ["datebook run", "datebook run --serve", "systemctl --user enable --now datebook.service"],
        details: """
        Sleeps until the next alert, digest or retry (re-checking the wall clock at least once a minute, so
        a suspend or a clock step is handled like a missed tick). A store file that is deleted, or that
        another file is moved over, is noticed at the next wake-up (device and inode): the old file is
        no longer used and the new one is opened (a deleted one: no pass until one is there again). A file
        copied over the live store (unsafe: use 'datebook store restore') is noticed when the file is written:
        the old content's connection is closed without writing into the new one, which is opened and checked.
        Idle, the store file is whole (each pass folds the write-ahead log in when it ends). Store changes made by other datebook
        commands wake it at once (on PostgreSQL through LISTEN/NOTIFY, from any machine); one noticed while
        passes run gets its pass when they end, or once they have recorded nothing for 1 s. A pass that
        cannot reach the store is logged and tried again after 0.5 s, doubling up to 30 s. SIGHUP reloads
        the config; SIGTERM or SIGINT let the deliveries in flight finish (each is bounded by its
        channel's timeout) and exit 0. One line per delivery on stderr. While it runs, 'datebook status'
        lists it among the schedulers alive.
        With --serve the web server of 'datebook serve' runs in the same process (SIGTERM lets its requests
        in flight finish too).
        """
    )

    /// The longest sleep: a wall-clock step or suspend is noticed within this.
    static let maxSleep: TimeInterval = 60

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        // The passes' lines and this thread's go to stderr through one lock.
        let log = SerialLog(fd: STDERR_FILENO)
        if arguments.has("--listen"), !arguments.has("--serve") { throw UsageError(message: "--listen needs --serve", command: "run") }
        var store = try context.openStore()
        // The file the daemon has open: a path that comes to name another file (a backup moved
        // over it) or none (deleted) is noticed at the next wake-up (StoreFile).
        let checksFile = store.watchedFile != nil
        var identity = checksFile ? StoreFile.identity(context.storePath) : nil
        // The main thread only decides when to run a pass; it reads a few pages around now.
        try store.limitPageCache(kibibytes: 1024)
        // SIGTERM is handled from here on: before the server answers, so a stop sent as soon as it
        // answers is never lost.
        let wakeups = Wakeups(watchingStore: store.watchedFile, listener: store.changeListener(), log: { log.write($0) })
        let served = arguments.has("--serve") ? try ServerLauncher.start(context, listen: arguments.value("--listen"),
                                                                              pinned: context.environment["DATEBOOK_NOW"] != nil || arguments.value("--now") != nil, log: log) : nil
        let server = served?.0
        let runner = PassRunner(log: log.write) { [wakeups] in wakeups.post(.passFinished) }
        var planner = SchedulerFactory.make(context, store: store)
        var settings = PassRunner.Settings(storePath: context.storePath, config: context.config, calendar: context.calendar,
                                           environment: context.environment, options: planner.options,
                                           digestRenderer: SchedulerFactory.digestRenderer(context, config: context.config),
                                           accounts: CommandLineAccounts())
        var version = try store.dataVersion()
        var heartbeat = Heartbeat(started: Date(), version: Datebook.version)
        log.write("started (pid \(getpid()), store \(store.location)\(wakeups.watchesStore ? "" : ", store changes noticed within a minute"))")
        if ArgumentScrub.hidPassword {
            log.write("warning: the store's password was on the command line, where other users could read it (ps) until datebook "
                      + "hid it; give it in PGPASSFILE (~/.pgpass) or the config's store: { file: \"…\" } instead")
        }
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
            let contentReplaced = checksFile && lookAtContent && identity != nil && StoreFile.identity(context.storePath) == identity
                && heartbeat.isLost(inFile: context.storePath) && StoreFile.identity(context.storePath) == identity
            lookAtContent = !wakeups.watchesStore
            let current = checksFile ? StoreFile.identity(context.storePath) : nil
            if checksFile, current != identity || contentReplaced {
                // Passes in flight finish on the file they opened; none starts on a missing one.
                runner.waitForAll()
                if contentReplaced {
                    // This connection's cache and log belong to the old content: closed without writing
                    // anything (its row, its log) into the new one. Opened again once the copy is done.
                    (store as? Store)?.keepLogOnClose()
                    heartbeat.forgetWritten()
                    StoreFile.waitUntilQuiet(context.storePath)
                } else {
                    heartbeat.remove(from: store)
                    // The old connection is closed before the new file is opened: its write-ahead log and
                    // index are at the path's `-wal` and `-shm` names, where a connection to the new file
                    // would read them as its own (SQLite leaves a moved file's log behind on close).
                    do { try (store as? Store)?.emptyLog() } catch {
                        log.write("could not empty the old store's write-ahead log: \(ErrorTranslator.translate(error).message)")
                    }
                }
                store = try Store.standIn()
                planner = SchedulerFactory.make(context, store: store, config: settings.config)
                var opened: StoreFile?
                if current != nil {
                    do {
                        store = try context.openStore()
                        try store.limitPageCache(kibibytes: 1024)
                        planner = SchedulerFactory.make(context, store: store, config: settings.config)
                        opened = StoreFile.identity(context.storePath)
                    } catch {
                        // Being made by another program, say: tried again at the next wake-up.
                        log.write("store \(StoreLocation.redacted(context.storePath)) cannot be opened yet: \(ErrorTranslator.translate(error).message)")
                    }
                }
                if current == nil || opened != nil {
                    log.write(current == nil
                              ? "store \(context.storePath) is gone (deleted or moved away): the old file is no longer used; "
                                + "no pass runs until a store is there again"
                              : identity == nil ? "store \(context.storePath) is there again: opened it"
                              : contentReplaced
                              ? "store \(context.storePath) has other content (a file copied over it, or restored): the old "
                                + "content's connection was closed without writing into it, opened the new content"
                                + " (copying over a live store is unsafe: use 'datebook store restore')"
                              : "store \(context.storePath) now names another file (replaced or moved over): the old one "
                                + "is no longer used, opened the new one")
                }
                // A copy that met a write-ahead log of the old content (changes being written) may have
                // taken some of its pages: checked once (rare, and the user should know).
                if contentReplaced, opened != nil, case let check = (try? store.integrityCheck()) ?? "unreadable", check != "ok" {
                    log.write("store \(context.storePath) is damaged (\(check.split(separator: "\n").prefix(3).joined(separator: "; "))): "
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
            if due, storeThere, runner.start(settings) { changed = false }
            let now = Date()
            if due || heartbeat.isDue(now: now) {
                heartbeat.beat(store, now: now)
                tidy = true
            }
            // Idle, the store file is whole: its log folded in (a pass does this when it ends, but
            // this thread's own writes may come after). Once per beat or pass end, never waiting.
            if tidy, !runner.isBusy {
                (store as? Store)?.emptyLogIfIdle()
                tidy = false
            }
            var sleep = min(maxSleep, heartbeat.nextBeat(now: now))
            if storeThere, !changed || !runner.isBusy { next = try? planner.nextWake(after: now) }
            if let next {
                // A few milliseconds past the due second, so the pass sees it as due. Something already
                // due is left to a running pass; its end wakes this loop again.
                let wait = next.timeIntervalSince(now) + 0.005
                if wait > 0.005 || !runner.isBusy { sleep = min(maxSleep, max(0, wait)) }
            }
            // A pass that failed (the store unreachable) is tried again with backoff.
            if let retry = runner.retryDelay, !runner.isBusy { sleep = min(sleep, retry) }
            // A failing CalDAV account is tried again when its backoff ends (a pass then finds it due).
            if let retry = CalDAVScheduling.nextAttempt(store), retry > now { sleep = min(sleep, retry.timeIntervalSince(now) + 0.005) }
            // Not started for want of a free pass: the end of one wakes this loop.
            if let at = calDAVSync, !(ContinuousClock.now >= at && runner.isBusy) {
                sleep = min(sleep, max(0.01, Self.seconds(at - ContinuousClock.now)))
            }
            let timer = sleep
            // A noted change: looked at again when the passes may have fallen quiet.
            if changed, case let left = runner.untilQuiet, left > .zero { sleep = min(sleep, Self.seconds(left)) }
            let started = ContinuousClock.now
            var reasons = wakeups.wait(seconds: sleep)
            // More changes while one is noted and passes run: slept through, without reading the store.
            // (Unless the path now names another file or none: that is looked at at once.)
            while reasons == [.storeChanged], changed, runner.isBusy, ContinuousClock.now - started < .seconds(sleep),
                  !checksFile || StoreFile.identity(context.storePath) == identity {
                reasons = wakeups.wait(seconds: sleep - Self.seconds(ContinuousClock.now - started))
            }
            if reasons.contains(.stop) { break }
            if reasons.contains(.storeFileWritten) { lookAtContent = true }
            if reasons.contains(.passFinished) { tidy = true }
            due = (reasons.isEmpty && sleep >= timer) || ContinuousClock.now - started >= .seconds(timer)
            if reasons.contains(.reload) {
                do {
                    let loaded = try ConfigLoader.load(path: context.configPath, named: true, environment: context.environment, err: context.err)
                    let config = AwaitNotificationCommand.listening(loaded, storePath: context.storePath, now: nil,
                                                                   environment: context.environment)
                    settings.config = config
                    settings.digestRenderer = SchedulerFactory.digestRenderer(context, config: config)
                    planner = SchedulerFactory.make(context, store: store, config: config)
                    context.err.flush()  // the loader's warnings before the log line
                    log.write("config reloaded from \(context.configPath)")
                } catch {
                    log.write("config not reloaded, keeping the old one: \(ErrorTranslator.translate(error).message)")
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
                    served?.1.warmFeed()
                }
            }
        }
        server?.stop()
        runner.waitForAll()
        heartbeat.remove(from: store)
        log.write("stopping: in-flight \(server == nil ? "" : "requests and ")deliveries finished")
        return ExitCode.ok
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
