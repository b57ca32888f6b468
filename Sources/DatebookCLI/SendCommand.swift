import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookScheduler
import Foundation

/// `datebook send digest|alert …`: render and deliver now to named channels.
enum SendCommand: Command {
    static let targets = ["digest", "alert"]

    static let spec = CommandSpec(
        name: "send", summary: "send the digest or one event's alert to channels now",
        usage: "digest --channel NAME… [--format text|markdown|html] [--dry-run] | alert EVENT --channel NAME… [--dry-run]",
        options: [.value("--channel", "NAME", repeatable: true, "a configured channel (repeatable)"),
                  .value("--format", "FORMAT", "digest format for file channels: text, markdown or html"),
                  .value("--wait", "DURATION", "keep retrying transient failures this long (default 30s)"),
                  .flag("--dry-run", "print exactly what would be sent (secrets hidden), send nothing")],
        positionals: 1...2,
        examples: ["datebook send digest --channel mail --channel notes", "datebook send alert Pagliacci --channel team --dry-run"],
        details: "Exit codes: 0 all sent, 69 a channel is unavailable or refused, 75 a transient failure outlasted --wait."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let what = arguments.positionals[0]
        guard targets.contains(what) else {
            throw UsageError(message: "unknown send target '\(what)'" + Suggestion.hint(for: what, in: targets) + "; expected digest or alert", command: "send")
        }
        var channels = try InteractiveDelivery.channels(arguments.all("--channel"), context)
        var delivery = InteractiveDelivery(context: context)
        if let wait = arguments.value("--wait") {
            guard let lead = LeadTime(duration: wait) else { throw CLIError.usage("cannot read --wait '\(wait)': expected a duration like 30s or 2m") }
            delivery.wait = TimeInterval(lead.days * 86_400 + lead.seconds)
        }
        // With serve.baseURL an alert's links are signed with the store's key, made on first use
        // (not by a dry run, which writes nothing: it shows links once the key exists).
        let dryRun = arguments.has("--dry-run")
        let base = what == "alert" ? context.config.serve.baseURL : nil
        let store = try context.openStore(readOnly: base == nil || dryRun)
        let items: [InteractiveDelivery.Item]
        if what == "alert" {
            guard arguments.positionals.count == 2 else { throw UsageError(message: "'send alert' needs an EVENT", command: "send") }
            let event = try EventResolver.resolve(arguments.positionals[1], in: store, context: context)
            let occurrence = Occurrence(event: event, calendar: context.calendar)
            let links = try base.flatMap { try ActionLinkIssuer(baseURL: $0, store: store, now: context.now, makingKey: !dryRun) }
            let words = try context.words()
            items = channels.map { channel in
                var message = AlertMessage.make(occurrence, lead: nil, channel: channel.name, calendar: context.calendar,
                                                words: words)
                message.actions = links?.actions(eventID: event.id, occurrenceStart: occurrence.start, channel: channel.name,
                                                 now: context.now, labels: message.labels) ?? []
                return .init(channel: channel, message: message)
            }
        } else {
            guard arguments.positionals.count == 1 else {
                throw UsageError(message: "unexpected argument '\(arguments.positionals[1])' for 'send digest'", command: "send")
            }
            if let name = arguments.value("--format") {
                guard let format = MessageFormat(rawValue: name) else {
                    throw CLIError.usage("unknown format '\(name)'" + Suggestion.hint(for: name, in: MessageFormat.allCases.map(\.rawValue))
                                         + "; expected text, markdown or html")
                }
                channels = channels.map { channel in
                    guard case .file(let path, _) = channel.kind else { return channel }
                    var changed = channel
                    changed.kind = .file(path: path, format: format)
                    return changed
                }
            }
            let plan = DigestPlan(now: context.now, calendar: context.calendar)
            let input = try DigestQuery.input(plan: plan, store: store, calendar: context.calendar)
            let digest = try DigestMessage.make(input, locale: context.config.locale,
                                                overrideDirectory: TemplatesCommand.overrideDirectory(context), key: "digest:now")
            // The key names the content: a second, different digest the same day is a message of its
            // own (a receiver or mail provider that deduplicates by it must not hide it); the same
            // digest sent again keeps its key.
            let content = SHA256.hash(Data((digest.title + "\u{0}" + digest.text + "\u{0}" + digest.markdown).utf8)).hexString.prefix(16)
            items = channels.map { channel in
                var message = digest
                message.idempotencyKey = "digest:now:\(CalendarDate(context.now, in: context.timeZone)):\(content):\(channel.name)"
                return .init(channel: channel, message: message)
            }
        }
        if arguments.has("--dry-run") { return delivery.dryRun(items) }
        return delivery.report(items, delivery.deliver(items))
    }
}
