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
        attempts, next_attempt_at, first_attempt_at, lease_until, claimed_by, updated_at, settled_by, progress
        """

    static func millis(_ date: Date) -> String { String(Store.millis(date)) }

    /// A transaction-level advisory lock, keyed by the schema: the passes of several schedulers
    /// plan one after another, each reading the `last_pass` the one before committed (READ
    /// COMMITTED: a statement after the wait sees it), instead of all planning the same window and
    /// inserting the same rows.
    public func lockPlanning() throws {
        try query("SELECT pg_advisory_xact_lock(hashtext($1))", ["datebook planning " + schema])
    }

    public func lastPass() throws -> Date? {
        let rows = try query("SELECT value FROM meta WHERE name = 'last_pass'")
        return rows.count > 0 ? Store.date(millis: Int64(rows.int(0, 0))) : nil
    }

    public func setLastPass(_ date: Date) throws {
        try query("INSERT INTO meta (name, value) VALUES ('last_pass', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                  [Self.millis(date)])
    }

    public func schedulerMark(_ name: String) throws -> Date? {
        let rows = try query("SELECT value FROM meta WHERE name = $1", [name])
        return rows.count > 0 ? Store.date(millis: Int64(rows.int(0, 0))) : nil
    }

    public func setSchedulerMark(_ name: String, _ date: Date) throws {
        try query("INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                  [name, Self.millis(date)])
    }

    public func replanSkippedAsLate(dueAfter: Date, now: Date) throws -> Int {
        try query(Store.replanSkippedSQL + " RETURNING key",
                  [Self.millis(now), Self.millis(dueAfter)]).count
    }

    public func replanWrittenAhead(now: Date, writtenAfter: Date, dueAfter: Date, leaseEnd: Date,
                                   reason: String) throws -> (resent: Int, retries: Int) {
        let resent = try query(Store.resendSentEarlySQL + " RETURNING key",
                               [Self.millis(now), reason, Self.millis(writtenAfter), Self.millis(dueAfter)]).count
        let retries = try query(Store.restartRetriesAheadSQL + " RETURNING key", [Self.millis(now), Self.millis(writtenAfter)]).count
        try query("UPDATE deliveries SET lease_until = $1 WHERE state = 'sending' AND lease_until > $1", [Self.millis(leaseEnd)])
        return (resent, retries)
    }

    public func distinctEventAlerts() throws -> [String] {
        try query("SELECT DISTINCT alerts FROM events WHERE alerts <> ''").all.map { $0.text(0) }
    }

    @discardableResult
    public func plan(_ entry: LedgerEntry, now: Date) throws -> Bool {
        try plan([entry], now: now).contains(entry.key)
    }

    /// One statement for all of `entries`, one array per column (`unnest`): a pass that finds
    /// 10,000 alerts due plans them in one round trip instead of 10,000.
    public func plan(_ entries: [LedgerEntry], now: Date) throws -> Set<String> {
        guard !entries.isEmpty else { return [] }
        func column(_ value: (LedgerEntry) -> String?) -> String? { Self.arrayLiteral(entries.map(value)) }
        let rows = try query("""
            INSERT INTO deliveries (key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at,
                                    state, reason, attempts, next_attempt_at, created_at, updated_at)
            SELECT key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at, state, reason, 0,
                   next_attempt_at, $13, $13
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[],
                        $9::bigint[], $10::text[], $11::text[], $12::bigint[])
                AS e(key, kind, event_id, occurrence_start, lead, digest, digest_date, channel, due_at, state, reason, next_attempt_at)
            ON CONFLICT (key) DO NOTHING RETURNING key
            """, [column(\.key), column(\.kind.rawValue), column(\.eventID), column { $0.occurrenceStart.map(Self.millis) },
                  column(\.lead), column(\.digest), column(\.digestDate), column(\.channel), column { Self.millis($0.dueAt) },
                  column(\.state.rawValue), column(\.reason), column { Self.millis($0.nextAttemptAt) }, Self.millis(now)])
        return Set((0..<rows.count).map { rows.text($0, 0) })
    }

    /// A PostgreSQL array literal (`{"a","b",NULL}`) for one `$n::text[]` or `$n::bigint[]` parameter.
    static func arrayLiteral(_ values: [String?]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(values.count * 40)
        for (n, value) in values.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let value else { bytes += "NULL".utf8; continue }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
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

    /// The fence before a transfer starts (`Store.startSending`), for all of `keys` in one statement.
    public func startSending(_ claims: [LedgerEntry], claimant: String, now: Date, lease: TimeInterval) throws -> Set<String> {
        guard !claims.isEmpty else { return [] }
        let rows = try query("""
            UPDATE deliveries d SET lease_until = $1
            FROM unnest($2::text[], $5::bigint[]) AS c(key, lease_until)
            WHERE d.key = c.key AND d.state = 'sending' AND d.claimed_by = $3 AND d.lease_until > $4 AND d.lease_until = c.lease_until
            RETURNING d.key
            """, [Self.millis(now.addingTimeInterval(lease)), Self.arrayLiteral(claims.map(\.key)), claimant, Self.millis(now),
                  Self.arrayLiteral(claims.map { $0.claimedUntil.map(Self.millis) })])
        return Set((0..<rows.count).map { rows.text($0, 0) })
    }

    /// Applies one outcome; only a row still claimed by `claimant` changes.
    public func settle(key: String, claimant: String, as state: LedgerEntry.State, reason: String?,
                       nextAttempt: Date?, now: Date) throws {
        try settle([Settlement(key: key, state: state, reason: reason, nextAttempt: nextAttempt)], claimant: claimant, now: now)
    }

    /// Applies several outcomes in one statement, atomic without BEGIN and COMMIT: one round trip
    /// for each group of answers the deliverer hands over instead of two plus one per delivery.
    /// Only rows still claimed by `claimant` change.
    public func settle(_ outcomes: [Settlement], claimant: String, now: Date) throws {
        guard !outcomes.isEmpty else { return }
        try query("""
            UPDATE deliveries d SET state = o.state, reason = coalesce(o.reason, d.reason),
                next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at), lease_until = NULL, claimed_by = NULL,
                updated_at = $5, settled_by = d.claimed_by
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS o(key, state, reason, next_attempt_at)
            WHERE d.key = o.key AND d.state = 'sending' AND d.claimed_by = $6
            """, [Self.arrayLiteral(outcomes.map(\.key)), Self.arrayLiteral(outcomes.map(\.state.rawValue)),
                  Self.arrayLiteral(outcomes.map(\.reason)), Self.arrayLiteral(outcomes.map { $0.nextAttempt.map(Self.millis) }),
                  Self.millis(now), claimant])
    }

    /// Records what the channels already accepted of claimed deliveries, in one statement; only
    /// rows still claimed by `claimant` change (see `Store.recordProgress`).
    public func recordProgress(_ progress: [DeliveryProgressRecord], claimant: String) throws {
        guard !progress.isEmpty else { return }
        try query("""
            UPDATE deliveries d SET progress = p.progress
            FROM unnest($1::text[], $2::text[]) AS p(key, progress)
            WHERE d.key = p.key AND d.state = 'sending' AND d.claimed_by = $3
            """, [Self.arrayLiteral(progress.map(\.key)), Self.arrayLiteral(progress.map(\.progress)), claimant])
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

