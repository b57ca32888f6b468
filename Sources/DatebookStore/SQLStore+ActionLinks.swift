import DatebookCore
import Foundation

/// Keys made here and kept in the store, and the action links already used (issue 16), on both
/// databases. `secrets` holds each key as hex; `used_action_links` one row per used link until it expires.
extension SQLStore {
    /// The 256-bit key named `name`, made from the system's random source (getrandom) the first
    /// time it is asked for. Runs inside the caller's transaction when there is one; two processes
    /// asking at once agree on the first one written.
    public func secretKey(named name: String, now: Date) throws -> Data {
        if let found = try storedSecret(named: name) { return found }
        var generator = SystemRandomNumberGenerator()
        let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try run("INSERT INTO secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                .text(name), .text(fresh.hexString), .integer(Store.millis(now)))
        guard let stored = try storedSecret(named: name) else {
            throw failure("the key '\(name)' was written but cannot be read back")
        }
        return stored
    }

    /// The key named `name`, or nil when none was made yet (a read-only store never makes one).
    public func storedSecret(named name: String) throws -> Data? {
        try first("SELECT value FROM secrets WHERE name = $1", [.text(name)]) { Store.bytes(hex: $0.text(0)) } ?? nil
    }

    /// Records that the link `id` is used now; false when it was used before. Call inside the
    /// transaction that applies the action, so the action and its record commit together. Rows
    /// of links that have expired are dropped on the way: an expired link is refused anyway.
    public func useActionLink(id: String, action: String, eventID: String, expires: Date, now: Date) throws -> Bool {
        try run("DELETE FROM used_action_links WHERE expires_at <= $1", .integer(Store.millis(now)))
        return try run("""
            INSERT INTO used_action_links (id, action, event_id, used_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO NOTHING
            """, .text(id), .text(action), .text(eventID), .integer(Store.millis(now)), .integer(Store.millis(expires))) > 0
    }

    /// Whether the link `id` was used (and has not expired since).
    public func isActionLinkUsed(id: String) throws -> Bool {
        try first("SELECT 1 FROM used_action_links WHERE id = $1", [.text(id)]) { _ in true } ?? false
    }

    /// An error of this store that no database reported (a state the store's own rules exclude).
    func failure(_ message: String) -> StoreError {
        switch dialect.kind {
        case .sqlite: .sqlite(path: location, message: message)
        case .postgres: .postgres(store: location, message: message)
        }
    }
}

extension Store {
    /// The name of the key that signs action links.
    public static let actionLinkKeyName = "action-link-key"

    static func bytes(hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
