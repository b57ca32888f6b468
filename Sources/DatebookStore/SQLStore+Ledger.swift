import DatebookCore
import Foundation

/// The delivery ledger (DESIGN.md, "Delivery promises"), on both databases: one row per (item,
/// channel), keyed by data. Times are Unix milliseconds.
///
/// A claim is a lease (`claimed_by`, `lease_until`) that another scheduler takes over once it runs
/// out. `claimDue` takes rows inside the caller's transaction: SQLite's write transaction holds the
/// whole file; PostgreSQL locks the rows it takes with `FOR UPDATE SKIP LOCKED` (`dialect.skipLocked`),
/// so two instances never claim the same delivery and neither waits for the other's. Plans, fences,
/// outcomes and progress go in batches (`SQLBatch`): one statement for many rows.
extension SQLStore {
    public func replanSkippedAsLate(dueAfter: Date, now: Date) throws -> Int {
        try run(LedgerSQL.replanSkipped, .millis(now), .millis(dueAfter))
    }

    public func replanWrittenAhead(now: Date, writtenAfter: Date, dueAfter: Date, leaseEnd: Date,
                                   reason: String) throws -> (resent: Int, retries: Int) {
        let resent = try run(LedgerSQL.resendSentEarly, .millis(now), .text(reason), .millis(writtenAfter), .millis(dueAfter))
        let retries = try run(LedgerSQL.restartRetriesAhead, .millis(now), .millis(writtenAfter))
        try run("UPDATE deliveries SET lease_until = $1 WHERE state = 'sending' AND lease_until > $1", .millis(leaseEnd))
        return (resent, retries)
    }

    /// The per-event alert lead lists (`"1d 1h"`) in use (and possibly some no longer used):
    /// `alert_lead_sets`, kept by triggers, lists every one ever stored, so a pass finds them
    /// without reading 100k events; stale entries only widen the search a little.
    public func distinctEventAlerts() throws -> [String] {
        try rows("SELECT alerts FROM alert_lead_sets") { $0.text(0) }
    }

    /// Adds a planned delivery unless its key is already in the ledger; true when added.
    @discardableResult
    public func plan(_ entry: LedgerEntry, now: Date) throws -> Bool {
        try plan([entry], now: now).contains(entry.key)
    }

    /// Plans all of `entries` (existing keys are left alone) in batches; the keys that were new.
    public func plan(_ entries: [LedgerEntry], now: Date) throws -> Set<String> {
        var added: Set<String> = []
        try run(LedgerSQL.plan, shared: [.millis(now)], entries, values: { entry in
            [.text(entry.key), .text(entry.kind.rawValue), .optional(entry.eventID), .millis(entry.occurrenceStart),
             .optional(entry.lead), .optional(entry.digest), .optional(entry.digestDate), .text(entry.channel),
             .millis(entry.dueAt), .text(entry.state.rawValue), .optional(entry.reason), .millis(entry.nextAttemptAt)]
        }, row: { added.insert($0.text(0)) })
        return added
    }

    /// Pending and in-flight deliveries (for cancellation checks, `status` and the daemon's wake-up).
    public func openDeliveries() throws -> [LedgerEntry] {
        try entries(where: "state IN ('pending', 'sending')", [], order: "next_attempt_at, key")
    }

    /// End states (everything but `pending`/`sending`) updated since `since`, newest first.
    public func settledDeliveries(since: Date, excluding states: [LedgerEntry.State]) throws -> [LedgerEntry] {
        let excluded = states.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
        return try entries(where: "updated_at >= $1 AND state NOT IN ('pending', 'sending')"
                               + (states.isEmpty ? "" : " AND state NOT IN (\(excluded))"),
                           [.millis(since)] + states.map { .text($0.rawValue) }, order: "updated_at DESC, key")
    }

    /// The ledger row with this key.
    public func delivery(key: String) throws -> LedgerEntry? {
        try entries(where: "key = $1", [.text(key)], order: "key").first
    }

    /// Every ledger row (tests and diagnostics).
    public func allDeliveries() throws -> [LedgerEntry] {
        try entries(where: "TRUE", [], order: "due_at, key")
    }

    /// `order` ends with a text column, compared byte by byte on both databases.
    func entries(where condition: String, _ values: [SQLValue], order: String) throws -> [LedgerEntry] {
        try rows("SELECT \(LedgerSQL.columns) FROM deliveries WHERE \(condition) ORDER BY \(order)\(dialect.byteOrder)", values,
                 { LedgerSQL.entry(from: $0) })
    }

    /// Puts in-flight deliveries whose lease ran out, or whose claimant `isGone`, back to pending.
    ///
    /// This is the crash path: a process killed mid-send leaves `sending` rows; re-claiming them may
    /// send a delivery a second time (only those the crashed process had in flight, each once).
    /// Call inside a transaction.
    public func releaseAbandoned(now: Date, isGone: (String) -> Bool) throws {
        let claimants = try rows("SELECT DISTINCT claimed_by FROM deliveries WHERE state = 'sending'") { $0.optionalText(0) }
        // nil first: the leases that ran out, whoever holds them.
        for claimant in [nil] + claimants.compactMap({ $0 }).filter(isGone) {
            try run("""
                UPDATE deliveries SET state = 'pending', lease_until = NULL, claimed_by = NULL
                WHERE state = 'sending' AND (lease_until <= $1 OR claimed_by = $2)
                """, .millis(now), .optional(claimant))
        }
    }

    /// Atomically claims up to `limit` pending deliveries due by `now` for `lease` seconds, in key
    /// order; rows another instance is claiming at this moment are skipped, not waited for.
    public func claimDue(now: Date, lease: TimeInterval, claimant: String, limit: Int) throws -> [LedgerEntry] {
        try rows("""
            UPDATE deliveries SET state = 'sending', attempts = attempts + 1, lease_until = $1, claimed_by = $2,
                first_attempt_at = coalesce(first_attempt_at, $3), updated_at = $3
            WHERE key IN (SELECT key FROM deliveries WHERE state = 'pending' AND next_attempt_at <= $3
                          ORDER BY next_attempt_at LIMIT $4\(dialect.skipLocked))
            RETURNING \(LedgerSQL.columns)
            """, [.millis(now.addingTimeInterval(lease)), .text(claimant), .millis(now), .int(limit)], { LedgerSQL.entry(from: $0) })
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// The fence before a transfer starts: of `claims`, those still claimed by `claimant` with the
    /// lease this pass gave them (a fencing token), not run out at `now`, get a fresh lease (`now +
    /// lease`) in the statement that checks the claim; only those may be sent. A process held up
    /// past its lease (SIGSTOP, a full disk, a paused VM) finds its claims gone once another process
    /// took them over, and sends none.
    public func startSending(_ claims: [LedgerEntry], claimant: String, now: Date, lease: TimeInterval) throws -> Set<String> {
        var started: Set<String> = []
        try run(LedgerSQL.startSending, shared: [.millis(now.addingTimeInterval(lease)), .text(claimant), .millis(now)], claims,
                values: { [.text($0.key), .millis($0.claimedUntil)] }, row: { started.insert($0.text(0)) })
        return started
    }

    /// Applies one outcome; only a row still claimed by `claimant` changes, so a process whose lease
    /// was taken over cannot overwrite the newer claim's result.
    public func settle(key: String, claimant: String, as state: LedgerEntry.State, reason: String?,
                       nextAttempt: Date?, now: Date) throws {
        try settle([Settlement(key: key, state: state, reason: reason, nextAttempt: nextAttempt)], claimant: claimant, now: now)
    }

    /// Applies several outcomes, all or none, in batches: on PostgreSQL one round trip for a group
    /// of answers the deliverer hands over instead of two plus one per delivery.
    public func settle(_ outcomes: [Settlement], claimant: String, now: Date) throws {
        try run(LedgerSQL.settle, shared: [.millis(now), .text(claimant)], outcomes, values: {
            [.text($0.key), .text($0.state.rawValue), .optional($0.reason), .millis($0.nextAttempt)]
        })
    }

    /// Records what the channels already accepted of claimed deliveries (`LedgerEntry.progress`),
    /// each before its next part is sent; only rows still claimed by `claimant` change. Separate
    /// from `settle`, and safe before it: what is recorded was accepted, whatever happens next.
    public func recordProgress(_ progress: [DeliveryProgressRecord], claimant: String) throws {
        try run(LedgerSQL.recordProgress, shared: [.text(claimant)], progress, values: { [.text($0.key), .text($0.progress)] })
    }

    /// Ends a pending delivery (cancelled or failed before sending) with a reason.
    public func finish(key: String, as state: LedgerEntry.State, reason: String, now: Date) throws {
        try run("UPDATE deliveries SET state = $1, reason = $2, updated_at = $3 WHERE key = $4 AND state = 'pending'",
                .text(state.rawValue), .text(reason), .millis(now), .text(key))
    }

    /// Pending deliveries that already had an attempt: retries still to come.
    public func pendingRetryCount() throws -> Int {
        try first("SELECT count(*) FROM deliveries WHERE state = 'pending' AND attempts > 0") { $0.int(0) } ?? 0
    }

    /// The earliest moment the ledger has work: a pending delivery's next attempt, or the end of a
    /// claim's lease (a claimant that died elsewhere is taken over then, not at the next minute).
    public func nextLedgerWake() throws -> Date? {
        try first(LedgerSQL.nextWake) { $0.millis(0) }.flatMap { $0 }
    }
}

/// The ledger's SQL, written once for both databases.
enum LedgerSQL {
    static let columns = """
        key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at, state, reason,
        attempts, next_attempt_at, first_attempt_at, lease_until, claimed_by, updated_at, settled_by, progress
        """

    static func entry(from row: some ColumnReader) -> LedgerEntry {
        LedgerEntry(
            key: row.text(0), kind: LedgerEntry.Kind(rawValue: row.text(1)) ?? .alert, eventID: row.optionalText(2),
            occurrenceStart: row.millis(3), lead: row.optionalText(4), digest: row.optionalText(5), digestDate: row.optionalText(6),
            channel: row.text(7), dueAt: Store.date(millis: row.int64(8)), state: LedgerEntry.State(rawValue: row.text(9)) ?? .failed,
            reason: row.optionalText(10), attempts: row.int(11), nextAttemptAt: Store.date(millis: row.int64(12)),
            firstAttemptAt: row.millis(13), claimedUntil: row.millis(14), claimedBy: row.optionalText(15),
            updatedAt: Store.date(millis: row.int64(16)), settledBy: row.optionalText(17), progress: row.optionalText(18))
    }

    /// `$1` now, then per row the key and the columns a plan sets; new keys are returned.
    static let plan = SQLBatch(shared: 1, columns: Array(repeating: .value, count: 12) + [.verbatim("0"), .verbatim("$1"), .verbatim("$1")]) {
        """
        INSERT INTO deliveries (key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at,
                                state, reason, next_attempt_at, attempts, created_at, updated_at)
        \($0) ON CONFLICT (key) DO NOTHING RETURNING key
        """
    }

    /// `$1` the new lease end, `$2` the claimant, `$3` now; per row the key and the lease end this
    /// pass gave it (the fencing token). The keys that may be sent are returned.
    static let startSending = SQLBatch(shared: 3, columns: [.value, .bigint], single: """
        UPDATE deliveries SET lease_until = $1
        WHERE key = $4 AND state = 'sending' AND claimed_by = $2 AND lease_until > $3 AND lease_until = CAST($5 AS BIGINT)
        RETURNING key
        """) { values in
        """
        WITH claims (claim_key, claim_lease) AS (\(values))
        UPDATE deliveries SET lease_until = $1 FROM claims
        WHERE key = claim_key AND state = 'sending' AND claimed_by = $2 AND lease_until > $3 AND lease_until = claim_lease
        RETURNING key
        """
    }

    /// `$1` now, `$2` the claimant; per row the key, state, reason and next attempt.
    static let settle = SQLBatch(shared: 2, columns: [.value, .value, .value, .bigint], single: """
        UPDATE deliveries SET state = $4, reason = coalesce($5, reason), next_attempt_at = coalesce(CAST($6 AS BIGINT), next_attempt_at),
            lease_until = NULL, claimed_by = NULL, updated_at = $1, settled_by = claimed_by
        WHERE key = $3 AND state = 'sending' AND claimed_by = $2
        """) { values in
        """
        WITH outcomes (outcome_key, outcome_state, outcome_reason, outcome_next) AS (\(values))
        UPDATE deliveries SET state = outcome_state, reason = coalesce(outcome_reason, reason),
            next_attempt_at = coalesce(outcome_next, next_attempt_at), lease_until = NULL, claimed_by = NULL,
            updated_at = $1, settled_by = claimed_by
        FROM outcomes WHERE key = outcome_key AND state = 'sending' AND claimed_by = $2
        """
    }

    /// `$1` the claimant; per row the key and its progress.
    static let recordProgress = SQLBatch(shared: 1, columns: [.value, .value], single: """
        UPDATE deliveries SET progress = $3 WHERE key = $2 AND state = 'sending' AND claimed_by = $1
        """) { values in
        """
        WITH accepted (accepted_key, accepted_progress) AS (\(values))
        UPDATE deliveries SET progress = accepted_progress FROM accepted
        WHERE key = accepted_key AND state = 'sending' AND claimed_by = $1
        """
    }

    /// `replanSkippedAsLate` (`$1` now, `$2` due after). `late:` starts the reason
    /// `Scheduler.classify` gives a delivery first seen after its lateness.
    static let replanSkipped = """
        UPDATE deliveries SET state = 'pending', reason = NULL, attempts = 0, next_attempt_at = due_at,
            first_attempt_at = NULL, updated_at = $1
        WHERE state = 'skipped' AND reason LIKE 'late:%' AND due_at > $2
        """

    /// `replanWrittenAhead`'s deliveries sent long before their due time (`$1` now, `$2` the reason,
    /// `$3` the instant after which only a pass at a wrong time wrote, `$4` due after).
    static let resendSentEarly = """
        UPDATE deliveries SET updated_at = $1, state = 'pending', reason = $2, attempts = 0, next_attempt_at = due_at,
            first_attempt_at = NULL, settled_by = NULL
        WHERE state IN ('sent', 'sent-late') AND updated_at > $3 AND due_at > $4
        """

    /// `replanWrittenAhead`'s retries: they start over from their due time (`$1` now, `$2` as `$3` above).
    static let restartRetriesAhead = """
        UPDATE deliveries SET updated_at = $1, attempts = 0, next_attempt_at = due_at, first_attempt_at = NULL
        WHERE state = 'pending' AND attempts > 0 AND updated_at > $2
        """

    /// `min` over the two ignores whichever is NULL.
    static let nextWake = """
        SELECT min(t) FROM (SELECT min(next_attempt_at) AS t FROM deliveries WHERE state = 'pending'
                            UNION ALL SELECT min(lease_until) FROM deliveries WHERE state = 'sending') AS wakes
        """
}

extension SQLValue {
    /// An instant as the ledger keeps it: whole milliseconds since 1970 (`Store.millis`).
    static func millis(_ date: Date) -> SQLValue { .integer(Store.millis(date)) }
    static func millis(_ date: Date?) -> SQLValue { date.map(millis) ?? .null }
}

extension ColumnReader {
    /// A column of milliseconds since 1970 as a date; nil for NULL.
    func millis(_ column: Int32) -> Date? { isNull(column) ? nil : Store.date(millis: int64(column)) }
}
