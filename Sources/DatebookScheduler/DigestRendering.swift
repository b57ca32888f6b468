import DatebookCore
import DatebookDelivery
import DatebookRender
import Foundation

/// The seam where the digest renderer (DatebookRender) plugs into the scheduler.
///
/// The scheduler calls `render` once per digest delivery with what the digest shows as of its
/// moment (read by the scheduler from its own store: `DigestQuery`) and the channel's format; the
/// result goes to the channel like any other message. `TemplateDigestRenderer` renders the
/// templates of `datebook digest`; `PlainDigestRenderer` is the fallback: the sections as plain
/// text (Markdown-safe).
public protocol DigestRendering: Sendable {
    func render(_ request: DigestRequest) throws -> OutgoingMessage
}

/// Everything a digest renderer gets: the schedule (name, format, template), the date, what the
/// digest shows and the calendar of the configured zone.
public struct DigestRequest: Sendable {
    public var schedule: DigestSchedule
    public var date: CalendarDate
    public var channel: String
    /// The digest's sections, calendar days and totals, as of `now`.
    public var input: DigestInput
    public var now: Date
    public var calendar: Calendar
    /// The ledger key, to be used as the message's idempotency key.
    public var key: String
}

/// The scheduler's digests rendered from the templates, like `datebook digest` at the digest's moment.
public struct TemplateDigestRenderer: DigestRendering {
    /// Where a user's templates override the built-in ones.
    public var overrideDirectory: String?
    /// The digest's locale (`en_US` when nil).
    public var locale: String?

    public init(overrideDirectory: String?, locale: String?) {
        self.overrideDirectory = overrideDirectory
        self.locale = locale
    }

    public func render(_ request: DigestRequest) throws -> OutgoingMessage {
        try DigestMessage.make(request.input, locale: locale, overrideDirectory: overrideDirectory, template: request.schedule.template,
                               format: request.schedule.format, key: request.key, scheduleName: request.schedule.name)
    }
}

/// The fallback digest: title line plus the digest's sections as plain text.
public struct PlainDigestRenderer: DigestRendering {
    public init() {}

    public func render(_ request: DigestRequest) throws -> OutgoingMessage {
        var text = ""
        for section in request.input.windows where !section.occurrences.isEmpty {
            let open = MessageCatalog.number(section.openTasks, capped: section.capped)
            text += "\(section.kind.title)\(section.openTasks > 0 ? " (\(open) open)" : "")\n"
            for occurrence in section.occurrences {
                let local = LocalTime(occurrence.start, in: request.calendar.timeZone)
                let when = occurrence.event.start.isAllDay ? local.date.description + "      " : local.listFormat
                let badge = Badge.text(occurrence.event)
                text += "  \(when)  \(occurrence.event.symbol.emoji) \(TextWidth.clean(occurrence.event.title))\(badge.isEmpty ? "" : "  " + badge)\n"
            }
        }
        if text.isEmpty { text = "Nothing coming up.\n" }
        let title = "datebook \(request.schedule.name) digest for \(request.date.weekdayName) \(request.date)"
        let html = "<h1>" + MustacheEscaper.html(title) + "</h1><pre>" + MustacheEscaper.html(text) + "</pre>"
        return OutgoingMessage(kind: .digest, idempotencyKey: request.key, title: title, text: title + "\n\n" + text,
                               markdown: "# " + Markdown.escape(title) + "\n\n```\n" + text + "```\n", html: html)
    }
}
