import DatebookCore
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
        a suspend or a clock step is handled like a missed tick). Store changes made by other datebook
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
        let store = try context.openStore()
        // The main thread only decides when to run a pass; it reads a few pages around now.
        try store.limitPageCache(kibibytes: 1024)
        // SIGTERM is handled from here on: before the server answers, so a stop sent as soon as it
        // answers is never lost.
        let wakeups = Wakeups(watchingStore: store.watchedFile, listener: store.changeListener(), log: { log.write($0) })
        let served = arguments.has("--serve") ? try ServerLauncher.start(context, listen: arguments.value("--listen"),
                                                                              pinned: context.environment["DATEBOOK_NOW"] != nil || arguments.value("--now") != nil, log: log) : nil
        let server = served?.0
        let runner = PassRunner(log: log) { [wakeups] in wakeups.post(.passFinished) }
        var planner = SchedulerFactory.make(context, store: store)
        var settings = PassRunner.Settings(storePath: context.storePath, config: context.config, calendar: context.calendar,
                                           environment: context.environment, options: planner.options,
                                           digestRenderer: SchedulerFactory.digestRenderer(context, config: context.config))
        var version = try store.dataVersion()
        var heartbeat = Heartbeat(started: Date())
        log.write("started (pid \(getpid()), store \(store.location)\(wakeups.watchesStore ? "" : ", store changes noticed within a minute"))")
        var due = true
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
            if changed, runner.untilQuiet <= .zero { due = true }
            if due, runner.start(settings) { changed = false }
            let now = Date()
            if due || heartbeat.isDue(now: now) { heartbeat.beat(store, now: now) }
            var sleep = min(maxSleep, heartbeat.nextBeat(now: now))
            if !changed || !runner.isBusy { next = try? planner.nextWake(after: now) }
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
            while reasons == [.storeChanged], changed, runner.isBusy, ContinuousClock.now - started < .seconds(sleep) {
                reasons = wakeups.wait(seconds: sleep - Self.seconds(ContinuousClock.now - started))
            }
            if reasons.contains(.stop) { break }
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
