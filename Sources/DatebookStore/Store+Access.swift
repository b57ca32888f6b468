import CSQLite
import Foundation

/// Stores this user may read but not write: reading still works, writing fails with advice for
/// the actual cause (the file, its directory, or a `-wal`/`-shm` file left by another user).
extension Store {
    /// Why this user cannot write the store at `path` (which exists), or nil when nothing is in the way.
    ///
    /// Root passes every permission check, so a file without any write bit counts as read-only
    /// whoever asks (`isWriteProtected`).
    static func writeProblem(_ path: String) -> StoreError? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        if isWriteProtected(path) { return .readOnly(path: path) }
        if access(path, W_OK) != 0 {
            let info = ownerAndMode(path)
            guard info.owner != userName(getuid()) else { return .readOnly(path: path) }
            return .notWritable(path: path, advice: "it belongs to \(info.owner) (mode \(info.mode)) and is not writable by "
                                + "\(userName(getuid())); run datebook as \(info.owner), or copy the store and pass --store COPY")
        }
        var missing = false
        for companion in [path + "-wal", path + "-shm"] {
            guard FileManager.default.fileExists(atPath: companion) else {
                missing = true
                continue
            }
            if access(companion, W_OK) != 0 {
                // Never "remove it": a -wal may hold committed changes that are not in the store yet.
                let owner = ownerAndMode(companion).owner, me = userName(getuid())
                return .notWritable(path: path, advice: "\(companion) belongs to \(owner) (left by datebook or sqlite3 run as "
                                    + "\(owner)?) and is not writable by \(me); give both to \(me) (sudo chown \(me) \(path)-wal "
                                    + "\(path)-shm) or run datebook as \(owner)")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        if missing, access(directory, W_OK) != 0 {
            return .notWritable(path: path, advice: "its directory \(directory) is not writable by \(userName(getuid())), and SQLite "
                                + "creates \((path as NSString).lastPathComponent)-wal and -shm beside the store; make the directory "
                                + "writable or move the store into one that is")
        }
        return nil
    }

    /// A read-only connection. SQLite reads a WAL-mode file through its `-shm` index; when that
    /// is missing and cannot be created here (a directory this user cannot write) and no WAL
    /// content is waiting, the file alone is the whole database and is opened `immutable`.
    static func openForReading(_ path: String) throws -> SQLiteConnection {
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        let connection = try SQLiteConnection(path: path, flags: flags)
        do {
            _ = try connection.integer("PRAGMA user_version")
            return connection
        } catch let error as SQLiteError {
            let code = error.code & 0xFF
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
            guard code == SQLITE_READONLY || code == SQLITE_CANTOPEN, walSize == 0,
                  let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["?", "#", "%"]))
            else { throw error }
            return try SQLiteConnection(path: "file:" + encoded + "?immutable=1", flags: flags | SQLITE_OPEN_URI)
        }
    }

    static func ownerAndMode(_ path: String) -> (owner: String, mode: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return ("another user", "?") }
        return (userName(info.st_uid), String(info.st_mode & 0o777, radix: 8))
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }
}
