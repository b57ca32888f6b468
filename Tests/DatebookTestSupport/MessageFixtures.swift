import DatebookCore
import Foundation

import DatebookDelivery

/// Messages shared by the payload, email and redaction tests.
public enum Fixtures {
    public static let event = OutgoingMessage.Event(
        id: "evt-42", title: "Mia's birthday", start: "2026-12-01T18:00:00+01:00",
        end: "2026-12-01T21:00:00+01:00", allDay: false, timeZone: "Europe/Berlin", symbol: "🎂",
        colorName: "red", colorHex: "#FF3B30", notes: "Bring the cake & candles", openTasks: 2,
        location: "Café Zoë, Hauptstraße 1", url: "https://example.org/events/evt-42")

    public static let alert = OutgoingMessage(
        kind: .alert, idempotencyKey: "evt-42|2026-12-01T17:00:00Z|1h|team",
        title: "Mia's birthday in 1 hour",
        text: "Mia's birthday starts at 18:00 (Europe/Berlin).\nOpen tasks: buy candles, wrap gift",
        markdown: "**Mia's birthday** starts at 18:00 (Europe/Berlin).\n\n- [ ] buy candles\n- [ ] wrap gift",
        html: "<p><strong>Mia&#39;s birthday</strong> starts at 18:00.</p>",
        url: "https://example.org/events/evt-42", event: event)

    /// `alert` with the action links `serve.baseURL` adds (and, like the scheduler's alerts, no
    /// `url`), signed with a fixed key and expiry so the tokens (and the golden files) never change.
    public static let alertWithLinks: OutgoingMessage = {
        var message = alert
        message.url = nil  // as in the scheduler's alerts: the event page is a link of its own
        let key = Data(repeating: 0x42, count: 32), base = "https://planner.example.org"
        let occurrence = Date(timeIntervalSince1970: 1_796_144_400), expires = Date(timeIntervalSince1970: 1_796_749_200)
        message.actions = ActionLink.Action.allCases.compactMap { action in
            ActionLink(action: action, eventID: "evt-42", occurrenceStart: occurrence, channel: "team", expires: expires)
                .token(key: key).map { OutgoingMessage.Action(name: action.name, label: OutgoingMessage.Labels().action(action.name), url: base + "/a/" + $0) }
        } + [OutgoingMessage.Action(name: "event", label: "Open", url: base + "/events/evt-42")]
        return message
    }()

    public static let canaryTitle = "@everyone <!channel> @here <http://evil|click> @channel @all"

    public static let canary: OutgoingMessage = {
        var message = alert
        message.title = canaryTitle
        message.text = "text \(canaryTitle)"
        message.markdown = "md \(canaryTitle)"
        message.event?.title = canaryTitle
        message.event?.notes = canaryTitle
        message.event?.location = canaryTitle
        return message
    }()

    /// The alert with `canaryTitle` in exactly one field, by field name: a payload must keep every
    /// field inert, not only the body text.
    public static let hostileFields: [String: OutgoingMessage] = {
        let fields: [String: (inout OutgoingMessage) -> Void] = [
            "title": { $0.title = canaryTitle }, "text": { $0.text = canaryTitle }, "markdown": { $0.markdown = canaryTitle },
            "html": { $0.html = canaryTitle }, "url": { $0.url = "https://example.org/" + canaryTitle },
            "event.title": { $0.event?.title = canaryTitle }, "event.notes": { $0.event?.notes = canaryTitle },
            "event.location": { $0.event?.location = canaryTitle },
            "event.symbol": { $0.event?.symbol = canaryTitle }, "event.start": { $0.event?.start = canaryTitle },
            "event.timeZone": { $0.event?.timeZone = canaryTitle }, "event.colorName": { $0.event?.colorName = canaryTitle },
        ]
        return fields.mapValues { set in
            var message = alert
            set(&message)
            return message
        }
    }()

    /// A digest far beyond Discord's 6000-character message limit.
    public static let longDigest: OutgoingMessage = {
        let lines = (1...400).map { "- 2026-12-\(String(format: "%02d", $0 % 28 + 1)) Event number \($0) with a descriptive title (\($0 % 5) open)" }
        let markdown = "## Next 7 Days\n\n" + lines.joined(separator: "\n")
        return OutgoingMessage(
            kind: .digest, idempotencyKey: "digest|morning|2026-11-30", title: "Your morning digest",
            text: markdown, markdown: markdown)
    }()
}
