/// Why the store could not be used; each case becomes one clear line and an exit code in the CLI.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case isDirectory(path: String)
    /// A FIFO, device or socket: `kind` says which.
    case notRegularFile(path: String, kind: String)
    case notADatabase(path: String)
    case newerSchema(path: String, found: Int, known: Int)
    /// A `user_version` below zero: no datebook ever wrote it.
    case unknownSchema(path: String, found: Int)
    case readOnly(path: String)
    /// This user cannot write it; `advice` names the cause (owner, directory, a stale `-shm`) and the fix.
    case notWritable(path: String, advice: String)
    case busy(path: String)
    /// SQLITE_FULL: the file system holding the store has no space left.
    case full(path: String)
    case cannotCreate(path: String, reason: String)
    /// A large import's scratch file (`ImportRuns`) in `folder` could not be made, written or read.
    case scratch(path: String, folder: String, reason: String)
    case sqlite(path: String, message: String)
    /// No PostgreSQL server answered at `endpoint` (`host:port`): worth a retry later.
    case unreachable(store: String, endpoint: String, reason: String)
    /// The server answered but refused the login (wrong password, unknown role or database, pg_hba.conf).
    case authentication(store: String, endpoint: String, reason: String)
    /// The connection broke during a command; nothing after the last commit was kept.
    case connectionLost(store: String, reason: String)
    /// A wait for a lock or a statement ran over its limit (`lock_timeout`, `statement_timeout`):
    /// another connection held what this one needed; worth a retry later.
    case timedOut(store: String, reason: String)
    case postgres(store: String, message: String)
    /// The schema (or its tables) is missing and this role may not create it: `database` names the
    /// database whose CREATE right a missing schema needs; nil when the schema exists but its tables do not.
    case noSchemaRights(store: String, schema: String, role: String, database: String?)

    /// A condition of the moment (a lock, a full disk, a server gone), not of the data or the set-up:
    /// the same command may work later (the CLI exits 75).
    public var isTemporary: Bool {
        switch self {
        case .busy, .full, .scratch, .unreachable, .connectionLost, .timedOut: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .isDirectory(let path):
            "store \(path) is a directory; give the path of a database file (--store FILE)"
        case let .notRegularFile(path, kind):
            "store \(path) is \(kind), not a regular file; give the path of a database file (--store FILE)"
        case .notADatabase(let path):
            "store \(path) is not a datebook database (not SQLite); move it away or pass another --store"
        case let .newerSchema(path, found, known):
            "store \(path) was written by a newer datebook (schema \(found), this one knows up to \(known)); upgrade datebook — the store was left untouched"
        case let .unknownSchema(path, found):
            "store \(path) has schema version \(found), which no datebook writes; restore a backup or pass another --store — the store was left untouched"
        case .readOnly(let path):
            "store \(path) is read-only; make it writable (chmod u+w) or pass another --store"
        case let .notWritable(path, advice):
            "store \(path) cannot be written: \(advice) (reading it works)"
        case .busy(let path):
            "store \(path) is locked by another program (a datebook command, a sqlite3 shell, a backup); try again when it lets go"
        case .full(let path):
            "store \(path): the disk is full (no space left on its file system); free some space there — nothing after the last commit was kept, try again"
        case let .cannotCreate(path, reason):
            "cannot create store \(path): \(reason)"
        case let .scratch(path, folder, reason):
            "store \(path): the import's scratch file in \(folder) \(reason); free some space there or set TMPDIR to a writable folder with room — nothing of the import was kept, try again"
        case let .sqlite(path, message):
            "store \(path): \(message)"
        case let .unreachable(store, endpoint, reason):
            "store \(store): cannot reach PostgreSQL at \(endpoint) (\(reason)); check that the server runs and the URL's host and port, then try again"
        case let .authentication(store, endpoint, reason):
            "store \(store): PostgreSQL at \(endpoint) refused the login (\(reason)); check the user, password (URL or PGPASSFILE) and database"
        case let .connectionLost(store, reason):
            "store \(store): the connection to PostgreSQL was lost (\(reason)); nothing after the last commit was kept, try again"
        case let .timedOut(store, reason):
            "store \(store): PostgreSQL gave up waiting (\(reason)); another connection held what this one needed "
                + "(a paused datebook, a psql session left in a transaction), or the statement ran over ?statement_timeout=; nothing after the last commit was kept, try again"
        case let .postgres(store, message):
            "store \(store): \(message)"
        case let .noSchemaRights(store, schema, role, database?):
            "store \(store): the schema '\(schema)' does not exist and role '\(role)' may not create it (it needs the CREATE right on database '\(database)'); as the database's owner run CREATE SCHEMA \(schema) AUTHORIZATION \(role), or GRANT CREATE ON DATABASE \(database) TO \(role) — nothing was created"
        case let .noSchemaRights(store, schema, role, nil):
            "store \(store): the schema '\(schema)' has no datebook tables and role '\(role)' may not create them (it needs the CREATE right on schema '\(schema)'); as its owner run GRANT CREATE ON SCHEMA \(schema) TO \(role) — nothing was created"
        }
    }
}
