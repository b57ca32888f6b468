import DatebookCore
import DatebookDelivery
import Foundation

/// Builds the message for one alert: an occurrence, a lead time, and the moment it is sent.
public enum AlertMessage {
    /// The ledger/idempotency key of an alert: derived from data only (event, occurrence, lead, channel).
    public static func key(eventID: String, occurrenceStart: Date, lead: LeadTime, channel: String) -> String {
        "alert:\(eventID):\(ISOInstant.format(occurrenceStart)):\(lead):\(channel)"
    }

    /// - Parameter words: the reader's catalogue (the config's `locale`): every word around the
    ///   event's own text, and the labels channels add.
    /// - Parameter now: when the alert is sent: a late or deferred alert says what is true then
    ///   (`in 10 minutes`, `now`, `started 2 hours 30 minutes ago`) instead of its lead time.
    public static func make(_ occurrence: Occurrence, lead: LeadTime?, channel: String, calendar: Calendar,
                            words: MessageCatalog = .english, now: Date? = nil) -> OutgoingMessage {
        let event = occurrence.event
        let title = TextWidth.truncate(TextWidth.clean(event.title), to: 200)
        let when = whenText(occurrence, calendar: calendar, words: words)
        // The catalogue's words go into Markdown as written, like the templates' `{{{words…}}}`.
        let inProgress = words.text("inProgress")
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
            let summary = words.count("openTasks", open.count)
            text += "\n\(summary):"
            markdown += "\n\n\(summary):"
            html += "<p>\(summary):</p><ul>"
            for task in open.prefix(20) {
                let clean = TextWidth.truncate(TextWidth.clean(task.text), to: 200)
                let mark = task.status == .doing ? "[~]" : "[ ]"
                taskLines.append("\(mark) \(clean)")
                text += "\n  \(mark) \(clean)"
                markdown += "\n- [ ] " + (task.status == .doing ? "*" + inProgress + "* " : "") + Markdown.escape(clean)
                html += "<li>" + (task.status == .doing ? MustacheEscaper.html(inProgress) + " " : "") + MustacheEscaper.html(clean) + "</li>"
            }
            html += "</ul>"
        } else if event.isComplete {
            let done = words.text("allTasksDone")
            text += "\n" + done
            markdown += "\n\n" + done
            html += "<p>" + MustacheEscaper.html(done) + "</p>"
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
        // A lead before the end speaks of the end (`ends in 15 minutes`); an instant alert of how far the start is when it is sent.
        let spoken = lead.map { lead in
            switch lead.anchor {
            case .start: leadAtSend(occurrence.start, lead: lead, now: now)
            case .end: atEnd(leadAtSend(occurrence.endInstant(calendar: calendar), lead: lead, now: now))
            case .instant: distance(occurrence.start, now: now ?? lead.due(for: occurrence, calendar: calendar))
            }
        }
        var message = OutgoingMessage(
            kind: .alert,
            idempotencyKey: key(eventID: event.id, occurrenceStart: occurrence.start, lead: lead ?? LeadTime(), channel: channel),
            // The emoji travels in `event.symbol`; each channel puts it in front once (`displayTitle`).
            title: spoken.map { alertTitle(title, lead: $0, words: words) } ?? title,
            text: text, markdown: markdown, html: html, url: url,
            event: OutgoingMessage.Event(
                id: event.id, title: title, start: start, end: end, allDay: event.start.isAllDay, timeZone: event.timeZone,
                symbol: event.symbol.emoji, colorName: event.color.rawValue, colorHex: event.color.hex,
                notes: TextWidth.clean(event.notes), openTasks: event.badge, when: when,
                relativeWhen: spoken.map { relativePhrase($0, words: words) } ?? when,
                leadSeconds: lead.map { $0.days * 86_400 + $0.seconds }, location: location, url: url,
                occurrenceStart: ISOInstant.format(occurrence.start), openTaskLines: taskLines)
        )
        message.labels = labels(openTasks: event.badge, words: words)
        return message
    }

    /// The labels channels put around an alert, from the catalogue.
    static func labels(openTasks: Int, words: MessageCatalog) -> OutgoingMessage.Labels {
        var labels = words.alertLabels
        labels.openTaskCount = openTasks > 0 ? words.count("openTasks", openTasks) : ""
        return labels
    }

    /// How far the occurrence is when the reader gets the alert.
    enum Distance: Equatable {
        /// Still ahead by this much (zero: now).
        case ahead(LeadTime)
        /// Started this long ago.
        case started(LeadTime)
        /// Ends in this much (zero: now): an alert before the end.
        case ends(LeadTime)
        /// Ended this long ago (an alert before the end, sent late).
        case ended(LeadTime)
    }

    /// The distance to an occurrence's end as the end's: `ends in …`, `ended … ago`.
    static func atEnd(_ distance: Distance) -> Distance {
        switch distance {
        case .ahead(let lead): .ends(LeadTime(days: lead.days, seconds: lead.seconds))
        case .started(let ago): .ended(ago)
        case .ends, .ended: distance
        }
    }

    /// The alert's lead when it is sent on time (or early, or within a minute of it); else what is
    /// true at `now`, in whole minutes: the time left, or how long ago the occurrence started.
    static func leadAtSend(_ start: Date, lead: LeadTime, now: Date?) -> Distance {
        guard let now else { return .ahead(lead) }
        let left = Int(start.timeIntervalSince(now).rounded())
        guard left < lead.days * 86_400 + lead.seconds - 60 else { return .ahead(lead) }
        return distance(start, now: now)
    }

    /// How far `start` is from `now`, in whole minutes.
    static func distance(_ start: Date, now: Date) -> Distance {
        let left = Int(start.timeIntervalSince(now).rounded())
        let minutes = (abs(left) + 30) / 60
        let span = LeadTime(days: minutes / 1440, seconds: minutes % 1440 * 60)
        return left >= 0 || minutes == 0 ? .ahead(span) : .started(span)
    }

    /// `in 1 hour: Pagliacci`, `now: Pagliacci` (a zero lead).
    static func alertTitle(_ title: String, lead: LeadTime, words: MessageCatalog) -> String {
        alertTitle(title, lead: .ahead(lead), words: words)
    }

    /// `in 1 hour: Pagliacci`, `now: Pagliacci`, `started 2 hours 30 minutes ago: Pagliacci`.
    static func alertTitle(_ title: String, lead: Distance, words: MessageCatalog) -> String {
        switch lead {
        case .ahead(let lead):
            let phrase = leadPhrase(lead, words: words)
            return phrase.isEmpty ? words.text("alertTitleNow", ["title": title]) : words.text("alertTitle", ["lead": phrase, "title": title])
        case .started(let ago):
            return words.text("alertTitleStarted", ["lead": leadPhrase(ago, words: words), "title": title])
        case .ends(let lead):
            let phrase = leadPhrase(lead, words: words)
            return phrase.isEmpty ? words.text("alertTitleEndsNow", ["title": title]) : words.text("alertTitleEnds", ["lead": phrase, "title": title])
        case .ended(let ago):
            return words.text("alertTitleEnded", ["lead": leadPhrase(ago, words: words), "title": title])
        }
    }

    /// `Tue 2026-12-01 07:00 (Europe/Berlin)` or `Fri 2026-12-25, all day`.
    static func whenText(_ occurrence: Occurrence, calendar: Calendar, words: MessageCatalog) -> String {
        switch occurrence.instanceStart(in: calendar.timeZone) {
        case .allDay(let day):
            let weekday = LocalTime.weekdayNames.firstIndex(of: day.weekdayName) ?? 0
            return words.text("alertAllDay", ["date": weekdayName(weekday, words) + " " + day.description])
        case .instant, .floating:
            let local = LocalTime(occurrence.start, in: calendar.timeZone)
            return weekdayName(local.weekday, words) + local.listFormat.dropFirst(3) + " (" + calendar.timeZone.identifier + ")"
        }
    }

    /// The catalogue's short name of weekday `index` (0 = Sunday), from its seven `weekdays`.
    static func weekdayName(_ index: Int, _ words: MessageCatalog) -> String {
        words.weekdayNames[index]
    }

    /// `in 1 d`, `in 2 h`, `in 1 h 30 min`, `in 10 min`, `now` (the desktop summary's `· in 1 h`).
    static func relativePhrase(_ lead: LeadTime, words: MessageCatalog) -> String {
        relativePhrase(.ahead(lead), words: words)
    }

    /// `in 1 h`, `now`, `started 2 h 30 min ago`.
    static func relativePhrase(_ lead: Distance, words: MessageCatalog) -> String {
        switch lead {
        case .ahead(let lead):
            let phrase = lead.parts(["daysShort", "hoursShort", "minutesShort"], words: words)
            return phrase.isEmpty ? words.text("relativeNow") : words.text("relativeIn", ["lead": phrase])
        case .started(let ago):
            return words.text("relativeStarted", ["lead": ago.parts(["daysShort", "hoursShort", "minutesShort"], words: words)])
        case .ends(let lead):
            let phrase = lead.parts(["daysShort", "hoursShort", "minutesShort"], words: words)
            return phrase.isEmpty ? words.text("relativeNow") : words.text("relativeEnds", ["lead": phrase])
        case .ended(let ago):
            return words.text("relativeEnded", ["lead": ago.parts(["daysShort", "hoursShort", "minutesShort"], words: words)])
        }
    }

    /// `1 day`, `2 hours`, `1 hour 30 minutes`, `10 minutes`; empty for a zero lead.
    static func leadPhrase(_ lead: LeadTime, words: MessageCatalog) -> String {
        lead.parts(["days", "hours", "minutes"], words: words)
    }
}

extension LeadTime {
    /// Days, hours and minutes (those that are not 0) in the catalogue's words for the three
    /// `units` keys, joined by `leadSeparator`.
    func parts(_ units: [String], words: MessageCatalog) -> String {
        var phrase = ""
        for (unit, count) in zip(units, [days, seconds / 3600, seconds % 3600 / 60]) where count > 0 {
            if !phrase.isEmpty { phrase += words.text("leadSeparator") }
            phrase += words.count(unit, count)
        }
        return phrase
    }
}
