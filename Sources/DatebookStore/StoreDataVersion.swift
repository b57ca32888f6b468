import Synchronization

/// A number that changes whenever any connection (of this process or another) commits to a store,
/// read on one connection kept open: SQLite's `PRAGMA data_version`, PostgreSQL's `data_version`
/// sequence (`PlannerStore.dataVersion`).
///
/// File modification times and sizes can miss a write (a write-ahead log restarted at the same
/// size within the file system's timestamp granularity), and a PostgreSQL store has no file;
/// this cannot miss one. A missing or unreadable store has no number (nil); the connection is
/// opened again on the next call.
public final class StoreDataVersion: Sendable {
    private let kept = Mutex<(location: String, read: () throws -> Int)?>(nil)

    public init() {}

    /// The store's current data version, opening (or reopening for another location) the kept connection.
    public func current(_ location: String) -> Int? {
        kept.withLock { kept in
            do {
                let read = try kept.flatMap { $0.location == location ? $0.read : nil } ?? Self.reader(location)
                kept = (location, read)
                return try read()
            } catch {
                kept = nil
                return nil
            }
        }
    }

    private static func reader(_ location: String) throws -> () throws -> Int {
        guard SQLDialect.of(location: location).hasFile else {
            let store = try StoreOpener.open(location, readOnly: true)
            return { try store.dataVersion() }
        }
        let db = try Store.openForReading(location)
        return { Int(try db.integer(SQLDialect.sqlite.dataVersion)) }
    }
}
