import DatebookCore
import DatebookDelivery
import DatebookRender
import Foundation

/// `datebook channels [test NAME]`: list the configured channels, or send a test message to one.
enum ChannelsCommand: Command {
    static let spec = CommandSpec(
        name: "channels", summary: "list configured channels, or send a test message", usage: "[test NAME] [--dry-run]",
        options: [.flag("--dry-run", "with test: print what would be sent, send nothing")],
        positionals: 0...2,
        examples: ["datebook channels", "datebook channels test team"],
        details: "Secrets are never shown: URLs print as https://host/****, secret sources as {env: NAME}."
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let words = arguments.positionals
        if words.isEmpty { return list(context) }
        guard words[0] == "test" else {
            throw UsageError(message: "unknown channels action '\(words[0])'" + Suggestion.hint(for: words[0], in: ["test"]) + "; expected test", command: "channels")
        }
        guard words.count == 2 else { throw UsageError(message: "'channels test' needs a channel NAME", command: "channels") }
        let channel = try InteractiveDelivery.channels([words[1]], context)[0]
        let delivery = InteractiveDelivery(context: context, wait: 10)
        let items = [InteractiveDelivery.Item(channel: channel, message: testMessage(to: channel, context))]
        if arguments.has("--dry-run") { return delivery.dryRun(items) }
        return delivery.report(items, delivery.deliver(items))
    }

    /// The message `channels test` and `doctor --send` send: it names the channel and the time.
    static func testMessage(to channel: Channel, _ context: Context) -> OutgoingMessage {
        let stamp = ISOInstant.format(context.now, in: context.timeZone)
        let words = (try? context.words()) ?? .english
        let text = words.text("testMessage", ["channel": channel.label, "time": stamp])
        return OutgoingMessage(kind: .test, idempotencyKey: "test:\(channel.name):\(ISOInstant.format(context.now))",
                               title: words.text("testTitle"), text: text, markdown: text, html: "<p>\(MustacheEscaper.html(text))</p>")
    }

    /// Why nothing is delivered without a config, and where the config goes.
    static func noChannels(_ context: Context) -> String {
        "No channels configured. Without a config datebook prints to stdout only;\n"
            + "run 'datebook config init' and 'datebook config add-channel TYPE NAME' to make \(context.configPath)\n"
            + "(every key: \(ExampleConfig.location())).\n"
    }

    static func list(_ context: Context) -> Int32 {
        let channels = context.config.channels
        guard !channels.isEmpty else {
            context.out.write(noChannels(context))
            return ExitCode.ok
        }
        for channel in channels {
            var line = "  " + TextWidth.pad(channel.name, to: 12) + " " + TextWidth.pad(channel.type, to: 10) + " " + destination(channel)
            if let problem = problem(channel, context) { line += "  (unavailable: \(problem))" }
            if channel.insecure { line += "  (TLS verification off)" }
            context.out.write(line + "\n")
        }
        return ExitCode.ok
    }

    /// Where a channel sends to, with every secret hidden.
    static func destination(_ channel: Channel) -> String {
        func source(_ secret: SecretSource) -> String {
            if case .inline(let value) = secret { return redactURL(value) }
            return secret.description
        }
        switch channel.kind {
        case .slack(let url), .teams(let url), .discord(let url, _), .mattermost(let url, _): return source(url)
        case .webhook(let url, let secret): return source(url) + (secret == nil ? "" : " (signed)")
        case .ntfy(let server, let topic, _, _, _): return redactURL(server) + " topic " + (topic.isInline ? "****" : topic.description)
        case .email(let smtp, _, _, _, let to, _): return redactURL(smtp) + " → " + to.joined(separator: ", ")
        case .command(let argv): return argv.first ?? ""
        case .desktop(let options): return options.command + " (urgency " + options.urgency.rawValue + ")"
        case .file(let path, let format): return path + " (" + format.rawValue + ")"
        }
    }

    /// Why a channel cannot be used right now (missing secret), or nil.
    static func problem(_ channel: Channel, _ context: Context) -> String? {
        let probe = OutgoingMessage(kind: .test, idempotencyKey: "probe", title: "", text: "", markdown: "")
        do {
            _ = try Dispatcher(environment: context.environment, now: context.now, timeZone: context.timeZone).prepare(probe, for: channel)
            return nil
        } catch {
            let text = "\(error)"
            return text.hasPrefix(channel.label + ": ") ? String(text.dropFirst(channel.label.count + 2)) : text
        }
    }
}
