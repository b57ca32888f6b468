import DatebookCore
import DatebookRender
import DatebookScheduler
import Foundation

/// What the pages of `/a/{token}` say, rendered with `web-action.html.mustache` in the site's
/// layout (every piece of event text escaped by the template), in the catalogue's words.
struct ActionLinkPage {
    var status: Int
    var heading: String
    var message: String
    /// The confirmation form: where it posts, its CSRF value and its button.
    var form: (action: String, csrf: String, button: String)?
    var eventURL: String?

    static func confirmation(_ checked: ActionLinks.Checked, token: String, csrf: String, words: MessageCatalog) -> ActionLinkPage {
        let title = ["title": TextWidth.clean(checked.event.title)]
        let message: String
        switch checked.link.action {
        case .done:
            let open = checked.event.badge
            message = open == 0 ? words.text("actionNoOpenTasks", title) : open == 1 ? words.text("actionDoneOneQuestion", title)
                : words.count("actionDoneAllQuestion", open, title)
        case .snooze: message = words.text("actionSnoozeQuestion", title)
        case .tomorrow: message = words.text("actionTomorrowQuestion", title)
        }
        let label = words.text(checked.link.action.name)  // the alert's button: done, snooze, tomorrow
        return ActionLinkPage(status: 200, heading: label, message: message,
                              form: ("/a/" + token, csrf, label), eventURL: PlannerSite.eventPath(checked.event.id))
    }

    static func result(_ outcome: ActionLinks.Outcome, event: Event, calendar: Calendar, words: MessageCatalog) -> ActionLinkPage {
        let title = ["title": TextWidth.clean(event.title)]
        switch outcome {
        case .done(let count):
            let message = count == 0 ? words.text("actionHadNoOpenTasks", title) : words.count("actionDoneResult", count, title)
            return ActionLinkPage(status: 200, heading: words.text("done"), message: message, eventURL: PlannerSite.eventPath(event.id))
        case .snoozed(let until, let channel):
            let when = LocalTime(until, in: calendar.timeZone).listFormat + " (" + calendar.timeZone.identifier + ")"
            return ActionLinkPage(status: 200, heading: words.text("actionSnoozed"),
                                  message: words.text("actionSnoozedResult", title.merging(["when": when, "channel": channel]) { $1 }),
                                  eventURL: PlannerSite.eventPath(event.id))
        }
    }

    /// 400 malformed or forged, 410 expired, 409 used, 404 event gone: each with its sentence.
    static func refused(_ refusal: ActionLink.Refusal, words: MessageCatalog) -> ActionLinkPage {
        let status: Int, message: String
        switch refusal {
        case .malformed: (status, message) = (400, words.text("actionMalformed"))
        case .forged: (status, message) = (400, words.text("actionForged"))
        case .expired(let date): (status, message) = (410, words.text("actionExpired", ["date": ISOInstant.format(date)]))
        case .used: (status, message) = (409, words.text("actionUsed"))
        case .eventGone: (status, message) = (404, words.text("actionEventGone"))
        }
        return ActionLinkPage(status: status, heading: words.text("actionNothingChanged"), message: message)
    }

    static func forbidden(_ reasonKey: String, words: MessageCatalog) -> ActionLinkPage {
        ActionLinkPage(status: 403, heading: words.text("actionNothingChanged"), message: words.text(reasonKey))
    }

    func response(_ renderer: DigestRenderer, timeZone: TimeZone, words: MessageCatalog, lang: String) throws -> WebResponse {
        let value: MustacheValue = [
            "lang": .string(lang), "timeZone": .string(timeZone.identifier), "heading": .string(heading), "message": .string(message),
            "form": form.map { ["action": .string($0.action), "csrf": .string($0.csrf), "button": .string($0.button)] } ?? .null,
            "eventURL": eventURL.map { .string($0) } ?? .null, "words": .object(words.words.mapValues { .string($0) }),
        ]
        var response = WebResponse.html(status, try renderer.renderPage("web-action.html.mustache", value))
        response.setHeader("Cache-Control", "no-store")
        return response
    }
}
