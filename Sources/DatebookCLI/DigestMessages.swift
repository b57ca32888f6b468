import DatebookCore
import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation

/// Builds the digest as a message (text, Markdown, HTML) for channels.
///
/// Until the template-based renderer lands this is a plain rendering of the agenda's next
/// 7 days, next 30 days and overdue items.
enum DigestMessages {
    static func make(store: Store, name: String, context: Context) throws -> OutgoingMessage {
        let boundaries = PeriodBoundaries(now: context.now, calendar: context.calendar)
        let agenda = try store.agenda(boundaries: boundaries, calendar: context.calendar, periods: [.next7, .next30])
        var text = "datebook digest — \(LocalTime(context.now, in: context.timeZone).listFormat)\n"
        var markdown = "# datebook digest\n"
        var html = "<h1>datebook digest</h1>"
        for section in agenda.sections {
            text += "\n\(section.period.title) (\(section.openTasks) open)\n"
            markdown += "\n## \(section.period.title)\n\n"
            html += "<h2>\(section.period.title)</h2><ul>"
            for occurrence in section.occurrences {
                let event = occurrence.event
                let title = TextWidth.truncate(TextWidth.clean(event.title), to: 60)
                let when = Rows.when(event.start, context)
                let badge = Rows.badge(event)
                text += "  \(event.symbol.emoji) \(title)  \(when)" + (badge.isEmpty ? "" : "  \(badge)") + "\n"
                markdown += "- \(event.symbol.emoji) **\(MarkdownText.escape(title))** — \(when)" + (badge.isEmpty ? "" : " (\(badge))") + "\n"
                html += "<li>\(event.symbol.emoji) <strong>\(HTMLText.escape(title))</strong> — \(when)" + (badge.isEmpty ? "" : " (\(badge))") + "</li>"
            }
            html += "</ul>"
        }
        if agenda.sections.isEmpty {
            text += "\nNothing in the next 30 days.\n"
            markdown += "\nNothing in the next 30 days.\n"
            html += "<p>Nothing in the next 30 days.</p>"
        }
        return OutgoingMessage(kind: .digest, idempotencyKey: "digest:\(name)", title: "datebook digest",
                               text: text, markdown: markdown, html: html)
    }
}
