import DatebookDaemon
import DatebookDelivery
import DatebookRender
import DatebookScheduler
import DatebookServer
import DatebookStore
import Foundation

/// `datebook serve`: the planner on the web, as pages, an iCalendar feed and a JSON API.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve", summary: "serve the planner on the web: pages, an iCalendar feed and a JSON API",
        usage: "[--listen HOST:PORT]",
        options: [.value("--listen", "HOST:PORT", "where to listen (default: serve.listen, else 127.0.0.1:8650; port 0 picks a free one)")],
        examples: ["datebook serve", "datebook serve --listen 127.0.0.1:0", "DATEBOOK_TOKEN=… datebook serve --listen 0.0.0.0:8650"],
        details: """
        Listens on 127.0.0.1:8650 unless --listen or the config's serve.listen says otherwise, and prints the
        address it is bound to on stderr; a port another process listens on is refused ("address in use",
        with its pid when known). Anything but a loopback address requires serve.token (128 bits or more).
        One line per request on stderr (client address, method, path without the query and with tokens as
        ****, status, milliseconds) unless serve.accessLog is false. GET /healthz answers 200.
        SIGTERM or SIGINT let the requests in flight finish and exit 0. See docs/serve.md.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let log = SerialLog(fd: STDERR_FILENO)
        let pinned = arguments.value("--now") != nil || context.environment["DATEBOOK_NOW"] != nil
        // SIGTERM is handled from here on: before the server answers, so a stop sent as soon as it
        // answers is never lost.
        let wakeups = Wakeups(watchingStore: SQLDialect.of(location: context.storePath).hasFile ? context.storePath : nil)
        let (server, site) = try ServerLauncher.start(context, listen: arguments.value("--listen"), pinned: pinned, log: log)
        while true {
            let reasons = wakeups.wait(seconds: 3600)
            if reasons.contains(.stop) { break }
            if reasons.contains(.storeChanged) { site.warmFeed() }
        }
        server.stop()
        log.write("stopping: in-flight requests finished")
        return ExitCode.ok
    }
}

/// Starts the web server for `serve` and `run --serve` from the config: the address, the token rule,
/// the planner's site and the action links (both in the Server room).
enum ServerLauncher {
    static func start(_ context: Context, listen option: String?, pinned: Bool = false, log: SerialLog) throws -> (WebServer, PlannerSite) {
        let text = option ?? context.config.serve.listen ?? ListenAddress.standard.description
        guard let listen = ListenAddress(text) else {
            throw CLIError.usage("\(option == nil ? "serve.listen" : "--listen"): expected HOST:PORT with a numeric address like 127.0.0.1:8650 or [::1]:8650, got '\(text)'")
        }
        let token = try resolveToken(context.config.serve.token, "serve.token", context)
        if let token, let weakness = TokenStrength.weakness(token.value, key: "serve.token") {
            throw CLIError(message: weakness, code: ExitCode.usage)
        }
        if !listen.isLoopback, token == nil {
            throw CLIError(message: "refusing to listen on \(listen) without a token: anything but loopback requires serve.token in \(context.configPath) (e.g. token: { env: \"DATEBOOK_TOKEN\" })",
                           code: ExitCode.usage)
        }
        // The store is created (and its recurrences expanded) once here; requests open it without writing its schema.
        _ = try context.openStore()
        let feedToken = try resolveToken(context.config.serve.feedToken, "serve.feedToken", context)
        let settings = SiteSettings(storePath: context.storePath, calendar: context.calendar, pinnedNow: pinned ? context.now : nil,
                                    templates: TemplatesCommand.overrideDirectory(context), baseURL: context.config.serve.baseURL,
                                    feedToken: feedToken?.value)
        let locale = try DigestLocale(identifier: context.config.locale ?? "en_US", timeZone: context.timeZone, catalogDirectory: settings.templates)
        let baseURL = context.config.serve.baseURL
        let auth = SiteAuth(token: token?.value, secureCookie: baseURL?.hasPrefix("https:") == true, baseURL: baseURL, words: locale.words)
        let site = try PlannerSite(settings: settings, auth: auth, locale: locale)
        // Known before the first request can render a link (port 0 is known only once bound, below).
        site.served(at: listen)
        let server: WebServer
        do {
            var routes = site.routes()
            let pinnedNow = pinned ? context.now : nil
            var actionLinks = ActionLinkRoutes(storePath: context.storePath, calendar: context.calendar, renderer: site.renderer,
                                               words: site.words, lang: site.lang, clock: { pinnedNow ?? Date() })
            actionLinks.alertChannels = context.config.alerts.channels
            routes.merge(actionLinks.routes)
            var serverSettings = ServerSettings(listen: listen)
            serverSettings.hostNames = baseURL.flatMap { URL(string: $0)?.host }.map { [$0] } ?? []
            serverSettings.accessLog = context.config.serve.accessLog
            serverSettings.trustedProxies = context.config.serve.trustedProxies
            if let workers = context.config.serve.workers { serverSettings.threads = workers }
            server = try WebServer(settings: serverSettings, routes: routes, log: { log.write($0) })
        } catch let error as ServerError {
            throw CLIError(message: error.description, code: ExitCode.unavailable)
        }
        site.served(at: server.address)
        log.write("serving on http://\(server.address) (pid \(getpid()))")
        site.warmFeed()
        return (server, site)
    }

    /// A configured token, read now (a missing variable or file is an error naming it, never the value).
    static func resolveToken(_ source: SecretSource?, _ key: String, _ context: Context) throws -> Secret? {
        guard let source else { return nil }
        do {
            let secret = try source.resolve(environment: context.environment)
            guard !secret.value.isEmpty else { throw CLIError.data("\(key) \(source) is empty") }
            return secret
        } catch let error as ChannelError {
            throw CLIError(message: "\(key): \(error)", code: ExitCode.unavailable)
        }
    }
}
