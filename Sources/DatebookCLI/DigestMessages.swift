import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookScheduler
import DatebookStore
import Foundation

/// Builds the digest as a message for channels: the same templates as `datebook digest`, rendered
/// as text, Markdown and HTML, so each channel takes the body it can show.
enum DigestMessages {
    /// The digest for `send digest` (now, from the command's context).
    static func make(store: any PlannerStore, name: String, context: Context, template: String? = nil,
                     format: MessageFormat = .text) throws -> OutgoingMessage {
        try make(store: store, now: context.now, calendar: context.calendar, locale: context.config.locale,
                 overrideDirectory: TemplatesCommand.overrideDirectory(context), template: template, format: format,
                 key: "digest:\(name)")
    }

    /// - Parameters:
    ///   - template: a template name or path, used for `format`'s body (the others use the built-ins).
    static func make(store: any PlannerStore, now: Date, calendar: Calendar, locale: String?, overrideDirectory: String,
                     template: String?, format: MessageFormat, key: String) throws -> OutgoingMessage {
        do {
            let renderer = try DigestRenderer(overrideDirectory: overrideDirectory)
            let plan = DigestPlan(now: now, calendar: calendar, days: DigestPlan.defaultDays,
                                  lookBackDays: DigestPlan.defaultLookBackDays)
            let input = try DigestQuery.input(plan: plan, store: store, calendar: calendar)
            let digest = DigestContext(input, locale: try DigestLocale(identifier: locale ?? "en_US", timeZone: calendar.timeZone))
            func body(_ wanted: DigestFormat) throws -> String {
                try renderer.render(digest, format: wanted, template: wanted.rawValue == format.rawValue ? template : nil)
            }
            var summary = ""
            if case .object(let fields) = digest.value, case .string(let text)? = fields["summary"] { summary = text }
            return OutgoingMessage(kind: .digest, idempotencyKey: key,
                                   title: summary.isEmpty ? "datebook digest" : "datebook: " + summary,
                                   text: try body(.text), markdown: try body(.markdown), html: try body(.html))
        } catch let error as DigestError {
            throw error.isUsage ? CLIError.usage(error.description) : CLIError.data(error.description)
        } catch let error as MustacheError {
            throw CLIError.data(error.description)
        }
    }
}

/// The scheduler's digests rendered from the templates, like `datebook digest` at the digest's moment.
///
/// Holds only paths and settings (Sendable); each render opens the store read-only, since digests
/// are rare and the scheduler may render from its own thread.
struct TemplateDigestRenderer: DigestRendering {
    var storePath: String
    var overrideDirectory: String
    var locale: String?

    func render(_ request: DigestRequest) throws -> OutgoingMessage {
        let store = try StoreOpener.open(storePath, readOnly: true)
        var message = try DigestMessages.make(store: store, now: request.now, calendar: request.calendar, locale: locale,
                                              overrideDirectory: overrideDirectory, template: request.schedule.template,
                                              format: request.schedule.format, key: request.key)
        message.title = "datebook \(request.schedule.name) digest: " + message.title.replacingOccurrences(of: "datebook: ", with: "")
        return message
    }
}
