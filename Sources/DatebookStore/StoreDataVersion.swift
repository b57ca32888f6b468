import Synchronization

/// A number that changes whenever any connection (of this process or another) commits to an
/// SQLite store: `PRAGMA data_version` on one read-only connection kept open.
///
/// File modification times and sizes can miss a write (a write-ahead log restarted at the same
/// size within the file system's timestamp granularity); this cannot. A PostgreSQL store, a
/// missing file or an unreadable one has no number (nil).
public final class StoreDataVersion: Sendable {
    private let connection = Mutex<(path: String, db: SQLiteConnection)?>(nil)

    public init() {}

    /// The store's current data version, opening (or reopening for another path) the watching connection.
    public func current(_ path: String) -> Int? {
        guard !StoreLocation.isPostgres(path) else { return nil }
        return connection.withLock { open in
            do {
                let db = try open.flatMap { $0.path == path ? $0.db : nil } ?? Store.openForReading(path)
                open = (path, db)
                return Int(try db.integer("PRAGMA data_version"))
            } catch {
                open = nil
                return nil
            }
        }
    }
}
