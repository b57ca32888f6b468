import DatebookCore
import DatebookDelivery
import DatebookStore
import Foundation

/// Action links end to end: issuing them for an alert, and checking and applying one when it is
/// followed (`datebook serve`'s `/a/{token}`). Done and the snoozes are the same changes as
/// `datebook done`, `datebook snooze` and the desktop notification's buttons (`Snooze`).
public struct ActionLinks {
    /// What a followed link did.
    public enum Outcome: Sendable, Equatable {
        /// `count` open tasks marked done (0: none was open).
        case done(count: Int)
        /// The alert is in the ledger again at `until`, for `channel`.
        case snoozed(until: Date, channel: String)
    }

    /// A checked link and the event it is about, for the confirmation page.
    public struct Checked: Sendable {
        public var link: ActionLink
        public var event: Event
    }

    public let store: any PlannerStore
    /// In the user's zone: Tomorrow 9:00 is 09:00 there.
    public let calendar: Calendar

    public init(store: any PlannerStore, calendar: Calendar) {
        self.store = store
        self.calendar = calendar
    }

    /// The link `token` names, when it is signed by this store, unexpired, unused and about an
    /// event still in the planner; changes nothing (what the confirmation page shows).
    public func check(_ token: String, now: Date) throws -> Checked {
        guard let key = try store.storedSecret(named: Store.actionLinkKeyName) else { throw ActionLink.Refusal.forged }
        let link = try ActionLink.verify(token, key: key, now: now)
        guard let id = ActionLink.id(of: token), try !store.isActionLinkUsed(id: id) else { throw ActionLink.Refusal.used }
        guard let event = try store.event(id: link.eventID) else { throw ActionLink.Refusal.eventGone }
        return Checked(link: link, event: event)
    }

    /// Checks `token` as `check` does and applies it, recording its use in the same transaction:
    /// a link that is refused, or whose change fails, changes nothing and stays unused.
    public func perform(_ token: String, now: Date) throws -> Outcome {
        try store.transaction {
            let checked = try check(token, now: now)
            let link = checked.link
            guard let id = ActionLink.id(of: token),
                  try store.useActionLink(id: id, action: link.action.name, eventID: link.eventID, expires: link.expires, now: now)
            else { throw ActionLink.Refusal.used }
            switch link.action {
            case .done:
                guard let done = Snooze.completingTasks(of: checked.event) else { return .done(count: 0) }
                try store.saveInTransaction(done)
                return .done(count: checked.event.badge)
            case .snooze, .tomorrow:
                let until = link.action == .snooze ? now.addingTimeInterval(Snooze.defaultLength) : Snooze.tomorrowMorning(after: now, calendar: calendar)
                _ = try store.plan(Snooze.entry(eventID: link.eventID, occurrenceStart: link.occurrenceStart, until: until,
                                                channel: link.channel), now: now)
                return .snoozed(until: until, channel: link.channel)
            }
        }
    }
}

/// Makes the links of alerts: one per action, signed with the store's key, working for
/// `lifetime` from the moment the alert is made, plus the event's page.
public struct ActionLinkIssuer: Sendable, Equatable {
    /// Where people reach `datebook serve` (`serve.baseURL`), without a trailing `/`.
    public var baseURL: String
    public var key: Data
    public var lifetime: TimeInterval

    public init(baseURL: String, key: Data, lifetime: TimeInterval = ActionLink.defaultLifetime) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.key = key
        self.lifetime = lifetime
    }

    /// Signs with `store`'s key, made on first use when `makingKey`; nil when there is no key
    /// yet and none is to be made (`preview`, `status`: they write nothing, so their alerts show
    /// links only once a pass or `send alert` has made it).
    public init?(baseURL: String, store: any PlannerStore, now: Date, makingKey: Bool) throws {
        if let stored = try store.storedSecret(named: Store.actionLinkKeyName) {
            self.init(baseURL: baseURL, key: stored)
        } else if makingKey {
            self.init(baseURL: baseURL, key: try store.secretKey(named: Store.actionLinkKeyName, now: now))
        } else {
            return nil
        }
    }

    /// Done, Snooze 1 h, Tomorrow 9:00, then the event's page (`/events/{id}`); just the page when
    /// a field is too long to sign (over 255 bytes). The buttons' words come from `labels` (the
    /// reader's language).
    public func actions(eventID: String, occurrenceStart: Date, channel: String, now: Date,
                        labels: OutgoingMessage.Labels = .init()) -> [OutgoingMessage.Action] {
        let expires = now.addingTimeInterval(lifetime)
        let signed: [OutgoingMessage.Action] = ActionLink.Action.allCases.compactMap { action in
            let link = ActionLink(action: action, eventID: eventID, occurrenceStart: occurrenceStart, channel: channel, expires: expires)
            return link.token(key: key).map { OutgoingMessage.Action(name: action.name, label: labels.action(action.name), url: baseURL + "/a/" + $0) }
        }
        let page = eventID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? eventID
        return signed + [OutgoingMessage.Action(name: "event", label: labels.open, url: baseURL + "/events/" + page)]
    }
}
