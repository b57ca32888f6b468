import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookStore
import Foundation

/// Decides what is due and drives it through the ledger: `tick(now:)` is one pass (plan, claim,
/// deliver, record). The daemon is a loop around it; nothing here reads the system clock.
///
/// Promises (DESIGN.md): keys come from data; a row is claimed with an atomic
/// `UPDATE … WHERE state = 'pending'` inside BEGIN IMMEDIATE, so two processes never send the
/// same delivery; it is marked sent only after the channel accepted it; a crash leaves it
/// `sending` until its lease ends or its process is gone, and it is then sent again (a crash
/// duplicates only what it had in flight or held unwritten: at most `inFlightBound`).
public final class Scheduler {
    /// Tunables; the defaults suit cron and the daemon.
    public struct Options: Sendable {
        /// How long a claim holds before another process may take the delivery over.
        public var lease: TimeInterval = 300
        /// A delivery accepted on an attempt that started more than this after `due` is `sent-late`.
        public var lateAfter: TimeInterval = 60
        /// The furthest back a pass looks after a long downtime (older items are not recorded at all).
        public var maxLookBack: TimeInterval = 35 * 86_400
        public var claimBatch = 250
        /// Outcomes a pass may hold unwritten while further transfers start, written together with
        /// the next fences (`GroupCommit`): what a crash may send again beyond what was in flight.
        public var outcomeHold = 32
        /// How long the first held outcome may wait to be written (plus one turn of the deliverer).
        public var outcomeHoldTime: TimeInterval = 0.05
        /// While a pass cannot record outcomes (full disk, store locked), it logs this often that it
        /// keeps trying (it tries until it can, holding back the next transfers meanwhile).
        public var recordPatience: TimeInterval = 60
        /// How far beyond `alerts.lateness` a pass looks back for the alerts of events changed since
        /// the last pass (docs/scheduler.md, "Late changes"): those are recorded `skipped`, older
        /// ones not at all, as for an event that was never seen.
        public var changeLookBack: TimeInterval = 86_400
        /// A pass that finds `now` earlier than the last pass by more than this takes it for a clock
        /// that was wrong (docs/scheduler.md, "Faults"); less is jitter between hosts.
        public var clockTolerance: TimeInterval = 300
        /// A pass that planned nothing records its time only when the last record is this old.
        public var lastPassInterval: TimeInterval = 60
        /// `serve.baseURL`: when set, every alert carries signed action links under it (issue 16).
        public var actionLinkBaseURL: String?
        /// The words of alerts, in the config's `locale` (English by default).
        public var words: MessageCatalog = .english
        public init() {}
    }

    public let store: any PlannerStore
    public let config: Config
    public let calendar: Calendar
    public let planner: Planner
    let environment: [String: String]
    let deliverer: any DeliverySending
    let retryPolicy: RetryPolicy
    let random: () -> Double
    let digestRenderer: any DigestRendering
    public let options: Options
    let log: (String) -> Void
    /// `host:pid` of this process, written into claims.
    let claimant: String
    let host: String

    public init(store: any PlannerStore, config: Config, calendar: Calendar, environment: [String: String] = [:],
                deliverer: any DeliverySending = Deliverer(), retryPolicy: RetryPolicy? = nil,
                random: @escaping () -> Double = { Double.random(in: 0..<1) },
                digestRenderer: any DigestRendering = PlainDigestRenderer(), options: Options = Options(),
                log: @escaping (String) -> Void = { _ in }) {
        self.store = store
        self.config = config
        self.calendar = calendar
        self.planner = Planner(store: store, config: config, calendar: calendar)
        self.environment = environment
        self.deliverer = deliverer
        // Retries last until the lateness: an alert is worth sending as long as it may be late.
        self.retryPolicy = retryPolicy ?? RetryPolicy(deadline: config.alerts.lateness)
        self.random = random
        self.digestRenderer = digestRenderer
        self.options = options
        self.log = log
        self.host = Self.hostName
        self.claimant = host + ":" + String(getpid())
    }

    /// One pass: plans everything scheduled since the last pass (bounded by the lateness window),
    /// cancels what edits made obsolete, claims what is due and delivers it.
    ///
    /// The reads and the window's expansion come first, outside any transaction; the planning
    /// transaction only writes what they found (and what another scheduler's pass did not plan
    /// meanwhile), so the planning lock is held for a few statements, never for Swift's work on a
    /// large planner: a paused or slow scheduler stalls the others for at most the server's
    /// `idle_in_transaction_session_timeout` (docs/postgresql.md, "Faults").
    @discardableResult
    public func tick(now: Date) throws -> TickReport {
        var report = TickReport()
        var recorded: [String] = []
        let started = ContinuousClock.now
        let obsolete = try obsoleteOpenDeliveries()
        let seen = try store.lastPass()
        let found = try WindowPlan(self, now: now, last: seen)
        var claimed = try store.transaction { () -> [LedgerEntry] in
            // Another scheduler planning now has planned this window once it lets go: read the
            // last pass after that, and plan only what came due since. The review only reads
            // before it, so a pass waiting here holds no row the pass it waits for may need.
            try store.lockPlanning()
            for (entry, state, reason) in obsolete {
                try store.finish(key: entry.key, as: state, reason: reason, now: now)
                report.count(state)
                recorded.append(logLine(entry, state, reason))
            }
            let last = try store.lastPass()
            if let line = try reviewClock(now: now, last: last) { recorded.append(line) }
            let entries = try found.remaining(self, now: now, seen: seen, last: last).map { classify($0, now: now) }
            var new = try store.plan(entries, now: now)
            let planned = !new.isEmpty
            for entry in entries where new.remove(entry.key) != nil {
                report.count(entry.state)
                if entry.state != .pending { recorded.append(logLine(entry, entry.state, entry.reason)) }
            }
            // An idle pass writes nothing (so it wakes no daemon); the window then just starts a little earlier.
            if planned || last.map({ now < $0 || now.timeIntervalSince($0) >= options.lastPassInterval }) ?? true {
                try store.setLastPass(now)
            }
            try store.releaseAbandoned(now: now, isGone: isGone)
            return try store.claimDue(now: now, lease: options.lease, claimant: claimant, limit: options.claimBatch)
        }
        recorded.forEach(log)  // only once committed
        // Later claims and the fence before each transfer: the injected time plus the real time this
        // pass has taken (a process held up meanwhile, by SIGSTOP say, finds its leases run out).
        let passTime = { () -> Date in
            let elapsed = ContinuousClock.now - started
            return now.addingTimeInterval(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        // One deferred-sync span (and log syncer) for all the pass's batches, not one per batch of
        // `claimBatch`: later claims skip the fsync too, as the outcomes do (`deliver`).
        try store.withDeferredSync {
            while !claimed.isEmpty {
                // Read once for the messages and the log lines (re-read per line, they were 6% of a pass's CPU).
                let events = try store.events(ids: claimed.compactMap(\.eventID))
                try deliver(claimed, try prepare(claimed, events: events, now: now), events: events, now: now, passTime: passTime,
                            report: &report)
                guard claimed.count == options.claimBatch else { break }
                let later = passTime()
                claimed = try store.transaction {
                    try store.claimDue(now: later, lease: options.lease, claimant: claimant, limit: options.claimBatch)
                }
            }
        }
        report.retriesRemaining = try store.pendingRetryCount()
        return report
    }

    /// The window `(last, now]` (`last`: the last pass), or `(now − lateness, now]` on the first
    /// pass; empty when the clock went backwards (keys then keep a replanned item from being sent
    /// twice). Before it, the alerts of the events changed since the last pass that the window no
    /// longer covers (taking: the queue of changed events is emptied, inside the pass's transaction).
    func plannedSinceLastPass(now: Date, last: Date?, taking: Bool = false) throws -> [PlannedDelivery] {
        let start = windowStart(last: last, now: now)
        let changed = try store.changedEvents(taking: taking)
        return try lateChanges(changed, last: last, windowStart: start, now: now)
            + planner.deliveries(from: start, through: now)
    }

    /// What a pass found to plan before its planning transaction: the window since the last pass it
    /// read, and the late changes of the events queued then.
    struct WindowPlan {
        var changed: Set<String>
        var late: [PlannedDelivery]
        var window: [PlannedDelivery]

        init(_ scheduler: Scheduler, now: Date, last: Date?) throws {
            let start = scheduler.windowStart(last: last, now: now)
            changed = try scheduler.store.changedEvents(taking: false)
            late = try scheduler.lateChanges(changed, last: last, windowStart: start, now: now)
            window = try scheduler.planner.deliveries(from: start, through: now)
        }

        /// Under the planning lock, with `last` read again: what is still to plan. When another pass
        /// planned since `seen`, the part of the window it planned is left out and the late changes
        /// are looked for again from what is queued now (it took what it planned off the queue);
        /// else only the events queued since are looked back for here. A last pass that went
        /// backwards meanwhile (a clock set back) plans everything here, as before.
        func remaining(_ scheduler: Scheduler, now: Date, seen: Date?, last: Date?) throws -> [PlannedDelivery] {
            if let seen, (last.map { $0 < seen } ?? true) {
                return try scheduler.plannedSinceLastPass(now: now, last: last, taking: true)
            }
            let queued = try scheduler.store.changedEvents(taking: true)
            let start = scheduler.windowStart(last: last, now: now)
            let unchanged = last == seen
            let added = try scheduler.lateChanges(unchanged ? queued.subtracting(changed) : queued, last: last,
                                                  windowStart: start, now: now)
            let kept = !unchanged ? [] : late.filter { planned in
                guard case .alert(let occurrence, _) = planned.item else { return true }
                return queued.contains(occurrence.event.id)
            }
            let since = unchanged ? window : window.filter { planned in last.map { planned.scheduled > $0 } ?? true }
            return kept + added + since
        }
    }

    /// The alerts of the events `ids` in `(now − lateness − changeLookBack, window start]`: an event
    /// added, moved or given a lead time after a pass, whose alert fell due before it, is planned
    /// as a first pass would (late within the lateness, `skipped` beyond). A first pass has none:
    /// its window already reaches back by the lateness, and everything is new to it.
    func lateChanges(_ ids: Set<String>, last: Date?, windowStart: Date, now: Date) throws -> [PlannedDelivery] {
        guard last != nil, !ids.isEmpty else { return [] }
        let from = max(now.addingTimeInterval(-config.alerts.lateness - options.changeLookBack),
                       now.addingTimeInterval(-options.maxLookBack))
        return try planner.alerts(of: ids, from: from, through: min(windowStart, now))
    }

    func windowStart(last: Date?, now: Date) -> Date {
        max(last ?? now.addingTimeInterval(-config.alerts.lateness), now.addingTimeInterval(-options.maxLookBack))
    }

    /// Pending, skipped (too late when first seen) or cancelled (all tasks done) for a new item.
    func classify(_ planned: PlannedDelivery, now: Date) -> LedgerEntry {
        if case .alert(let occurrence, _) = planned.item, config.alerts.cancelWhenDone, occurrence.event.isComplete {
            return planned.entry(state: .cancelled, reason: "all tasks done")
        }
        let lateBy = now.timeIntervalSince(planned.due)
        if lateBy > config.alerts.lateness {
            return planned.entry(state: .skipped, reason: "late: due \(ISOInstant.format(planned.due)), first seen "
                                 + "\(Self.duration(lateBy)) later, over the lateness of \(Self.duration(config.alerts.lateness))")
        }
        return planned.entry(state: .pending)
    }

    /// The pending deliveries a pass finishes without sending, and how: alerts whose event was
    /// deleted, moved or completed are cancelled, deliveries whose channel or digest left the config
    /// fail. Reads only (`finish` writes each, only if still pending).
    func obsoleteOpenDeliveries() throws -> [(LedgerEntry, LedgerEntry.State, String)] {
        let pending = try store.openDeliveries().filter { $0.state == .pending }
        let events = try store.events(ids: pending.compactMap(\.eventID))
        return try pending.compactMap { entry in try obsolete(entry, events: events).map { (entry, $0.0, $0.1) } }
    }

    /// Why a delivery should no longer be sent, or nil when it still should; `events` read in one
    /// go beforehand, else the store is asked.
    func obsolete(_ entry: LedgerEntry, events: [String: Event]? = nil) throws -> (LedgerEntry.State, String)? {
        guard config.channel(named: entry.channel) != nil else {
            return (.failed, "channel '\(entry.channel)' is no longer in the config")
        }
        switch entry.kind {
        case .digest:
            guard config.digests.contains(where: { $0.name == entry.digest }) else {
                return (.cancelled, "digest '\(entry.digest ?? "")' is no longer in the config")
            }
            return nil
        case .alert:
            guard let id = entry.eventID, let event = try events.map({ $0[id] }) ?? store.event(id: id) else {
                return (.cancelled, "event deleted")
            }
            guard let start = entry.occurrenceStart, try currentOccurrence(of: event, at: start) != nil else {
                return (.cancelled, "event moved")
            }
            if config.alerts.cancelWhenDone, event.isComplete { return (.cancelled, "all tasks done") }
            if let lead = entry.lead.flatMap({ LeadTime($0) }), !planner.leads(for: event).contains(lead) {
                return (.cancelled, "lead time \(lead) no longer set for this event")
            }
            if !config.alerts.channels.contains(entry.channel) {
                return (.cancelled, "channel '\(entry.channel)' no longer in alerts.channels")
            }
            return nil
        }
    }

    /// True when a claim's process is gone: same host, and no process with that pid.
    func isGone(_ claimant: String) -> Bool {
        guard let colon = claimant.lastIndex(of: ":"), claimant[..<colon] == host,
              let pid = Int32(claimant[claimant.index(after: colon)...]) else { return false }
        if pid == getpid() { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// The next moment a pass has work, looking at most `horizon` ahead (the daemon re-checks anyway).
    public func nextWake(after now: Date, horizon: TimeInterval = 65) throws -> Date? {
        let retry = try store.nextLedgerWake().map { max($0, now) }
        let planned = try planner.deliveries(from: now, through: now.addingTimeInterval(horizon)).first?.scheduled
        return [retry, planned].compactMap { $0 }.min()
    }

    /// gethostname(2): cheap, unlike `ProcessInfo.hostName`, which may ask the resolver.
    public static var hostName: String { SchedulerInstance.localHost }

    public static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        if s >= 86_400 { return "\(s / 86_400)d\(s % 86_400 / 3600)h" }
        if s >= 3600 { return "\(s / 3600)h\(s % 3600 / 60)m" }
        if s >= 60 { return "\(s / 60)m\(s % 60)s" }
        return "\(s)s"
    }

    /// One journald-friendly line per delivery outcome; never a secret (reasons are redacted upstream).
    /// `sent alert 'Dentist' (1h before) to hook`: the event's title and the channel, not the ledger key.
    /// `events`: the pass's batch, already read (see `describe`).
    func logLine(_ entry: LedgerEntry, _ state: LedgerEntry.State, _ reason: String?, events: [String: Event] = [:]) -> String {
        var line = "\(state.rawValue) \(describe(entry, events: events)) to \(entry.channel)"
        if entry.attempts > 1 { line += " (attempt \(entry.attempts))" }
        if let reason { line += " — " + reason }
        return line
    }
}

/// Counts from one pass.
public struct TickReport: Sendable, Equatable {
    public var sent = 0, sentLate = 0, skipped = 0, cancelled = 0, failed = 0, planned = 0, retried = 0
    /// Deliveries still pending after an attempt (retries scheduled): `tick` exits 75.
    public var retriesRemaining = 0
    /// Deliveries that failed because their retries reached the deadline: `tick` exits 69.
    public var gaveUp = 0

    mutating func count(_ state: LedgerEntry.State) {
        switch state {
        case .pending: planned += 1
        case .sending: break
        case .sent: sent += 1
        case .sentLate: sentLate += 1
        case .skipped: skipped += 1
        case .cancelled: cancelled += 1
        case .failed: failed += 1
        }
    }
}
