import DatebookCore
import DatebookDelivery
import DatebookICal
import DatebookRender
import DatebookStore
import Foundation

/// A delivery turned into what would be sent, or the reason it cannot be.
public enum PreparedDelivery: Sendable {
    case ready(OutgoingMessage, DeliveryStep)
    /// The message exists but the channel cannot be used (missing secret, unknown channel).
    case unavailable(OutgoingMessage?, reason: String)
    /// The item no longer exists (event deleted or moved, digest removed).
    case obsolete(reason: String)

    public var message: OutgoingMessage? {
        switch self {
        case .ready(let message, _): message
        case .unavailable(let message, _): message
        case .obsolete: nil
        }
    }
}

/// What a delivery needs from the store, read on the store's thread; building from it is pure.
enum DeliveryInput: Sendable {
    case alert(Occurrence, LeadTime?, channel: String)
    case digest(DigestRequest)
    case obsolete(String)
}

extension Scheduler {
    /// Builds the message and the channel step for a ledger row; never sends, never writes (an
    /// alert shows action links only once a pass has made the store's key).
    public func prepare(_ entry: LedgerEntry, now: Date) throws -> PreparedDelivery {
        try prepare([entry], now: now, makingKey: false)[0]
    }

    /// Reads what the rows need from the store, then builds messages and payloads on all cores
    /// (pure work: no store, no network). `makingKey`: a pass that sends makes the action-link key
    /// on first use.
    func prepare(_ entries: [LedgerEntry], now: Date, makingKey: Bool = true) throws -> [PreparedDelivery] {
        try prepare(entries, events: try store.events(ids: entries.compactMap(\.eventID)), now: now, makingKey: makingKey)
    }

    /// `prepare` with the rows' events already read (`store.events(ids:)`).
    func prepare(_ entries: [LedgerEntry], events: [String: Event], now: Date, makingKey: Bool = true) throws -> [PreparedDelivery] {
        try builder(now: now, makingKey: makingKey).buildAll(try entries.map { try input($0, events: events) })
    }

    /// The occurrence of `event` that starts at `start`, if the event still has one there: its own
    /// start for a single event, one instance of the rule for a recurring one.
    func currentOccurrence(of event: Event, at start: Date) throws -> Occurrence? {
        guard let rule = event.recurrence else {
            let occurrence = Occurrence(event: event, calendar: calendar)
            return occurrence.start == start ? occurrence : nil
        }
        // The event's own rule expanded over the one second of its occurrence key, as the store's
        // listings expand it (RecurrenceExpander). Asking the store's listing for that second read
        // every recurring event once per alert: most of `preview --days 30`'s time on 20,000 events.
        let occurrence = Occurrence(event: event, start: start)
        let instance = occurrence.instanceStart(in: calendar.timeZone)
        // An all-day or floating start is a date or a wall-clock time: `start` must be where it begins.
        guard instance.resolved(in: calendar) == start else { return nil }
        let key = instance.occurrenceKey
        let keys = RecurrenceExpander.keys(start: event.start, timeZone: event.timeZone, recurrence: rule, window: key..<(key + 1)).keys
        return keys.isEmpty ? nil : occurrence
    }

    func builder(now: Date, makingKey: Bool) throws -> Builder {
        Builder(config: config, calendar: calendar, words: options.words, renderer: digestRenderer,
                dispatcher: Dispatcher(environment: environment, now: now, timeZone: calendar.timeZone, host: host),
                links: try options.actionLinkBaseURL.flatMap { try ActionLinkIssuer(baseURL: $0, store: store, now: now, makingKey: makingKey) })
    }

    /// What `entry` needs, its event looked up in `events` (read for the whole batch at once).
    func input(_ entry: LedgerEntry, events: [String: Event]) throws -> DeliveryInput {
        switch entry.kind {
        case .alert:
            guard let id = entry.eventID, let event = events[id] else { return .obsolete("event deleted") }
            guard let start = entry.occurrenceStart, let occurrence = try currentOccurrence(of: event, at: start) else {
                return .obsolete("event moved")
            }
            return .alert(occurrence, entry.lead.flatMap { LeadTime($0) }, channel: entry.channel)
        case .digest:
            guard let schedule = config.digests.first(where: { $0.name == entry.digest }),
                  let date = entry.digestDate.flatMap({ CalendarDate(iso: $0) }) else {
                return .obsolete("digest '\(entry.digest ?? "")' is no longer in the config")
            }
            let plan = DigestPlan(now: entry.dueAt, calendar: calendar)
            let input = try DigestQuery.input(plan: plan, store: store, calendar: calendar)
            return .digest(DigestRequest(schedule: schedule, date: date, channel: entry.channel, input: input,
                                         now: entry.dueAt, calendar: calendar, key: entry.key))
        }
    }
}

/// Builds messages and channel steps; a value so it can run on any thread.
struct Builder: Sendable {
    let config: Config
    let calendar: Calendar
    let words: MessageCatalog
    let renderer: any DigestRendering
    let dispatcher: Dispatcher
    /// Signs the links of alerts; nil when `serve.baseURL` is unset.
    var links: ActionLinkIssuer?

    /// Builds many at once, spread over the cores.
    func buildAll(_ inputs: [DeliveryInput]) -> [PreparedDelivery] {
        guard inputs.count > 16 else { return inputs.map(build) }
        let slots = IndexedResults<PreparedDelivery>(count: inputs.count)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            slots.set(index, build(inputs[index]))
        }
        return slots.values(missing: .obsolete(reason: "not prepared"))
    }

    func build(_ input: DeliveryInput) -> PreparedDelivery {
        let message: OutgoingMessage
        let channelName: String
        switch input {
        case .obsolete(let reason):
            return .obsolete(reason: reason)
        case .alert(let occurrence, let lead, let channel):
            var alert = AlertMessage.make(occurrence, lead: lead, channel: channel, calendar: calendar, words: words, now: dispatcher.now)
            alert.actions = links?.actions(eventID: occurrence.event.id, occurrenceStart: occurrence.start, channel: channel,
                                           now: dispatcher.now, labels: alert.labels) ?? []
            message = alert
            channelName = channel
        case .digest(let request):
            do {
                message = try renderer.render(request)
            } catch {
                return .unavailable(nil, reason: "digest '\(request.schedule.name)' could not be rendered: \(error)")
            }
            channelName = request.channel
        }
        guard let channel = config.channel(named: channelName) else {
            return .unavailable(message, reason: "channel '\(channelName)' is no longer in the config")
        }
        do {
            return .ready(message, try dispatcher.prepare(message, for: channel))
        } catch let error as ChannelError {
            return .unavailable(message, reason: "channel unavailable: \(error)")
        } catch {
            return .unavailable(message, reason: "channel \(channel.label): \(error)")
        }
    }
}
