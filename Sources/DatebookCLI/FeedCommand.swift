import DatebookCore
import DatebookDaemon
import DatebookDelivery
import DatebookInterchange
import DatebookStore
import Foundation

/// `datebook feed add|list|refresh|rm`: subscribed calendars (iCalendar or planner JSON).
enum FeedCommand: Command {
    static let actions = ["add", "list", "refresh", "rm"]

    static let spec = CommandSpec(
        name: "feed", aliases: ["feeds"], summary: "subscribe to calendars by URL or path, refresh them",
        usage: "add NAME URL|PATH [--every 30m] | list | refresh [NAME] | rm NAME",
        options: [.value("--every", "DURATION", "how often the scheduler refreshes it (default 30m)"),
                  .flag("--keep", "add the feed even when its first fetch fails (later refreshes try again)")],
        positionals: 0...3,
        examples: ["datebook feed add work https://calendar.example.org/work.ics --every 1h",
                   "datebook feed add holidays ~/calendars/holidays.ics", "datebook feed refresh", "datebook feed rm work"],
        details: """
        A feed's events are read-only; attach tasks to them with 'datebook task add', or a symbol
        or colour with 'datebook edit EVENT --symbol … --event-color …': these survive refreshes.
        'feed add' fetches the feed at once; when that fails the feed is not added (exit 65)
        unless --keep is given. A failed refresh keeps the last good copy. URLs must be https://
        or http://.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals
        let action = try Subcommands.action(words, command: "feed", counts: [("add", 3...3), ("list", 0...1), ("refresh", 1...2), ("rm", 2...2)],
                                            usage: spec.usage)
        let store = try context.openStore()
        switch action {
        case "add": return try add(name: words[1], source: words[2], arguments, store, context)
        case "rm":
            guard try store.removeFeed(named: words[1]) else { throw try noSuchFeed(words[1], store) }
            context.out.write("removed feed '\(words[1])' and its events\n")
            return ExitCode.ok
        case "refresh": return try refresh(words.count > 1 ? words[1] : nil, store, context)
        default: return try list(store, context)
        }
    }

    static func add(name: String, source: String, _ arguments: ParsedArguments, _ store: any PlannerStore, _ context: Context) throws -> Int32 {
        try Subcommands.checkName(name, what: "feed")
        var location = source
        let lowered = source.lowercased()
        if !lowered.hasPrefix("https://"), !lowered.hasPrefix("http://") {
            if lowered.range(of: "^[a-z][a-z0-9+.-]*://", options: .regularExpression) != nil {
                throw CLIError.usage("feed URL '\(source)': only https:// and http:// URLs (or a local path) are allowed")
            }
            location = XDGPaths.expand(source, context.environment)
            if !location.hasPrefix("/") { location = FileManager.default.currentDirectoryPath + "/" + location }
            // `./work.ics` is stored as `/cwd/work.ics`; `..` stays, as a symlink may sit before it.
            location = "/" + location.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        }
        let every = try Subcommands.every(arguments, default: 30 * 60)
        let feed = Feed(name: name, source: location, every: every)
        guard try store.addFeed(feed) else {
            throw CLIError.usage("a feed named '\(name)' exists already; 'datebook feed rm \(name)' first to replace it")
        }
        let added = "added feed '\(name)' (\(FeedHTTP.redacted(location))), refreshed every \(LeadTime(seconds: every).description)\n"
        let outcome = try refresher(store, context).refresh(feed: feed, now: context.now)
        guard case .failed(let error) = outcome else {
            context.out.write(added)
            report(outcome, of: feed, context)
            return ExitCode.ok
        }
        if arguments.has("--keep") {
            context.out.write(added)
            context.err.write("datebook: warning: \(error); kept (--keep) with no events yet: 'datebook feed refresh \(name)' tries again\n")
            return ExitCode.ok
        }
        _ = try store.removeFeed(named: name)
        throw CLIError.data("feed '\(name)' not added: \(error.message); check the URL or path, or add it anyway with --keep")
    }

    static func refresher(_ store: any PlannerStore, _ context: Context) -> FeedRefresher {
        FeedRefresher(store: store, timeZone: context.timeZone,
                      fetch: FeedHTTP.fetcher(client: HTTPClient(), caInfo: context.environment["DATEBOOK_CA_FILE"]))
    }

    /// One line per refreshed feed on stdout (warnings on stderr).
    static func report(_ outcome: FeedRefreshOutcome, of feed: Feed, _ context: Context) {
        switch outcome {
        case .unchanged:
            context.out.write("feed '\(feed.name)': unchanged\n")
        case let .updated(count, warnings):
            for warning in warnings { context.err.write("datebook: warning: feed '\(feed.name)': \(warning)\n") }
            context.out.write("feed '\(feed.name)': \(count) event\(count == 1 ? "" : "s")\n")
        case .failed:
            break
        }
    }

    static func refresh(_ name: String?, _ store: any PlannerStore, _ context: Context) throws -> Int32 {
        let feeds: [Feed]
        if let name {
            guard let feed = try store.feed(named: name) else { throw try noSuchFeed(name, store) }
            feeds = [feed]
        } else {
            feeds = try store.feeds()
        }
        let feedRefresher = refresher(store, context)
        var failed: [String] = []
        for feed in feeds {
            let outcome = try feedRefresher.refresh(feed: feed, now: context.now)
            report(outcome, of: feed, context)
            guard case .failed(let error) = outcome else { continue }
            failed.append(feed.lastSuccess == nil
                ? "\(error); it has no events yet ('datebook feed rm \(feed.name)' removes it)"
                : "\(error); the last good copy is kept")
        }
        guard let last = failed.last else { return ExitCode.ok }
        for message in failed.dropLast() { context.err.write("datebook: \(message)\n") }
        throw CLIError(message: last, code: ExitCode.temporaryFailure)
    }

    static func list(_ store: any PlannerStore, _ context: Context) throws -> Int32 {
        let feeds = try store.feeds()
        if feeds.isEmpty {
            context.out.write("No feeds. Add one with 'datebook feed add NAME URL|PATH'.\n")
            return ExitCode.ok
        }
        for feed in feeds {
            let checked = feed.lastChecked.map { Rows.when(.instant($0), context) } ?? "never"
            var line = "\(feed.name)  \(FeedHTTP.redacted(feed.source))  every \(LeadTime(seconds: feed.every))  \(feed.eventCount) events  checked \(checked)"
            if let error = feed.lastError { line += "  FAILED: " + error }
            context.out.write(line + "\n")
        }
        return ExitCode.ok
    }

    static func noSuchFeed(_ name: String, _ store: any PlannerStore) throws -> CLIError {
        let names = try store.feeds().map(\.name)
        return CLIError.usage("no feed named '\(name)'" + Suggestion.hint(for: name, in: names) + "; 'datebook feed list' shows them")
    }

    /// Feed events are read-only: only symbol, colour and tasks (kept across refreshes) may change.
    static func refuseChange(of event: Event, verb: String, in store: any PlannerStore, arguments: ParsedArguments? = nil) throws {
        guard let feed = try store.feedName(ofEvent: event.id) else { return }
        let cosmetic: Set<String> = ["--symbol", EventOptions.eventColor, "--color", "--task", "--store", "--now", "--tz", "--config"]
        if let arguments, arguments.flags.isEmpty, arguments.values.keys.allSatisfy(cosmetic.contains) { return }
        throw CLIError.usage("cannot \(verb) '\(TextWidth.clean(event.title))': it comes from feed '\(feed)' and is read-only; "
                             + "change it at its source, or attach tasks ('datebook task add'), a --symbol or an --event-color")
    }
}
