import DatebookCore
import DatebookDelivery
import Foundation

/// The digest as a message for channels: the same templates as `datebook digest`, rendered as
/// text, Markdown and HTML, so each channel takes the body it can show.
public enum DigestMessage {
    /// - Parameters:
    ///   - input: what the digest shows, read by the caller (`DigestQuery`).
    ///   - template: a template name or path, used for `format`'s body (the others use the built-ins).
    ///   - key: the ledger key, used as the message's idempotency key.
    /// - Throws: `DigestError` (an unknown locale or template) or `MustacheError` (a broken template).
    public static func make(_ input: DigestInput, locale: String?, overrideDirectory: String?, template: String? = nil,
                            format: MessageFormat = .text, key: String) throws -> OutgoingMessage {
        let renderer = try DigestRenderer(overrideDirectory: overrideDirectory)
        let digest = DigestContext(input, locale: try DigestLocale(identifier: locale ?? "en_US", timeZone: input.calendar.timeZone))
        func body(_ wanted: DigestFormat) throws -> String {
            try renderer.render(digest, format: wanted, template: wanted.rawValue == format.rawValue ? template : nil)
        }
        var summary = ""
        if case .object(let fields) = digest.value, case .string(let text)? = fields["summary"] { summary = text }
        return OutgoingMessage(kind: .digest, idempotencyKey: key,
                               title: summary.isEmpty ? "datebook digest" : "datebook: " + summary,
                               text: try body(.text), markdown: try body(.markdown), html: try body(.html))
    }
}
