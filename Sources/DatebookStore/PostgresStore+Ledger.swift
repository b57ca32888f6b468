import DatebookCore
import Foundation

/// The delivery ledger on PostgreSQL: the SQLite ledger's rows and states (Store+Ledger.swift),
/// with claims that several scheduler instances can race for. `claimDue` locks the rows it takes
/// with `FOR UPDATE SKIP LOCKED`, so two instances never claim the same delivery and neither waits
/// for the other's; the claim is a lease (`claimed_by`, `lease_until`) that another instance
/// takes over once it runs out.
extension PostgresStore {
    static let ledgerColumns = """
        key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at, state, reason,
        attempts, next_attempt_at, first_attempt_at, lease_until, claimed_by, updated_at
        """

    static func millis(_ date: Date) -> String { String(Store.millis(date)) }

    public func lastPass() throws -> Date? {
        let rows = try query("SELECT value FROM meta WHERE name = 'last_pass'")
        return rows.count > 0 ? Store.date(millis: Int64(rows.int(0, 0))) : nil
    }

    public func setLastPass(_ date: Date) throws {
        try query("INSERT INTO meta (name, value) VALUES ('last_pass', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                  [Self.millis(date)])
    }

    public func distinctEventAlerts() throws -> [String] {
        try query("SELECT DISTINCT alerts FROM events WHERE alerts <> ''").all.map { $0.text(0) }
    }

    @discardableResult
    public func plan(_ entry: LedgerEntry, now: Date) throws -> Bool {
        try query("""
            INSERT INTO deliveries (key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at,
                                    state, reason, attempts, next_attempt_at, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $12, $13, $13) ON CONFLICT (key) DO NOTHING
            """, [entry.key, entry.kind.rawValue, entry.eventID, entry.occurrenceStart.map(Self.millis), entry.lead,
                  entry.digest, entry.digestDate, entry.channel, Self.millis(entry.dueAt), entry.state.rawValue, entry.reason,
                  Self.millis(entry.nextAttemptAt), Self.millis(now)]).changed > 0
    }

    public func openDeliveries() throws -> [LedgerEntry] {
        try entries(where: "state IN ('pending', 'sending')", [], order: "next_attempt_at, key")
    }

    public func settledDeliveries(since: Date, excluding states: [LedgerEntry.State]) throws -> [LedgerEntry] {
        try entries(where: "updated_at >= $1 AND state NOT IN ('pending', 'sending') AND NOT (state = ANY($2::text[]))",
                    [Self.millis(since), "{" + states.map(\.rawValue).joined(separator: ",") + "}"], order: "updated_at DESC, key")
    }

    public func delivery(key: String) throws -> LedgerEntry? {
        try entries(where: "key = $1", [key], order: "key").first
    }

    public func allDeliveries() throws -> [LedgerEntry] {
        try entries(where: "TRUE", [], order: "due_at, key")
    }

    func entries(where condition: String, _ values: [String?], order: String) throws -> [LedgerEntry] {
        try query("SELECT \(Self.ledgerColumns) FROM deliveries WHERE \(condition) ORDER BY \(order) COLLATE \"C\"", values)
            .all.map(Store.entry(from:))
    }

    /// Puts in-flight deliveries whose lease ran out, or whose claimant `isGone`, back to pending.
    public func releaseAbandoned(now: Date, isGone: (String) -> Bool) throws {
        let claimants = try query("SELECT DISTINCT claimed_by FROM deliveries WHERE state = 'sending'").all.map { $0.text(0) }
        for claimant in claimants {
            try query("""
                UPDATE deliveries SET state = 'pending', lease_until = NULL, claimed_by = NULL
                WHERE state = 'sending' AND claimed_by = $2 AND (lease_until <= $1 OR $3)
                """, [Self.millis(now), claimant, isGone(claimant) ? "true" : "false"])
        }
    }

    /// Claims up to `limit` pending deliveries due by `now` for `lease` seconds; rows another
    /// instance is claiming at this moment are skipped, not waited for.
    public func claimDue(now: Date, lease: TimeInterval, claimant: String, limit: Int) throws -> [LedgerEntry] {
        try query("""
            UPDATE deliveries d SET state = 'sending', attempts = d.attempts + 1, lease_until = $1, claimed_by = $2,
                first_attempt_at = coalesce(d.first_attempt_at, $3), updated_at = $3
            WHERE d.key IN (SELECT key FROM deliveries WHERE state = 'pending' AND next_attempt_at <= $3
                            ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING \(Self.ledgerColumns.split(separator: ",").map { "d." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .joined(separator: ", "))
            """, [Self.millis(now.addingTimeInterval(lease)), claimant, Self.millis(now), String(limit)])
            .all.map(Store.entry(from:)).sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// Applies one outcome; only a row still claimed by `claimant` changes.
    public func settle(key: String, claimant: String, as state: LedgerEntry.State, reason: String?,
                       nextAttempt: Date?, now: Date) throws {
        try query("""
            UPDATE deliveries SET state = $1, reason = coalesce($2, reason), next_attempt_at = coalesce($3, next_attempt_at),
                lease_until = NULL, claimed_by = NULL, updated_at = $4
            WHERE key = $5 AND state = 'sending' AND claimed_by = $6
            """, [state.rawValue, reason, nextAttempt.map(Self.millis), Self.millis(now), key, claimant])
    }

    public func finish(key: String, as state: LedgerEntry.State, reason: String, now: Date) throws {
        try query("UPDATE deliveries SET state = $1, reason = $2, updated_at = $3 WHERE key = $4 AND state = 'pending'",
                  [state.rawValue, reason, Self.millis(now), key])
    }

    public func pendingRetryCount() throws -> Int {
        try query("SELECT count(*) FROM deliveries WHERE state = 'pending' AND attempts > 0").int(0, 0)
    }

    public func nextLedgerWake() throws -> Date? {
        let rows = try query(Store.nextLedgerWakeSQL(leaseColumn: "lease_until"))
        return rows.isNull(0, 0) ? nil : Store.date(millis: Int64(rows.int(0, 0)))
    }
}

