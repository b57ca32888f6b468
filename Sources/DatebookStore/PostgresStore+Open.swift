import CLoader
import Foundation

/// Opening a current store in one round trip: the schema goes on the search path in the startup
/// packet (libpq's `options`), and the version is read by its qualified name, so a store whose
/// schema is current needs no `to_regclass`, no second version read and no `SET search_path`.
extension PostgresStore {
    /// Starts loading libpq on another thread, for a command about to open a PostgreSQL store:
    /// libpq and the ~20 libraries it needs take 5–8 ms of `dlopen` here, which the rest of the
    /// command's start (its time zone, the command's own set-up) now overlaps. The loader fills the table
    /// once under its lock, so whoever asks first waits for that same load, and a libpq that cannot
    /// be loaded is reported as it is on first use (datebook_libraries.h, LibraryLoadingTests).
    public static func loadLibraryAhead() {
        Thread.detachNewThread { _ = datebook_pq() }
    }

    /// `conninfo` with `options=-c search_path=SCHEMA -c lock_timeout=…` (`PostgresSession`), unless
    /// the URL gives `options` itself (then false, and they are set by statements after connecting).
    static func withStartupSettings(_ conninfo: String, session: PostgresSession) -> (conninfo: String, set: Bool) {
        guard var components = URLComponents(string: conninfo),
              !(components.queryItems ?? []).contains(where: { $0.name == "options" }) else { return (conninfo, false) }
        // libpq refuses a second `=` in a query value: it is percent-encoded, as is the space.
        components.percentEncodedQueryItems = (components.percentEncodedQueryItems ?? [])
            + [URLQueryItem(name: "options", value: session.startupOptions)]
        return (components.string ?? conninfo, components.string != nil)
    }

    /// True when the schema exists at this build's version and the search path is set: nothing
    /// more to prepare. False for anything else (no schema, another version), which the full check
    /// then reads and judges.
    func isCurrentSchema() throws -> Bool {
        let rows = try wrap { () throws -> PostgresRows? in
            do {
                return try connection.query("SELECT value FROM \(quotedSchema).meta WHERE name = 'schema_version'")
            } catch let error as PostgresError where !error.isConnectionLoss {
                return nil  // no schema or no meta table yet, or no right to read it
            }
        }
        guard let rows, rows.count > 0, rows.int(0, 0) == Self.schemaVersion else { return false }
        if !sessionAtStartup { try wrap { try connection.execute(session.statements) } }
        return true
    }
}
