import DatebookCore
import DatebookDelivery
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
        var taskLines: [String] = []
        var markdown = "**\(event.symbol.emoji) \(Markdown.escape(title))**  \n\(when)"
        var html = "<p><strong>\(event.symbol.emoji) \(MustacheEscaper.html(title))</strong><br>\(MustacheEscaper.html(when))</p>"
        let location = TextWidth.truncate(EventURL.cleanLocation(event.location), to: 200)
        if !location.isEmpty {
            text += "\n📍 \(location)"
            markdown += "  \n📍 \(Markdown.escape(location))"
            html += "<p>📍 \(MustacheEscaper.html(location))</p>"
        }
        // Stored links passed `EventURL.problem`: a scheme datebook allows and URI characters only.
        let url = event.url.isEmpty ? nil : event.url
        if let url {
            text += "\n🔗 \(url)"
            markdown += "  \n🔗 <\(url)>"
            html += "<p>🔗 <a href=\"\(MustacheEscaper.html(url))\">\(MustacheEscaper.html(url))</a></p>"
        }
        if !open.isEmpty {
            let summary = open.count == 1 ? "1 open task" : "\(open.count) open tasks"
            text += "\n\(summary):"
            markdown += "\n\n\(summary):"
            html += "<p>\(summary):</p><ul>"
            for task in open.prefix(20) {
                let clean = TextWidth.truncate(TextWidth.clean(task.text), to: 200)
                let mark = task.status == .doing ? "[~]" : "[ ]"
                taskLines.append("\(mark) \(clean)")
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
        // A floating time as the instant its wall-clock time names in the configured zone, which
        // the alert is timed by.
        func stamp(_ value: EventStart) -> String {
            switch value {
            case .instant(let date): return ISOInstant.format(date)
            case .allDay(let day): return day.description
            case .floating(let time): return ISOInstant.format(time.resolved(in: calendar))
            }
        }
        let start = stamp(occurrence.instanceStart(in: calendar.timeZone))
        let end = occurrence.instanceEnd(in: calendar.timeZone).map(stamp)
        let prefix = lead.map { "in " + leadPhrase($0) + ": " } ?? ""
        return OutgoingMessage(
            kind: .alert,
            idempotencyKey: key(eventID: event.id, occurrenceStart: occurrence.start, lead: lead ?? LeadTime(), channel: channel),
            // The emoji travels in `event.symbol`; each channel puts it in front once (`displayTitle`).
            title: prefix + title,
            text: text, markdown: markdown, html: html, url: url,
            event: OutgoingMessage.Event(
                id: event.id, title: title, start: start, end: end, allDay: event.start.isAllDay, timeZone: event.timeZone,
                symbol: event.symbol.emoji, colorName: event.color.rawValue, colorHex: event.color.hex,
                notes: TextWidth.clean(event.notes), openTasks: event.badge, when: when,
                relativeWhen: lead.map(relativePhrase) ?? when,
                leadSeconds: lead.map { $0.days * 86_400 + $0.seconds }, location: location, url: url,
                occurrenceStart: ISOInstant.format(occurrence.start), openTaskLines: taskLines)
        )
    }

    /// `Tue 2026-12-01 07:00 (Europe/Berlin)` or `Fri 2026-12-25, all day`.
    static func whenText(_ occurrence: Occurrence, calendar: Calendar) -> String {
        switch occurrence.instanceStart(in: calendar.timeZone) {
        case .allDay(let day): return day.weekdayName + " " + day.description + ", all day"
        case .instant, .floating:
            return LocalTime(occurrence.start, in: calendar.timeZone).listFormat + " (" + calendar.timeZone.identifier + ")"
        }
    }

    /// `in 1 d`, `in 2 h`, `in 1 h 30 min`, `in 10 min`, `now` (the desktop summary's `· in 1 h`).
    static func relativePhrase(_ lead: LeadTime) -> String {
        let parts = [(lead.days, "d"), (lead.seconds / 3600, "h"), (lead.seconds % 3600 / 60, "min")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "now" : "in " + parts.joined(separator: " ")
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
