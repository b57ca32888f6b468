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
    ///   - scheduleName: the configured digest's name, for its subject (`datebook morning digest: …`).
    /// - Throws: `DigestError` (an unknown locale or template), `MustacheError` (a broken template)
    ///   or `CatalogError` (a broken `locales/LANG.json` in `overrideDirectory`).
    public static func make(_ input: DigestInput, locale: String?, overrideDirectory: String?, template: String? = nil,
                            format: MessageFormat = .text, key: String, scheduleName: String? = nil) throws -> OutgoingMessage {
        let renderer = try DigestRenderer(overrideDirectory: overrideDirectory)
        let language = try DigestLocale(identifier: locale ?? "en_US", timeZone: input.calendar.timeZone, catalogDirectory: overrideDirectory)
        let digest = DigestContext(input, locale: language)
        func body(_ wanted: DigestFormat) throws -> String {
            try renderer.render(digest, format: wanted, template: wanted.rawValue == format.rawValue ? template : nil)
        }
        let summary = digest.outline.summary
        var message = OutgoingMessage(kind: .digest, idempotencyKey: key,
                                      title: scheduleName.map { language.words.text("scheduledDigestSubject", ["name": $0, "summary": summary]) }
                                          ?? language.words.text("digestSubject", ["summary": summary]),
                                      text: try body(.text), markdown: try body(.markdown), html: try body(.html))
        // A named template is the user's own layout: services then show its body, not the outline.
        message.outline = template == nil ? digest.outline : nil
        return message
    }
}
