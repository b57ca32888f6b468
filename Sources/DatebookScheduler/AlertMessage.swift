import DatebookCore
import DatebookDelivery
import DatebookRender
import Foundation

/// Builds the message for one alert: an occurrence, a lead time, and the moment it is sent.
public enum AlertMessage {
    /// The ledger/idempotency key of an alert: derived from data only (event, occurrence, lead, channel).
    public static func key(eventID: String, occurrenceStart: Date, lead: LeadTime, channel: String) -> String {
        "alert:\(eventID):\(ISOInstant.format(occurrenceStart)):\(lead):\(channel)"
    }

    public static func make(_ occurrence: Occurrence, lead: LeadTime?, channel: String, calendar: Calendar) -> OutgoingMessage {
        let event = occurrence.event
        let title = TextWidth.truncate(TextWidth.clean(event.title), to: 200)
        let when = whenText(occurrence, calendar: calendar)
        let open = event.tasks.filter { $0.status.isOpen }.sorted { ($0.status == .doing ? 0 : 1) < ($1.status == .doing ? 0 : 1) }
        var text = "\(event.symbol.emoji) \(title)\n\(when)"
        var markdown = "**\(event.symbol.emoji) \(Markdown.escape(title))**  \n\(when)"
        var html = "<p><strong>\(event.symbol.emoji) \(MustacheEscaper.html(title))</strong><br>\(MustacheEscaper.html(when))</p>"
        if !open.isEmpty {
            let summary = open.count == 1 ? "1 open task" : "\(open.count) open tasks"
            text += "\n\(summary):"
            markdown += "\n\n\(summary):"
            html += "<p>\(summary):</p><ul>"
            for task in open.prefix(20) {
                let clean = TextWidth.truncate(TextWidth.clean(task.text), to: 200)
                let mark = task.status == .doing ? "[~]" : "[ ]"
                text += "\n  \(mark) \(clean)"
                markdown += "\n- [ ] " + (task.status == .doing ? "*(in progress)* " : "") + Markdown.escape(clean)
                html += "<li>" + (task.status == .doing ? "(in progress) " : "") + MustacheEscaper.html(clean) + "</li>"
            }
            html += "</ul>"
        } else if event.isComplete {
            text += "\nAll tasks done ✓"
            markdown += "\n\nAll tasks done ✓"
            html += "<p>All tasks done ✓</p>"
        }
        let start: String
        switch occurrence.instanceStart(in: calendar.timeZone) {
        case .instant(let date): start = ISOInstant.format(date)
        case .allDay(let day): start = day.description
        // The instant its wall-clock time names in the configured zone, which the alert is timed by.
        case .floating: start = ISOInstant.format(occurrence.start)
        }
        let prefix = lead.map { "in " + leadPhrase($0) + ": " } ?? ""
        return OutgoingMessage(
            kind: .alert,
            idempotencyKey: key(eventID: event.id, occurrenceStart: occurrence.start, lead: lead ?? LeadTime(), channel: channel),
            // The emoji travels in `event.symbol`; each channel puts it in front once (`displayTitle`).
            title: prefix + title,
            text: text, markdown: markdown, html: html,
            event: OutgoingMessage.Event(
                id: event.id, title: title, start: start, allDay: event.start.isAllDay, timeZone: event.timeZone,
                symbol: event.symbol.emoji, colorName: event.color.rawValue, colorHex: event.color.hex,
                notes: TextWidth.clean(event.notes), openTasks: event.badge)
        )
    }

    /// `Tue 2026-12-01 07:00 (Europe/Berlin)` or `Fri 2026-12-25, all day`.
    static func whenText(_ occurrence: Occurrence, calendar: Calendar) -> String {
        switch occurrence.event.start {
        case .allDay(let day): return day.weekdayName + " " + day.description + ", all day"
        case .instant, .floating:
            return LocalTime(occurrence.start, in: calendar.timeZone).listFormat + " (" + calendar.timeZone.identifier + ")"
        }
    }

    /// `1 day`, `2 hours`, `1 hour 30 minutes`, `10 minutes`.
    static func leadPhrase(_ lead: LeadTime) -> String {
        var parts: [String] = []
        func add(_ n: Int, _ unit: String) { if n > 0 { parts.append("\(n) \(unit)\(n == 1 ? "" : "s")") } }
        add(lead.days, "day")
        add(lead.seconds / 3600, "hour")
        add(lead.seconds % 3600 / 60, "minute")
        return parts.isEmpty ? "now" : parts.joined(separator: " ")
    }
}
