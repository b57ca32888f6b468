import DatebookCore
import DatebookRender
import DatebookScheduler
import DatebookStore
import Foundation

/// `datebook digest [--format text|markdown|html] [--template NAME|PATH] [--days N] [--locale ID] [-o FILE]`
enum DigestCommand: Command {
    static let spec = CommandSpec(
        name: "digest", summary: "render the agenda as a text, Markdown or HTML digest",
        usage: "[--format text|markdown|html] [--template NAME|PATH] [--days N] [--locale ID] [-o FILE]",
        options: [
            .value("--format", "FORMAT", "text (default), markdown or html"),
            .value("--template", "NAME|PATH", "a template by name (user file or built-in) or a path to a file"),
            .value("--days", "N", "look ahead N days, 1–30 (default 30); later events count as Future"),
            .value("--overdue-days", "N", "look back N days for overdue events with open tasks (default 90)"),
            .value("--locale", "ID", "date words: en_US (default), de_DE, ja_JP, …"),
            .flag("--from-markdown", "with --format html: render the Markdown digest through cmark-gfm"),
            .value("--output", "FILE", short: "o", "write to FILE atomically instead of stdout"),
        ],
        examples: ["datebook digest", "datebook digest --format html -o ~/digest.html",
                   "datebook digest --format markdown --locale ja_JP", "datebook digest --template ./morning.md.mustache"],
        details: """
        Sections: Overdue (past \(DigestPlan.defaultLookBackDays) days, open tasks only), Today, Next 7 Days, Next 30 Days
        (\(DigestPlan.defaultSectionLimit) events each, then a count) and Future (the first \(DigestPlan.defaultFutureLimit)).
        A file in $XDG_CONFIG_HOME/datebook/templates/ with a built-in's name overrides it; see 'datebook templates'.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        do {
            let text = try render(arguments, context)
            if let path = arguments.value("--output") {
                try FileOutput.writeAtomically(text, to: XDGPaths.expand(path, context.environment))
            } else {
                context.out.write(text)
            }
            return ExitCode.ok
        } catch let error as DigestError {
            throw error.isUsage ? CLIError.usage(error.description) : CLIError.data(error.description)
        } catch let error as MustacheError {
            throw CLIError.data(error.description)
        }
    }

    static func render(_ arguments: ParsedArguments, _ context: Context) throws -> String {
        let template = arguments.value("--template")
        let format: DigestFormat
        if let name = arguments.value("--format") {
            format = try DigestFormat(name: name)
        } else {
            format = template.flatMap(DigestFormat.guess(fromTemplate:)) ?? .text
        }
        let days = try number(arguments, "--days", default: DigestPlan.defaultDays, in: 1...30)
        let lookBack = try number(arguments, "--overdue-days", default: DigestPlan.defaultLookBackDays, in: 0...3660)
        let locale = try DigestLocale(identifier: arguments.value("--locale") ?? context.config.locale ?? "en_US", timeZone: context.timeZone)
        let fromMarkdown = arguments.has("--from-markdown")
        if fromMarkdown, format != .html {
            throw CLIError.usage("--from-markdown renders HTML; use it with --format html")
        }
        let renderer = try DigestRenderer(overrideDirectory: TemplatesCommand.overrideDirectory(context))
        let plan = DigestPlan(now: context.now, calendar: context.calendar, days: days, lookBackDays: lookBack)
        let input = try DigestQuery.input(plan: plan, store: context.openStore(readOnly: true), calendar: context.calendar)
        let digest = DigestContext(input, locale: locale)
        if fromMarkdown { return try renderer.renderHTMLFromMarkdown(digest, template: template) }
        return try renderer.render(digest, format: format, template: template)
    }

    static func number(_ arguments: ParsedArguments, _ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = arguments.value(name) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw CLIError.usage("\(name) expects a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return n
    }
}
