import DatebookCore
import Foundation

/// What the code above the store uses of it: events and tasks, occurrences and the agenda, feeds,
/// the delivery ledger, recurrence limits and transactions.
///
/// Two implementations: `Store` (SQLite, the embedded default) and `PostgresStore` (a team store
/// that several scheduler instances share). `StoreOpener.open` picks one from the store location;
/// nothing above the store knows which it has. Defaults for the optional arguments are in the
/// extension below (protocol requirements cannot carry them).
public protocol PlannerStore: AnyObject {
    /// The store's location for messages: a file path, or a URL with its password hidden.
    var location: String { get }
    /// Where recurring events are expanded ahead (the CLI sets now − 7 days … now + 92 days).
    var recurrenceHorizon: DateInterval? { get set }
    /// When a change saved through this store is taken to be made (a command's `--now`); nil: the
    /// system clock at the save. Only CalDAV conflicts read it (`CalDAVEdits`).
    var editTime: Date? { get set }
    /// The file whose changes mean the store changed (the daemon watches it), or nil.
    var watchedFile: String? { get }
    /// A listener for changes committed by any connection, for a store without a file; nil for SQLite.
    func changeListener() -> ChangeListener?

    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` with commits whose durability may lag a little (SQLite: deferred fsync).
    func withDeferredSync<T>(syncInterval: TimeInterval, _ body: () throws -> T) throws -> T
    func userVersion() throws -> Int
    /// Caps the memory the store keeps for itself (the daemon's page cache).
    func limitPageCache(kibibytes: Int) throws
    /// Folds the store file's write-ahead log into the file and empties it (SQLite; a server keeps
    /// its own). The daemon does this before it lets go of a file its path no longer names.
    func emptyLog() throws
    /// `emptyLog` unless another connection is busy, never waiting; false when the log stayed. A
    /// pass does this when it ends, so an idle daemon's store file is whole.
    @discardableResult func emptyLogIfIdle() -> Bool
    /// From here on, closing this connection leaves its write-ahead log as it is: the file's
    /// content was replaced under it, and the old content's log must not reach the new one.
    func keepLogOnClose()

    // Events and tasks
    func save(_ events: [Event], progress: (Int) -> Void) throws
    func save(_ event: Event) throws
    /// Saves `event` inside the caller's `transaction`.
    func saveInTransaction(_ event: Event) throws
    @discardableResult func delete(id: String) throws -> Bool
    func event(id: String) throws -> Event?
    /// The events with these ids, by id (ids without an event are left out).
    func events(ids: [String]) throws -> [String: Event]
    func events(idPrefix prefix: String, limit: Int) throws -> [Event]
    func events(titled title: String) throws -> [Event]
    func forEachEvent(_ body: (Event) throws -> Void) throws
    func forEachEvent(withTaskIn statuses: Set<TaskStatus>, _ body: (Event) throws -> Void) throws
    /// The to-do lists (`Event.isTaskList`) with their tasks, and their open to-dos due in a window.
    func taskLists() throws -> [Event]
    func dueTasks(from: Date?, to: Date?, calendar: Calendar) throws -> [DueTask]
    func eventCount() throws -> Int
    func eventNames(prefix: String, limit: Int) throws -> [EventName]

    // Occurrences, the agenda and the digest's bounded queries
    func forEachOccurrence(from: Date?, to: Date?, calendar: Calendar, _ body: (Occurrence) throws -> Void) throws
    func forEachOccurrenceSummary(from: Date?, to: Date?, calendar: Calendar, _ body: (OccurrenceSummary) throws -> Void) throws
    func firstOccurrences(from: Date?, to: Date?, calendar: Calendar, limit: Int,
                          onlyOpen: Bool, singleOnly: Bool, newest: Bool) throws -> [Occurrence]
    func countedOccurrences(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool, singleOnly: Bool, cap: Int) throws
        -> [CountedOccurrence]
    func hasOccurrence(from: Date?, to: Date?, calendar: Calendar, singleOnly: Bool) throws -> Bool
    func hasRecurringEvents() throws -> Bool
    /// Recurring occurrences in `[from, to)`, chronological; with no `to`, each series once at its first
    /// occurrence at or after `from`, however far (`SeriesReach`).
    func forEachRecurringOccurrence(from: Date, to: Date?, calendar: Calendar, _ body: (OccurrenceSummary) throws -> Void) throws
    func expandRecurringEvents(from: Date, to: Date, calendar: Calendar, onlyOpen: Bool,
                               include: (EventSummary) -> Bool, _ body: (EventSummary, [Date]) throws -> Bool) throws
    func firstSeries(atOrAfter from: Date, calendar: Calendar, count: Int) throws -> [OccurrenceSummary]?
    @discardableResult func extendRecurrenceHorizon() throws -> Int
    func recurrenceLimit(of event: Event) throws -> RecurrenceLimit?
    func truncatedRecurrences() throws -> [RecurrenceLimit]
    func recurrenceLimits() throws -> [RecurrenceLimit]

    // iCalendar import and export
    func timedEventZones() throws -> [String]
    func sourceUIDs() throws -> [String: String]
    func saveImport(_ result: ICSImport, calendar: String, progress: (Int) -> Void) throws
    /// Runs an import saved batch by batch (`saveImportBatch`) as one transaction: a failure in any
    /// batch leaves the store as it was. `expected`: about how many events the batches hold.
    func importTransaction<T>(expected: Int, _ body: () throws -> T) throws -> T
    /// Saves one batch of an import inside `importTransaction`, as `saveImport` saves a whole one;
    /// `rewritten`: ids of events an earlier batch saved, which this one saves again.
    func saveImportBatch(_ batch: ICSImport, calendar: String, rewritten: Set<String>, progress: (Int) -> Void) throws
    /// `event(id:)` for an event an earlier batch of the running import saved (whose rows may wait
    /// to be written, `ImportRuns`).
    func importedEvent(id: String) throws -> Event?

    // Action links (issue 16): the signing key and the links already used
    func secretKey(named name: String, now: Date) throws -> Data
    func storedSecret(named name: String) throws -> Data?
    func useActionLink(id: String, action: String, eventID: String, expires: Date, now: Date) throws -> Bool
    func isActionLinkUsed(id: String) throws -> Bool

    // Feeds
    @discardableResult func addFeed(_ feed: Feed) throws -> Bool
    func updateFeed(named name: String, source: String, every: Int) throws
    func feeds() throws -> [Feed]
    func feed(named name: String) throws -> Feed?
    @discardableResult func removeFeed(named name: String) throws -> Bool
    func feedName(ofEvent id: String) throws -> String?
    func replaceFeedEvents(_ feed: Feed, with result: ICSImport, etag: String?, lastModified: String?, now: Date) throws
    func recordFeedCheck(_ feed: Feed, now: Date, error: String?) throws

    // The delivery ledger
    /// Inside a pass's transaction, before it reads `lastPass`: waits while another pass on this
    /// store plans, and keeps the others waiting until this transaction ends, so each pass reads the
    /// last pass as the one before it left it and plans only what that one has not.
    func lockPlanning() throws
    func lastPass() throws -> Date?
    func setLastPass(_ date: Date) throws
    /// A named instant the scheduler keeps beside the last pass (`clock_jump_from`, `clock_jump_at`).
    func schedulerMark(_ name: String) throws -> Date?
    func setSchedulerMark(_ name: String, _ date: Date) throws
    /// After the clock went back: the deliveries skipped as too late whose due time is after
    /// `dueAfter` (so a pass at a wrong, later time skipped them) go back to pending, to be sent at
    /// their due time; the number of them. Call inside the pass's transaction.
    func replanSkippedAsLate(dueAfter: Date, now: Date) throws -> Int
    /// After the clock went back: what a pass at a wrong, later time wrote (`updated_at` after
    /// `writtenAfter`) is judged again. Deliveries it sent long before their due time (due after
    /// `dueAfter`: the scheduler gives now + lateness) go back to pending with `reason`, to be sent
    /// again at their due time (an alert a month early is lost in practice); retries it scheduled
    /// start over from their due time; claims whose lease ends after `leaseEnd` (given at the wrong
    /// time) end then instead. The numbers of the first two.
    func replanWrittenAhead(now: Date, writtenAfter: Date, dueAfter: Date, leaseEnd: Date,
                            reason: String) throws -> (resent: Int, retries: Int)
    func distinctEventAlerts() throws -> [String]
    /// The events inserted, moved or given other lead times since the last pass took them (taking:
    /// emptying the queue, inside the pass's transaction); an empty queue is only read.
    func changedEvents(taking: Bool) throws -> Set<String>
    @discardableResult func plan(_ entry: LedgerEntry, now: Date) throws -> Bool
    /// Plans all of `entries` (existing keys are left alone); the keys that were new.
    func plan(_ entries: [LedgerEntry], now: Date) throws -> Set<String>
    func openDeliveries() throws -> [LedgerEntry]
    func settledDeliveries(since: Date, excluding states: [LedgerEntry.State]) throws -> [LedgerEntry]
    func delivery(key: String) throws -> LedgerEntry?
    func allDeliveries() throws -> [LedgerEntry]
    func releaseAbandoned(now: Date, isGone: (String) -> Bool) throws
    func claimDue(now: Date, lease: TimeInterval, claimant: String, limit: Int) throws -> [LedgerEntry]
    /// The fence before transfers start: of the `claims` (rows as this pass claimed them), those still
    /// claimed by `claimant` with the lease this pass gave them (another pass of the same process
    /// that took one over gave it another), not run out at `now`, each given a fresh lease in the
    /// statement that checks it; their keys. Only those may be sent; the others were taken over (or
    /// are about to be) by another pass.
    func startSending(_ claims: [LedgerEntry], claimant: String, now: Date, lease: TimeInterval) throws -> Set<String>
    func settle(key: String, claimant: String, as state: LedgerEntry.State, reason: String?, nextAttempt: Date?, now: Date) throws
    /// `settle` for several outcomes of one claimant, all or none.
    func settle(_ outcomes: [Settlement], claimant: String, now: Date) throws
    /// Records what channels accepted of claimed deliveries so far; only rows still claimed by `claimant` change.
    func recordProgress(_ progress: [DeliveryProgressRecord], claimant: String) throws
    func finish(key: String, as state: LedgerEntry.State, reason: String, now: Date) throws
    /// Changes made by other connections since this one opened show up as a new value.
    func dataVersion() throws -> Int
    func integrityCheck() throws -> String

    // Scheduler instances (`datebook run`), for `status` (SchedulerInstance.swift)
    /// Writes `instance`, or refreshes the one with its host and pid.
    func recordScheduler(_ instance: SchedulerInstance) throws
    func removeScheduler(host: String, pid: Int) throws
    /// The instances last seen at `seenSince` or later, by host and pid.
    func schedulers(seenSince: Date) throws -> [SchedulerInstance]

    func pendingRetryCount() throws -> Int
    /// The earliest pending attempt or lease end (the daemon's next wake-up for the ledger).
    func nextLedgerWake() throws -> Date?
}

extension PlannerStore {
    public func withDeferredSync<T>(_ body: () throws -> T) throws -> T { try withDeferredSync(syncInterval: 0.05, body) }
    public func save(_ events: [Event]) throws { try save(events, progress: { _ in }) }
    public func events(idPrefix prefix: String) throws -> [Event] { try events(idPrefix: prefix, limit: 10) }
    public func eventNames(prefix: String) throws -> [EventName] { try eventNames(prefix: prefix, limit: 100) }
    /// The agenda of the given periods for `boundaries.now`, as listing summaries.
    public func agenda(boundaries: PeriodBoundaries, calendar: Calendar, periods: [Period] = Period.allCases) throws -> Agenda {
        var occurrences: [OccurrenceSummary] = []
        for period in periods {
            let range = boundaries.range(of: period)
            try forEachOccurrenceSummary(from: range.from, to: range.to, calendar: calendar) { occurrences.append($0) }
        }
        return Agenda(occurrences: occurrences, boundaries: boundaries, periods: periods)
    }
    /// The number of occurrences in `[from, to)` and the sum of their open tasks, counting stopped
    /// after `cap` (`capped` is then set; see `countedOccurrences`).
    public func totals(from: Date?, to: Date?, calendar: Calendar, onlyOpen: Bool = false, singleOnly: Bool = false,
                       cap: Int = Int.max) throws -> WindowTotals {
        let counted = try countedOccurrences(from: from, to: to, calendar: calendar, onlyOpen: onlyOpen, singleOnly: singleOnly, cap: cap)
        return WindowTotals(capping: counted.map(\.openTasks), cap: cap)
    }
    public func hasOccurrence(from: Date?, to: Date?, calendar: Calendar) throws -> Bool {
        try hasOccurrence(from: from, to: to, calendar: calendar, singleOnly: false)
    }
    public func expandRecurringEvents(from: Date, to: Date, calendar: Calendar, include: (EventSummary) -> Bool,
                                      _ body: (EventSummary, [Date]) throws -> Bool) throws {
        try expandRecurringEvents(from: from, to: to, calendar: calendar, onlyOpen: false, include: include, body)
    }
    public func saveImport(_ result: ICSImport, calendar: String) throws { try saveImport(result, calendar: calendar, progress: { _ in }) }
    public func importedEvent(id: String) throws -> Event? { try event(id: id) }
    public func settledDeliveries(since: Date) throws -> [LedgerEntry] { try settledDeliveries(since: since, excluding: []) }
    public func claimDue(now: Date, lease: TimeInterval, claimant: String) throws -> [LedgerEntry] {
        try claimDue(now: now, lease: lease, claimant: claimant, limit: 1000)
    }
}

extension Store: PlannerStore {
    public var location: String { path }
    public func changeListener() -> ChangeListener? { nil }
}

/// Opens the store a location names: a `postgresql://` or `postgres://` URL, else a SQLite file.
public enum StoreOpener {
    public static func open(_ location: String, readOnly: Bool = false) throws -> any PlannerStore {
        try openSQL(location, readOnly: readOnly)
    }

    /// The store as the shared SQL reads and writes it (`store copy`).
    static func openSQL(_ location: String, readOnly: Bool = false) throws -> any SQLStore {
        try refuseKeywordForm(location)
        switch SQLDialect.of(location: location).kind {
        case .postgres: return try PostgresStore(url: location)
        case .sqlite: return try Store(path: location, readOnly: readOnly)
        }
    }

    /// The SQLite store at `location` (`store backup` and `restore` copy its file's pages); nil
    /// when the location names a server, which has no file to copy.
    public static func openFile(_ location: String) throws -> Store? {
        try refuseKeywordForm(location)
        return SQLDialect.of(location: location).hasFile ? try Store(path: location) : nil
    }

    /// The schema version recorded at `location` and the newest one this build knows for that kind
    /// of store, read without creating or changing anything; nil when nothing is recorded there yet.
    public static func schemaVersions(_ location: String) throws -> (found: Int, known: Int)? {
        try refuseKeywordForm(location)
        switch SQLDialect.of(location: location).kind {
        case .postgres: return try PostgresStore.recordedSchemaVersion(url: location).map { ($0, PostgresStore.schemaVersion) }
        case .sqlite: return try Store.recordedSchemaVersion(at: location).map { ($0, Store.schemaVersion) }
        }
    }

    /// libpq's `host=… password=…` form would otherwise become a SQLite file of that name (its
    /// password in the file name and in every message about it).
    static func refuseKeywordForm(_ location: String) throws {
        guard StoreLocation.isKeywordForm(location) else { return }
        throw StoreError.postgres(store: StoreLocation.redacted(location),
                                  message: "the keyword form is not a store; write postgresql://USER@HOST:PORT/DATABASE (a password in PGPASSFILE) — nothing was created")
    }
}
