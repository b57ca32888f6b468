import DatebookCore
import Foundation

/// SQLite's side of the delivery ledger (SQLStore+Ledger.swift has the ledger itself): the
/// `alert_lead_sets` a bulk load fills instead of its triggers, and the page cache.
extension Store {
    /// What the `events_alert_sets_*` triggers do, for all events at once: a bulk load suspends the
    /// triggers (see Store+BulkLoad.swift) and runs this instead.
    static let alertLeadSetsCatchUp = "INSERT OR IGNORE INTO alert_lead_sets SELECT DISTINCT alerts FROM events WHERE alerts > ''"
    static let alertLeadSetsTriggers: Set<String> = ["events_alert_sets_insert", "events_alert_sets_update"]

    /// Rounded down: a last pass at 46.9996 s must not be stored as 47.000 and hide an item due at 47 s.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(millis) / 1000) }

    /// Caps SQLite's page cache (the daemon keeps memory small; one-shot commands keep the big cache).
    public func limitPageCache(kibibytes: Int) throws {
        try wrap { try db.execute("PRAGMA cache_size = -\(max(64, kibibytes))") }
    }
}

extension LedgerEntry {
    /// The claim as `startSending(_:claimant:now:lease:)` at `now` leaves it when it holds: its
    /// fencing token (`claimedUntil`) is the renewed lease's end, which a later fence must name.
    public func fenced(at now: Date, lease: TimeInterval) -> LedgerEntry {
        var entry = self
        entry.claimedUntil = Store.date(millis: Store.millis(now.addingTimeInterval(lease)))
        return entry
    }
}
