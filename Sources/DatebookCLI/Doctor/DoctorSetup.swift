import DatebookDelivery
import DatebookRender
import DatebookScheduler
import Foundation

/// `datebook doctor`'s checks of the config file, its secrets, the time zone and the locale.
enum DoctorSetup {
    static func config(_ context: Context) -> [Finding] {
        let path = context.configPath
        if let problem = context.setupProblems.config { return [.fail("config", problem)] }
        guard FileManager.default.fileExists(atPath: path) else {
            return [.ok("config", "none at \(path): a local store, output on stdout only")]
        }
        let config = context.config
        var findings: [Finding] = [.ok("config", "\(path) parses (\(count(config.channels.count, "channel")), "
                                       + "\(count(config.digests.count, "digest")), \(count(config.feeds.count, "feed")))")]
        if let mode = ConfigLoader.openMode(path) {
            let fix = "; run: chmod 600 \(path)"
            findings.append(config.channels.contains(where: \.hasInlineSecret)
                ? .fail("config", "\(path) holds an inline secret and is readable by others (mode \(mode))" + fix)
                : .warn("config", "\(path) is readable by others (mode \(mode))" + fix))
        }
        return findings
    }

    /// One line per secret read from the environment or a file: whether it resolves (never its
    /// value), and whether a secret file is readable by others.
    static func secrets(_ context: Context) -> [Finding] {
        // A channel's missing secret is a channel that cannot send (69); a feed's is bad set-up data (65).
        let owners = context.config.channels.flatMap { channel in channel.secretSources.map { (channel.label, $0, true) } }
            + context.config.feeds.map { ("feed '\($0.name)'", $0.source, false) }
        var findings: [Finding] = []
        for (owner, source, isChannel) in owners where !source.isInline {
            let subject = "secret " + source.description
            do {
                _ = try source.resolve(environment: context.environment)
                findings.append(.ok(subject, "resolves (\(owner))"))
            } catch {
                findings.append(.fail(subject, "\(error) (\(owner))", unavailable: isChannel))
                continue
            }
            if case .file(let path) = source, let mode = ConfigLoader.openMode(path) {
                findings.append(.warn(subject, "\(path) is readable by others (mode \(mode)); run: chmod 600 \(path)"))
            }
        }
        return findings
    }

    static func zoneAndLocale(_ context: Context) -> [Finding] {
        var findings: [Finding] = []
        if let problem = context.setupProblems.timeZone {
            findings.append(.fail("time zone", problem))
        } else {
            findings.append(.ok("time zone", context.timeZone.identifier))
        }
        let locale = context.config.locale ?? "en_US"
        do {
            let known = try DigestLocale(identifier: locale, timeZone: context.timeZone,
                                         catalogDirectory: TemplatesCommand.overrideDirectory(context))
            let words = known.words.language == "en" || MessageCatalog.hasBuiltIn(language: known.words.language)
                ? "" : ", words in English (no catalogue for '\(known.words.language)')"
            findings.append(.ok("locale", known.identifier + (context.config.locale == nil ? " (the default)" : "") + words))
        } catch let error as CatalogError {
            findings.append(.fail("locale", error.description))
        } catch {
            findings.append(.fail("locale", "config: \(error)"))
        }
        return findings
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
