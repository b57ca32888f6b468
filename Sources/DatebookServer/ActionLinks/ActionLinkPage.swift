import DatebookCore
import DatebookScheduler
import Foundation

/// The pages of `/a/{token}`: plain HTML without script or inline style (the server's
/// Content-Security-Policy allows neither), every piece of event text escaped.
enum ActionLinkPage {
    static func confirmation(_ checked: ActionLinks.Checked, token: String, proof: String, calendar: Calendar) -> WebResponse {
        let title = HTMLText.escape(TextWidth.clean(checked.event.title))
        let question: String
        switch checked.link.action {
        case .done:
            let open = checked.event.badge
            question = open == 0 ? "“\(title)” has no open tasks left."
                : "Mark \(open == 1 ? "the open task" : "all \(open) open tasks") of “\(title)” done?"
        case .snooze: question = "Send the alert for “\(title)” again in 1 hour?"
        case .tomorrow: question = "Send the alert for “\(title)” again tomorrow at 9:00?"
        }
        let body = """
            <p>\(question)</p>
            <form method="post" action="/a/\(HTMLText.escape(token))">
            <input type="hidden" name="proof" value="\(HTMLText.escape(proof))">
            <button type="submit">\(HTMLText.escape(checked.link.action.label))</button>
            </form>
            <p><a href="/events/\(HTMLText.escape(checked.event.id))">Open the event</a></p>
            """
        return page(200, heading: checked.link.action.label, body: body)
    }

    static func done(_ outcome: ActionLinks.Outcome, title: String, calendar: Calendar) -> WebResponse {
        let name = HTMLText.escape(TextWidth.clean(title))
        switch outcome {
        case .done(let count):
            let text = count == 0 ? "“\(name)” had no open tasks." : "\(count == 1 ? "1 task" : "\(count) tasks") of “\(name)” done ✓"
            return page(200, heading: "Done", body: "<p>\(text)</p>")
        case .snoozed(let until, let channel):
            let when = HTMLText.escape(LocalTime(until, in: calendar.timeZone).listFormat + " (" + calendar.timeZone.identifier + ")")
            return page(200, heading: "Snoozed",
                        body: "<p>The alert for “\(name)” comes again \(when) on \(HTMLText.escape(channel)).</p>")
        }
    }

    /// 400 malformed or forged, 410 expired, 409 used, 404 event gone: each with its sentence.
    static func refused(_ refusal: ActionLink.Refusal) -> WebResponse {
        let status: Int
        switch refusal {
        case .malformed, .forged: status = 400
        case .expired: status = 410
        case .used: status = 409
        case .eventGone: status = 404
        }
        return page(status, heading: "Nothing was changed", body: "<p>" + HTMLText.escape(refusal.description) + "</p>")
    }

    static func forbidden(_ reason: String) -> WebResponse {
        page(403, heading: "Nothing was changed", body: "<p>" + HTMLText.escape(reason) + "</p>")
    }

    static func page(_ status: Int, heading: String, body: String) -> WebResponse {
        var response = WebResponse.html(status, """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex"><title>\(HTMLText.escape(heading)) · datebook</title></head>
            <body>
            <h1>\(HTMLText.escape(heading))</h1>
            \(body)
            </body>
            </html>

            """)
        response.setHeader("Cache-Control", "no-store")
        return response
    }
}
