import DatebookStore
import Synchronization
import Testing

/// The two store backends; a test that takes a `Backend` (`@Test(arguments: Backend.allCases)`)
/// runs its one body on both, so they cannot drift. Tests of what only one backend has (a SQLite
/// file's pages and locks, a PostgreSQL server's connections) open that one directly and say why.
public enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    public var testDescription: String { rawValue }

    /// Where a new, empty store goes: a SQLite file in a scratch folder of its own (removed when the
    /// test process ends), or a schema of its own in the database the PostgreSQL stores of this test
    /// process share (a schema is cheaper to make than a database; the server starts on first use,
    /// and the test fails when it cannot start).
    public func location() throws -> String {
        switch self {
        case .sqlite: makeScratchFolder("store") + "/store.sqlite3"
        case .postgresql: try Self.database.get() + "?schema=s\(Self.schemas.withLock { $0 += 1; return $0 })"
        }
    }

    /// A new, empty store at `location()`.
    public func open() throws -> any CalDAVStore {
        switch self {
        case .sqlite: try Store(path: location())
        case .postgresql: try PostgresStore(url: location())
        }
    }

    private static let database = Result { try TestPostgres.shared().makeDatabase() }
    private static let schemas = Mutex(0)
}
