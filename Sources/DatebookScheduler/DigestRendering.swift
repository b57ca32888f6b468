import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookStore
import Foundation

/// The seam where the digest renderer (DatebookRender) plugs into the scheduler.
///
/// The scheduler calls `render` once per digest delivery with the agenda as of the digest's
/// moment and the channel's format; the result goes to the channel like any other message.
/// `PlainDigestRenderer` is the built-in fallback: the agenda as plain text (Markdown-safe).
/// To plug in the real renderer, set `SchedulerFactory.digestRenderer` (Sources/DatebookCLI/
/// SchedulerFactory.swift) to it; `Scheduler(…, digestRenderer:)` takes one directly.
public protocol DigestRendering: Sendable {
    func render(_ request: DigestRequest) throws -> OutgoingMessage
}

/// Everything a digest renderer gets: the schedule (name, format, template), the date, the agenda
/// and the calendar of the configured zone.
public struct DigestRequest: Sendable {
    public var schedule: DigestSchedule
    public var date: CalendarDate
    public var channel: String
    public var agenda: Agenda
    public var now: Date
    public var calendar: Calendar
    /// The ledger key, to be used as the message's idempotency key.
    public var key: String
}

/// The fallback digest: title line plus the agenda's periods as plain text.
public struct PlainDigestRenderer: DigestRendering {
    public init() {}

    public func render(_ request: DigestRequest) throws -> OutgoingMessage {
        var text = ""
        for section in request.agenda.sections {
            text += "\(section.period.title)\(section.openTasks > 0 ? " (\(section.openTasks) open)" : "")\n"
            for occurrence in section.occurrences {
                let local = LocalTime(occurrence.start, in: request.calendar.timeZone)
                let when = occurrence.event.start.isAllDay ? local.date.description + "      " : local.listFormat
                let badge = occurrence.event.badge > 0 ? " [\(occurrence.event.badge)]" : (occurrence.event.isComplete ? " ✓" : "")
                text += "  \(when)  \(occurrence.event.symbol.emoji) \(TextWidth.clean(occurrence.event.title))\(badge)\n"
            }
        }
        if text.isEmpty { text = "Nothing coming up.\n" }
        let title = "datebook \(request.schedule.name) digest for \(request.date.weekdayName) \(request.date)"
        let html = "<h1>" + MustacheEscaper.html(title) + "</h1><pre>" + MustacheEscaper.html(text) + "</pre>"
        return OutgoingMessage(kind: .digest, idempotencyKey: request.key, title: title, text: title + "\n\n" + text,
                               markdown: "# " + Markdown.escape(title) + "\n\n```\n" + text + "```\n", html: html)
    }
}
