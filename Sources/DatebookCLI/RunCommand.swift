import DatebookCore
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook run`: the daemon. Sleeps until the next due moment, then runs a pass like `tick`.
enum RunCommand: Command {
    static let spec = CommandSpec(
        name: "run", summary: "run as a daemon: deliver alerts and digests when they are due",
        usage: "", examples: ["datebook run", "systemctl --user enable --now datebook.service"],
        details: """
        Sleeps until the next alert, digest or retry (re-checking the wall clock at least once a minute, so
        a suspend or a clock step is handled like a missed tick). Store changes made by other datebook
        commands wake it at once. SIGHUP reloads the config; SIGTERM or SIGINT let the deliveries in flight
        finish (each is bounded by its channel's timeout) and exit 0. One line per delivery on stderr.
        """
    )

    /// The longest sleep: a wall-clock step or suspend is noticed within this.
    static let maxSleep: TimeInterval = 60

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let log = SchedulerFactory.logger(context)
        let store = try context.openStore()
        // A pass reads a few pages around now; a small cache keeps the idle daemon small.
        try store.limitPageCache(kibibytes: 2048)
        let directory = (store.path as NSString).deletingLastPathComponent
        let wakeups = Wakeups(watching: directory.isEmpty ? "." : directory)
        var scheduler = SchedulerFactory.make(context, store: store, log: log)
        var version = try store.dataVersion()
        log("started (pid \(getpid()), store \(store.path)\(wakeups.watchesStore ? "" : ", store changes noticed within a minute"))")
        var due = true
        while true {
            if due {
                do {
                    try scheduler.tick(now: Date())
                } catch {
                    log("pass failed: \(ErrorTranslator.translate(error).message); retrying within a minute")
                }
            }
            let now = Date()
            var sleep = maxSleep
            if let next = try? scheduler.nextWake(after: now) {
                // A few milliseconds past the due second, so the pass sees it as due.
                sleep = min(maxSleep, max(0, next.timeIntervalSince(now) + 0.005))
            }
            let started = ContinuousClock.now
            let reasons = wakeups.wait(seconds: sleep)
            if reasons.contains(.stop) { break }
            due = reasons.isEmpty || ContinuousClock.now - started >= .seconds(sleep)
            if reasons.contains(.reload) {
                do {
                    let config = try ConfigLoader.load(path: context.configPath, named: true, environment: context.environment, err: context.err)
                    scheduler = SchedulerFactory.make(context, store: store, config: config, log: log)
                    log("config reloaded from \(context.configPath)")
                } catch {
                    log("config not reloaded, keeping the old one: \(ErrorTranslator.translate(error).message)")
                }
                due = true
            }
            if reasons.contains(.storeChanged), let current = try? store.dataVersion(), current != version {
                version = current
                due = true
            }
        }
        log("stopping: in-flight deliveries finished")
        return ExitCode.ok
    }
}
