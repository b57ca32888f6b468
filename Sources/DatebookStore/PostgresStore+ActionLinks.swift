import DatebookCore
import Foundation

/// The action-link key and the used links on PostgreSQL; the same contract as Store+ActionLinks.swift.
extension PostgresStore {
    /// `transaction` nests here (only the outermost commits), so this is `save`.
    public func saveInTransaction(_ event: Event) throws { try save(event) }

    public func secretKey(named name: String, now: Date) throws -> Data {
        if let found = try storedSecret(named: name) { return found }
        var generator = SystemRandomNumberGenerator()
        let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try query("INSERT INTO secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                  [name, fresh.hexString, String(Store.millis(now))])
        guard let stored = try storedSecret(named: name) else {
            throw StoreError.postgres(store: location, message: "the key '\(name)' was written but cannot be read back")
        }
        return stored
    }

    public func storedSecret(named name: String) throws -> Data? {
        let rows = try query("SELECT value FROM secrets WHERE name = $1", [name])
        return rows.count > 0 ? Store.bytes(hex: rows.text(0, 0)) : nil
    }

    public func useActionLink(id: String, action: String, eventID: String, expires: Date, now: Date) throws -> Bool {
        try query("DELETE FROM used_action_links WHERE expires_at <= $1", [String(Store.millis(now))])
        return try query("""
            INSERT INTO used_action_links (id, action, event_id, used_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO NOTHING
            """, [id, action, eventID, String(Store.millis(now)), String(Store.millis(expires))]).changed > 0
    }

    public func isActionLinkUsed(id: String) throws -> Bool {
        try query("SELECT 1 FROM used_action_links WHERE id = $1", [id]).count > 0
    }
}
