import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookStore
import Foundation

/// Builds the digest as a message for channels: the same templates as `datebook digest`, rendered
/// as text, Markdown and HTML, so each channel takes the body it can show.
enum DigestMessages {
    /// - Parameter template: a template name or path used for the channel's own format (optional).
    static func make(store: Store, name: String, context: Context, template: String? = nil,
                     format: MessageFormat = .text) throws -> OutgoingMessage {
        do {
            let renderer = try DigestRenderer(overrideDirectory: TemplatesCommand.overrideDirectory(context))
            let plan = DigestPlan(now: context.now, calendar: context.calendar, days: DigestPlan.defaultDays,
                                  lookBackDays: DigestPlan.defaultLookBackDays)
            let input = try DigestQuery.input(plan: plan, store: store, calendar: context.calendar)
            let locale = try DigestLocale(identifier: context.config.locale ?? "en_US", timeZone: context.timeZone)
            let digest = DigestContext(input, locale: locale)
            func body(_ wanted: DigestFormat) throws -> String {
                try renderer.render(digest, format: wanted, template: wanted.rawValue == format.rawValue ? template : nil)
            }
            var summary = ""
            if case .object(let fields) = digest.value, case .string(let text)? = fields["summary"] { summary = text }
            return OutgoingMessage(kind: .digest, idempotencyKey: "digest:\(name)",
                                   title: summary.isEmpty ? "datebook digest" : "datebook: " + summary,
                                   text: try body(.text), markdown: try body(.markdown), html: try body(.html))
        } catch let error as DigestError {
            throw error.isUsage ? CLIError.usage(error.description) : CLIError.data(error.description)
        } catch let error as MustacheError {
            throw CLIError.data(error.description)
        }
    }
}
