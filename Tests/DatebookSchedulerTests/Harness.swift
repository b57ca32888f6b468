import DatebookCore
import DatebookDelivery
@testable import DatebookRender
@testable import DatebookScheduler
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// `2026-12-01T08:00:00Z` → Date (tests spell instants in UTC so expectations are unambiguous).
func utc(_ text: String) -> Date {
    ISOInstant.parse(text) ?? Date(timeIntervalSince1970: 0)
}

/// A scripted channel: records every step's Idempotency-Key with the simulated time and answers
/// by URL path (`/hook` accepts; `outcome` may script anything else). Steps go one at a time, each
/// outcome its own group; `beforeTransfer` runs after each step was allowed (`starting`), just
/// before it is sent: where a transfer starts, as in `Deliverer`.
final class FakeChannels: DeliverySending {
    var now = Date(timeIntervalSince1970: 0)
    private(set) var sent: [(key: String, at: Date)] = []
    var outcome: (String, String) -> DeliveryOutcome = { _, _ in .http(HTTPResponse(status: 204)) }
    var beforeTransfer: () -> Void = {}
    let maxInFlight = 1

    func deliver(_ steps: [DeliveryStep], starting: ([Int]) -> Set<Int>,
                 onOutcomes: ([(index: Int, outcome: DeliveryOutcome)]) -> Void) {
        for (index, step) in steps.enumerated() {
            guard starting([index]).contains(index) else { continue }
            beforeTransfer()
            guard case .http(let requests) = step, let request = requests.first else {
                onOutcomes([(index, .accepted)])
                continue
            }
            let key = request.header("Idempotency-Key") ?? ""
            sent.append((key, now))
            onOutcomes([(index, outcome(URL(string: request.url)?.path ?? "", key))])
        }
    }

    func count(_ key: String) -> Int { sent.filter { $0.key == key }.count }
    func times(_ key: String) -> [Date] { sent.filter { $0.key == key }.map(\.at) }
}

/// A scratch store, a config with webhook channels, a fake network and an injected clock.
final class Harness {
    let directory: String
    let store: Store
    var config: Config
    let calendar: Calendar
    let fake = FakeChannels()
    var log: [String] = []

    init(zone: String, alerts: AlertPolicy = AlertPolicy(before: [LeadTime(seconds: 3600)], channels: ["hook"]),
         digests: [DigestSchedule] = []) throws {
        directory = makeScratchFolder("sched")
        store = try Store(path: directory + "/store.sqlite3")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        self.calendar = calendar
        config = Config(timeZone: zone, channels: [
            Channel(name: "hook", kind: .webhook(url: .inline("http://127.0.0.1:9/hook"), secret: nil)),
            Channel(name: "dead", kind: .webhook(url: .inline("http://127.0.0.1:9/dead"), secret: nil)),
            Channel(name: "locked", kind: .slack(url: .environment("DATEBOOK_TEST_UNSET_URL"))),
        ], digests: digests, alerts: alerts)
    }

    deinit { removeScratchFolder(directory) }

    func scheduler(random: @escaping () -> Double = { 0.5 }) -> Scheduler {
        Scheduler(store: store, config: config, calendar: calendar, environment: ["SLACK_SECRET": "s3cr3t-value"],
                  deliverer: fake, random: random, log: { [weak self] in self?.log.append($0) })
    }

    @discardableResult
    func tick(_ now: Date) throws -> TickReport {
        fake.now = now
        return try scheduler().tick(now: now)
    }

    /// Ticks every `step` seconds through `(from, to]`.
    func run(from: Date, to: Date, every step: TimeInterval = 300) throws {
        var now = from
        while now <= to {
            try tick(now)
            now = now.addingTimeInterval(step)
        }
    }

    @discardableResult
    func add(_ title: String, at start: EventStart, alerts: [LeadTime] = [], tasks: [EventTask] = []) throws -> Event {
        let event = Event(id: EventID.stable(title), title: title, start: start, timeZone: calendar.timeZone.identifier,
                          symbol: .star, color: .primary, tasks: tasks, alerts: alerts)
        try store.save(event)
        return event
    }

    func alertKey(_ event: Event, _ lead: String, channel: String = "hook") -> String {
        AlertMessage.key(eventID: event.id, occurrenceStart: event.start.resolved(in: calendar),
                         lead: LeadTime(lead) ?? LeadTime(), channel: channel)
    }

    func state(_ key: String) throws -> LedgerEntry? { try store.delivery(key: key) }
}
