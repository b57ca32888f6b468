import DatebookCore
import DatebookRender
import DatebookScheduler
import Foundation

/// What the pages of `/a/{token}` say, rendered with `web-action.html.mustache` in the site's
/// layout (every piece of event text escaped by the template).
struct ActionLinkPage {
    var status: Int
    var heading: String
    var message: String
    /// The confirmation form: where it posts, its CSRF value and its button.
    var form: (action: String, csrf: String, button: String)?
    var eventURL: String?

    static func confirmation(_ checked: ActionLinks.Checked, token: String, csrf: String) -> ActionLinkPage {
        let title = "“" + TextWidth.clean(checked.event.title) + "”"
        let message: String
        switch checked.link.action {
        case .done:
            let open = checked.event.badge
            message = open == 0 ? title + " has no open tasks left."
                : "Mark " + (open == 1 ? "the open task" : "all \(open) open tasks") + " of " + title + " done?"
        case .snooze: message = "Send the alert for " + title + " again in 1 hour?"
        case .tomorrow: message = "Send the alert for " + title + " again tomorrow at 9:00?"
        }
        return ActionLinkPage(status: 200, heading: checked.link.action.label, message: message,
                              form: ("/a/" + token, csrf, checked.link.action.label), eventURL: "/events/" + checked.event.id)
    }

    static func result(_ outcome: ActionLinks.Outcome, event: Event, calendar: Calendar) -> ActionLinkPage {
        let title = "“" + TextWidth.clean(event.title) + "”"
        switch outcome {
        case .done(let count):
            let message = count == 0 ? title + " had no open tasks." : (count == 1 ? "1 task" : "\(count) tasks") + " of " + title + " done ✓"
            return ActionLinkPage(status: 200, heading: "Done", message: message, eventURL: "/events/" + event.id)
        case .snoozed(let until, let channel):
            let when = LocalTime(until, in: calendar.timeZone).listFormat + " (" + calendar.timeZone.identifier + ")"
            return ActionLinkPage(status: 200, heading: "Snoozed", message: "The alert for " + title + " comes again " + when + " on " + channel + ".",
                                  eventURL: "/events/" + event.id)
        }
    }

    /// 400 malformed or forged, 410 expired, 409 used, 404 event gone: each with its sentence.
    static func refused(_ refusal: ActionLink.Refusal) -> ActionLinkPage {
        let status: Int
        switch refusal {
        case .malformed, .forged: status = 400
        case .expired: status = 410
        case .used: status = 409
        case .eventGone: status = 404
        }
        return ActionLinkPage(status: status, heading: "Nothing was changed", message: refusal.description)
    }

    static func forbidden(_ reason: String) -> ActionLinkPage {
        ActionLinkPage(status: 403, heading: "Nothing was changed", message: reason)
    }

    func response(_ renderer: DigestRenderer, timeZone: TimeZone) throws -> WebResponse {
        let value: MustacheValue = [
            "lang": "en-US", "timeZone": .string(timeZone.identifier), "heading": .string(heading), "message": .string(message),
            "form": form.map { ["action": .string($0.action), "csrf": .string($0.csrf), "button": .string($0.button)] } ?? .null,
            "eventURL": eventURL.map { .string($0) } ?? .null,
        ]
        var response = WebResponse.html(status, try renderer.renderPage("web-action.html.mustache", value))
        response.setHeader("Cache-Control", "no-store")
        return response
    }
}
