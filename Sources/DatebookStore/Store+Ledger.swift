import CSQLite
import Foundation

/// The delivery ledger (DESIGN.md, "Delivery promises"): one row per (item, channel), keyed by data
/// (the tables: `Store.migrations`, version 4).
///
/// Times are Unix milliseconds. `alert_lead_sets`, kept by triggers, lists every per-event
/// lead-time list ever stored (`"1d 1h"`), so a pass finds them without reading 100k events;
/// stale entries only widen the search a little.
extension Store {
    /// What the `events_alert_sets_*` triggers do, for all events at once: a bulk load suspends the
    /// triggers (see Store+BulkLoad.swift) and runs this instead.
    static let alertLeadSetsCatchUp = "INSERT OR IGNORE INTO alert_lead_sets SELECT DISTINCT alerts FROM events WHERE alerts > ''"
    static let alertLeadSetsTriggers: Set<String> = ["events_alert_sets_insert", "events_alert_sets_update"]

    static let ledgerColumns = """
        key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at, state, reason,
        attempts, next_attempt_at, first_attempt_at, claimed_until, claimed_by, updated_at, settled_by, progress
        """

    /// Rounded down: a last pass at 46.9996 s must not be stored as 47.000 and hide an item due at 47 s.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(millis) / 1000) }

    /// A pass's transaction (`BEGIN IMMEDIATE`) already holds the only write lock.
    public func lockPlanning() throws {}

    /// When the scheduler last planned (`tick`), or nil before the first pass.
    public func lastPass() throws -> Date? {
        try wrap {
            let query = try statement("SELECT value FROM scheduler_meta WHERE name = 'last_pass'").bind()
            defer { sqlite3_reset(query.handle) }
            return try query.step() ? Self.date(millis: query.int64(0)) : nil
        }
    }

    /// Records the planning pass; call inside the planning transaction.
    public func setLastPass(_ date: Date) throws {
        try wrap {
            try statement("INSERT INTO scheduler_meta (name, value) VALUES ('last_pass', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
                .bind(.integer(Self.millis(date))).run()
        }
    }

    public func schedulerMark(_ name: String) throws -> Date? {
        try wrap {
            let query = try statement("SELECT value FROM scheduler_meta WHERE name = ?").bind(.text(name))
            defer { sqlite3_reset(query.handle) }
            return try query.step() ? Self.date(millis: query.int64(0)) : nil
        }
    }

    public func setSchedulerMark(_ name: String, _ date: Date) throws {
        try wrap {
            try statement("INSERT INTO scheduler_meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
                .bind(.text(name), .integer(Self.millis(date))).run()
        }
    }

    public func replanSkippedAsLate(dueAfter: Date, now: Date) throws -> Int {
        try wrap {
            try statement(Self.replanSkippedSQL).bind(.integer(Self.millis(now)), .integer(Self.millis(dueAfter))).run()
            return db.changes
        }
    }

    /// `replanSkippedAsLate`, for both backends (SQLite reads `$1` and `$2` as the 1st and 2nd parameter).
    /// `late:` starts the reason `Scheduler.classify` gives a delivery first seen after its lateness.
    public static let replanSkippedSQL = """
        UPDATE deliveries SET state = 'pending', reason = NULL, attempts = 0, next_attempt_at = due_at,
            first_attempt_at = NULL, updated_at = $1
        WHERE state = 'skipped' AND reason LIKE 'late:%' AND due_at > $2
        """

    public func replanWrittenAhead(now: Date, writtenAfter: Date, dueAfter: Date, leaseEnd: Date,
                                   reason: String) throws -> (resent: Int, retries: Int) {
        try wrap {
            try statement(Self.resendSentEarlySQL).bind(.integer(Self.millis(now)), .text(reason), .integer(Self.millis(writtenAfter)),
                                                        .integer(Self.millis(dueAfter))).run()
            let resent = db.changes
            try statement(Self.restartRetriesAheadSQL).bind(.integer(Self.millis(now)), .integer(Self.millis(writtenAfter))).run()
            let retries = db.changes
            try statement("UPDATE deliveries SET claimed_until = $1 WHERE state = 'sending' AND claimed_until > $1")
                .bind(.integer(Self.millis(leaseEnd))).run()
            return (resent, retries)
        }
    }

    /// `replanWrittenAhead`'s deliveries sent long before their due time, for both backends (`$1` now,
    /// `$2` the reason, `$3` the instant after which only a pass at a wrong time wrote, `$4` due after).
    public static let resendSentEarlySQL = """
        UPDATE deliveries SET updated_at = $1, state = 'pending', reason = $2, attempts = 0, next_attempt_at = due_at,
            first_attempt_at = NULL, settled_by = NULL
        WHERE state IN ('sent', 'sent-late') AND updated_at > $3 AND due_at > $4
        """

    /// `replanWrittenAhead`'s retries: they start over from their due time (`$1` now, `$2` as `$3` above).
    public static let restartRetriesAheadSQL = """
        UPDATE deliveries SET updated_at = $1, attempts = 0, next_attempt_at = due_at, first_attempt_at = NULL
        WHERE state = 'pending' AND attempts > 0 AND updated_at > $2
        """

    /// The per-event alert lead lists (`"1d 1h"`) in use (and possibly some no longer used).
    public func distinctEventAlerts() throws -> [String] {
        var found: [String] = []
        try wrap {
            let query = try statement("SELECT alerts FROM alert_lead_sets").bind()
            while try query.step() { found.append(query.text(0)) }
        }
        return found
    }

    /// Adds a planned delivery unless its key is already in the ledger; true when added.
    @discardableResult
    public func plan(_ entry: LedgerEntry, now: Date) throws -> Bool {
        try wrap {
            try statement("""
                INSERT INTO deliveries (key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at,
                                        state, reason, attempts, next_attempt_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?) ON CONFLICT(key) DO NOTHING
                """).bind(
                    .text(entry.key), .text(entry.kind.rawValue), .optional(entry.eventID),
                    entry.occurrenceStart.map { .integer(Self.millis($0)) } ?? .null, .optional(entry.lead),
                    .optional(entry.digest), .optional(entry.digestDate), .text(entry.channel),
                    .integer(Self.millis(entry.dueAt)), .text(entry.state.rawValue), .optional(entry.reason),
                    .integer(Self.millis(entry.nextAttemptAt)), .integer(Self.millis(now)), .integer(Self.millis(now))
                ).run()
            return db.changes > 0
        }
    }

    /// Pending and in-flight deliveries (for cancellation checks, `status` and the daemon's wake-up).
    public func openDeliveries() throws -> [LedgerEntry] {
        try entries(where: "state IN ('pending', 'sending')", [], order: "next_attempt_at, key")
    }

    /// End states (everything but `pending`/`sending`) updated since `since`, newest first.
    public func settledDeliveries(since: Date, excluding states: [LedgerEntry.State] = []) throws -> [LedgerEntry] {
        let marks = states.map { _ in "?" }.joined(separator: ", ")
        let exclusion = states.isEmpty ? "" : " AND state NOT IN (\(marks))"
        return try entries(where: "updated_at >= ? AND state NOT IN ('pending', 'sending')" + exclusion,
                           [.integer(Self.millis(since))] + states.map { .text($0.rawValue) }, order: "updated_at DESC, key")
    }

    /// The ledger row with this key.
    public func delivery(key: String) throws -> LedgerEntry? {
        try entries(where: "key = ?", [.text(key)], order: "key").first
    }

    /// Every ledger row (tests and diagnostics).
    public func allDeliveries() throws -> [LedgerEntry] {
        try entries(where: "1", [], order: "due_at, key")
    }

    func entries(where condition: String, _ values: [SQLValue], order: String) throws -> [LedgerEntry] {
        try wrap {
            let query = try statement("SELECT \(Self.ledgerColumns) FROM deliveries WHERE \(condition) ORDER BY \(order)")
            try query.bind(values)
            var found: [LedgerEntry] = []
            while try query.step() { found.append(Self.entry(from: query)) }
            return found
        }
    }

    static func entry(from row: some ColumnReader) -> LedgerEntry {
        func time(_ column: Int32) -> Date? { row.isNull(column) ? nil : date(millis: row.int64(column)) }
        return LedgerEntry(
            key: row.text(0), kind: LedgerEntry.Kind(rawValue: row.text(1)) ?? .alert, eventID: row.optionalText(2),
            occurrenceStart: time(3), lead: row.optionalText(4), digest: row.optionalText(5), digestDate: row.optionalText(6),
            channel: row.text(7), dueAt: date(millis: row.int64(8)), state: LedgerEntry.State(rawValue: row.text(9)) ?? .failed,
            reason: row.optionalText(10), attempts: row.int(11), nextAttemptAt: date(millis: row.int64(12)),
            firstAttemptAt: time(13), claimedUntil: time(14), claimedBy: row.optionalText(15), updatedAt: date(millis: row.int64(16)),
            settledBy: row.optionalText(17), progress: row.optionalText(18))
    }

    /// Puts in-flight deliveries whose lease ran out, or whose claimant `isGone`, back to pending.
    ///
    /// This is the crash path: a process killed mid-send leaves `sending` rows; re-claiming them may
    /// send a delivery a second time (only those the crashed process had in flight, each once).
    /// Call inside a transaction.
    public func releaseAbandoned(now: Date, isGone: (String) -> Bool) throws {
        try wrap {
            var claimants: [String] = []
            let query = try statement("SELECT DISTINCT claimed_by FROM deliveries WHERE state = 'sending'").bind()
            while try query.step() { claimants.append(query.text(0)) }
            let release = try statement("""
                UPDATE deliveries SET state = 'pending', claimed_until = NULL, claimed_by = NULL
                WHERE state = 'sending' AND (claimed_until <= ? OR claimed_by = ?)
                """)
            for claimant in claimants {
                try release.bind(.integer(Self.millis(now)), .text(isGone(claimant) ? claimant : "")).run()
            }
        }
    }

    /// Atomically claims up to `limit` pending deliveries due by `now` for `lease` seconds.
    ///
    /// Runs `UPDATE … WHERE state = 'pending'` inside the caller's BEGIN IMMEDIATE transaction, so two
    /// processes can never claim the same row.
    public func claimDue(now: Date, lease: TimeInterval, claimant: String, limit: Int = 1000) throws -> [LedgerEntry] {
        try wrap {
            let query = try statement("""
                UPDATE deliveries SET state = 'sending', attempts = attempts + 1, claimed_until = ?, claimed_by = ?,
                    first_attempt_at = coalesce(first_attempt_at, ?), updated_at = ?
                WHERE key IN (SELECT key FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?
                              ORDER BY next_attempt_at LIMIT ?)
                RETURNING \(Self.ledgerColumns)
                """)
            let nowMillis = Self.millis(now)
            try query.bind(.integer(Self.millis(now.addingTimeInterval(lease))), .text(claimant), .integer(nowMillis),
                           .integer(nowMillis), .integer(nowMillis), .int(limit))
            var claimed: [LedgerEntry] = []
            while try query.step() { claimed.append(Self.entry(from: query)) }
            sqlite3_reset(query.handle)
            return claimed
        }
    }

    /// The fence before a transfer starts: of `keys`, those still claimed by `claimant` with a lease
    /// that has not run out at `now` get a fresh lease (`now + lease`), in the same statement that
    /// checks the claim; only those may be sent. A process held up past its lease (SIGSTOP, a full
    /// disk, a paused VM) finds its claims gone once another process took them over, and sends none.
    public func startSending(_ claims: [LedgerEntry], claimant: String, now: Date, lease: TimeInterval) throws -> Set<String> {
        guard !claims.isEmpty else { return [] }
        var started: Set<String> = []
        func fence() throws {
            try wrap {
                let update = try statement(Self.startSendingSQL)
                for claim in claims {
                    try update.bind(.integer(Self.millis(now.addingTimeInterval(lease))), .text(claim.key), .text(claimant),
                                    .integer(Self.millis(now)), claim.claimedUntil.map { .integer(Self.millis($0)) } ?? .null).run()
                    if db.changes > 0 { started.insert(claim.key) }
                }
            }
        }
        try inTransaction ? fence() : transaction(fence)
        return started
    }

    /// `startSending` for one key (`$1` the new lease end, `$2` the key, `$3` the claimant, `$4` now,
    /// `$5` the lease end this pass gave it: a fencing token).
    static let startSendingSQL = """
        UPDATE deliveries SET claimed_until = $1
        WHERE key = $2 AND state = 'sending' AND claimed_by = $3 AND claimed_until > $4 AND claimed_until = $5
        """

    /// Applies several outcomes in one transaction (or in the caller's).
    public func settle(_ outcomes: [Settlement], claimant: String, now: Date) throws {
        func apply() throws {
            for outcome in outcomes {
                try settle(key: outcome.key, claimant: claimant, as: outcome.state, reason: outcome.reason,
                           nextAttempt: outcome.nextAttempt, now: now)
            }
        }
        try inTransaction ? apply() : transaction(apply)
    }

    /// Applies one outcome; call inside a transaction (several outcomes may share one).
    ///
    /// Only rows still claimed by `claimant` change, so a process whose lease was taken over
    /// cannot overwrite the newer claim's result.
    public func settle(key: String, claimant: String, as state: LedgerEntry.State, reason: String?,
                       nextAttempt: Date?, now: Date) throws {
        try wrap {
            try statement("""
                UPDATE deliveries SET state = ?, reason = coalesce(?, reason), next_attempt_at = coalesce(?, next_attempt_at),
                    claimed_until = NULL, claimed_by = NULL, updated_at = ?, settled_by = claimed_by
                WHERE key = ? AND state = 'sending' AND claimed_by = ?
                """).bind(.text(state.rawValue), .optional(reason), nextAttempt.map { .integer(Self.millis($0)) } ?? .null,
                          .integer(Self.millis(now)), .text(key), .text(claimant)).run()
        }
    }

    /// Records what the channels already accepted of claimed deliveries (`LedgerEntry.progress`),
    /// each before its next part is sent; only rows still claimed by `claimant` change. Separate
    /// from `settle`, and safe before it: what is recorded was accepted, whatever happens next.
    public func recordProgress(_ progress: [DeliveryProgressRecord], claimant: String) throws {
        func apply() throws {
            for record in progress {
                try wrap {
                    try statement("UPDATE deliveries SET progress = ? WHERE key = ? AND state = 'sending' AND claimed_by = ?")
                        .bind(.text(record.progress), .text(record.key), .text(claimant)).run()
                }
            }
        }
        guard !progress.isEmpty else { return }
        try inTransaction ? apply() : transaction(apply)
    }

    /// Ends a pending delivery (cancelled or failed before sending) with a reason.
    public func finish(key: String, as state: LedgerEntry.State, reason: String, now: Date) throws {
        try wrap {
            try statement("UPDATE deliveries SET state = ?, reason = ?, updated_at = ? WHERE key = ? AND state = 'pending'")
                .bind(.text(state.rawValue), .text(reason), .integer(Self.millis(now)), .text(key)).run()
        }
    }

    /// Changes made by other connections since this one opened show up as a new value.
    public func dataVersion() throws -> Int {
        try wrap { Int(try db.integer("PRAGMA data_version")) }
    }

    /// `ok`, or SQLite's list of problems.
    public func integrityCheck() throws -> String {
        try wrap {
            let query = try db.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try query.step() { lines.append(query.text(0)) }
            return lines.joined(separator: "\n")
        }
    }
}

extension Store {
    /// Pending deliveries that already had an attempt: retries still to come.
    public func pendingRetryCount() throws -> Int {
        try wrap { Int(try db.integer("SELECT count(*) FROM deliveries WHERE state = 'pending' AND attempts > 0")) }
    }

    /// The earliest moment the ledger has work: a pending delivery's next attempt, or the end of a
    /// claim's lease (a claimant that died elsewhere is taken over then, not at the next minute).
    public func nextLedgerWake() throws -> Date? {
        try wrap {
            let query = try statement(Self.nextLedgerWakeSQL(leaseColumn: "claimed_until")).bind()
            defer { sqlite3_reset(query.handle) }
            guard try query.step(), !query.isNull(0) else { return nil }
            return Self.date(millis: query.int64(0))
        }
    }
}

extension Store {
    /// Caps SQLite's page cache (the daemon keeps memory small; one-shot commands keep the big cache).
    public func limitPageCache(kibibytes: Int) throws {
        try wrap { try db.execute("PRAGMA cache_size = -\(max(64, kibibytes))") }
    }

    /// The SQL of `nextLedgerWake`, for either backend's name of the lease column: `min` over the
    /// two ignores whichever is NULL.
    static func nextLedgerWakeSQL(leaseColumn: String) -> String {
        """
        SELECT min(t) FROM (SELECT min(next_attempt_at) AS t FROM deliveries WHERE state = 'pending'
                            UNION ALL SELECT min(\(leaseColumn)) FROM deliveries WHERE state = 'sending') AS wakes
        """
    }
}
