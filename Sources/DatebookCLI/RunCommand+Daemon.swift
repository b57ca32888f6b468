import DatebookDaemon
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook run`: the daemon (`Daemon`, in DatebookDaemon) with this process's config and store, and the
/// web server of `serve` beside it with `--serve`.
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

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        // The passes' lines and this thread's go to stderr through one lock.
        let log = SerialLog(fd: STDERR_FILENO)
        if arguments.has("--listen"), !arguments.has("--serve") { throw UsageError(message: "--listen needs --serve", command: "run") }
        var host = Daemon.Host(
            storePath: context.storePath, configPath: context.configPath, config: context.config, calendar: context.calendar,
            environment: context.environment, version: Datebook.version, openStore: { try context.openStore() },
            scheduler: { SchedulerFactory.make(context, store: $0, config: $1) },
            digestRenderer: { SchedulerFactory.digestRenderer(context, config: $0) },
            reloadConfig: {
                let loaded = try ConfigLoader.load(path: context.configPath, named: true, environment: context.environment, err: context.err)
                let config = AwaitNotificationCommand.listening(loaded, storePath: context.storePath, now: nil,
                                                               environment: context.environment)
                context.err.flush()  // the loader's warnings before the log line
                return config
            },
            accounts: CommandLineAccounts(), log: { log.write($0) })
        if ArgumentScrub.hidPassword {
            host.notes.append("warning: the store's password was on the command line, where other users could read it (ps) until datebook "
                              + "hid it; give it in PGPASSFILE (~/.pgpass) or the config's store: { file: \"…\" } instead")
        }
        // SIGTERM is handled from here on: before the server answers, so a stop sent as soon as it
        // answers is never lost.
        let daemon = try Daemon(host)
        let served = arguments.has("--serve") ? try ServerLauncher.start(context, listen: arguments.value("--listen"),
                                                                              pinned: context.environment["DATEBOOK_NOW"] != nil || arguments.value("--now") != nil, log: log) : nil
        try daemon.run(server: served.map { server, site in Daemon.Server(storeChanged: { site.warmFeed() }, stop: { server.stop() }) })
        return ExitCode.ok
    }
}
