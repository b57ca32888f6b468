import DatebookDelivery
import Foundation

/// A throwaway PostgreSQL server on 127.0.0.1: `initdb` into a temporary directory, `pg_ctl start`
/// on a free port, `pg_ctl -m immediate stop` and the directory removed when the test process ends.
///
/// One server per test process (`shared`), one database per test (`makeDatabase()`), so tests
/// stay independent without paying for an `initdb` each. When PostgreSQL is missing or will not
/// start, `shared` throws and the test fails naming the cause: these tests never skip.
///
/// `initdb` and `postgres` refuse to run as root: as root the directory belongs to the `postgres`
/// user and every server program runs through `runuser -u postgres --`.
/// Authentication: trust for every role but `secretive`, whose password is `right-password`
/// (scram-sha-256), so wrong-password errors can be tested.
public final class TestPostgres: @unchecked Sendable {  // immutable after init; `counter` under `lock`
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public static let passwordRole = "secretive"
    public static let rightPassword = "right-password"

    public let directory: URL
    public let port: Int
    private let lock = NSLock()
    private var counter = 0

    /// The server of this test process, started on first use.
    public static func shared() throws -> TestPostgres {
        try sharedServer.get()
    }

    private static let sharedServer: Result<TestPostgres, Error> = {
        let result = Result { try TestPostgres() }
        if case .success = result { atexit { try? TestPostgres.sharedServer.get().stop() } }
        return result
    }()

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binaries + "/initdb") else {
            throw TestPostgresError.notInstalled(Self.binaries)
        }
        directory = URL(fileURLWithPath: makeScratchFolder("pg"))
        port = try DatebookTestSupport.freePort()
        do {
            try Self.giveToServerUser(directory.path)
            let data = directory.appendingPathComponent("data").path
            try Self.runAsServer("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
            let hba = """
                local all all trust
                host all \(Self.passwordRole) 127.0.0.1/32 scram-sha-256
                host all all 127.0.0.1/32 trust
                """
            try Data((hba + "\n").utf8).write(to: URL(fileURLWithPath: data + "/pg_hba.conf"))
            try Self.giveToServerUser(data + "/pg_hba.conf")
            try start()
            try sql("CREATE ROLE \(Self.passwordRole) LOGIN SUPERUSER PASSWORD '\(Self.rightPassword)'")
        } catch {
            stop()
            throw error
        }
    }

    /// `pg_ctl start` on `port` (the data directory exists).
    private func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off "
            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        try Self.runAsServer("pg_ctl", ["-D", directory.appendingPathComponent("data").path,
                                        "-l", directory.appendingPathComponent("server.log").path,
                                        "-o", options, "-w", "-t", "60", "start"])
        // pg_ctl starts the server in a session of its own: the reaper watches that group.
        Reaper.watch(group: postmaster)
    }

    /// The server's process id (first line of `postmaster.pid`), 0 when it is not running.
    private var postmaster: pid_t {
        let text = (try? String(contentsOfFile: directory.appendingPathComponent("data/postmaster.pid").path, encoding: .utf8)) ?? ""
        return pid_t(text.split(separator: "\n").first ?? "") ?? 0
    }

    /// Stops the server (`pg_ctl -m fast`: every connection is cut), waits `pause` seconds with no
    /// server on the port, and starts it again with its data. Only on a server of one's own: the
    /// `shared` one serves other tests at the same time.
    public func restart(pause: TimeInterval) throws {
        Reaper.forget(group: postmaster)
        try Self.runAsServer("pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"])
        Thread.sleep(forTimeInterval: pause)
        try start()
    }

    /// Ends every connection to `database` but the caller's (`pg_terminate_backend`), as an
    /// administrator or a failover would.
    @discardableResult
    public func terminateConnections(database: String) throws -> Int {
        let ended = try sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            + "WHERE datname = '\(database)' AND pid <> pg_backend_pid()")
        return Int(ended) ?? 0
    }

    /// A new empty database; its URL for the `postgres` superuser (trust: no password).
    public func makeDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            counter += 1
            return "t\(getpid())_\(counter)"
        }
        try sql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    public func url(database: String, user: String = "postgres", password: String? = nil) -> String {
        let credentials = password.map { "\(user):\($0)" } ?? user
        return "postgresql://\(credentials)@127.0.0.1:\(port)/\(database)"
    }

    /// Runs SQL through `psql` as the superuser, in database `database`.
    @discardableResult
    public func sql(_ text: String, database: String = "postgres") throws -> String {
        try Self.run(Self.binaries + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                                               "-h", "127.0.0.1", "-p", String(port), "-U", "postgres",
                                               "-d", database, "-c", text])
    }

    /// Stops the server at once and removes its directory.
    public func stop() {
        let data = directory.appendingPathComponent("data").path
        let server = postmaster
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            _ = try? Self.runAsServer("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        }
        Reaper.stop(group: server)
        removeScratchFolder(directory.path)
    }

    static var isRoot: Bool { getuid() == 0 }

    static func giveToServerUser(_ path: String) throws {
        guard isRoot else { return }
        guard let user = getpwnam("postgres") else { throw TestPostgresError.noServerUser }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw TestPostgresError.failed("chown \(path)", String(cString: strerror(errno)))
        }
    }

    @discardableResult
    static func runAsServer(_ program: String, _ arguments: [String]) throws -> String {
        let path = binaries + "/" + program
        return isRoot ? try run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments) : try run(path, arguments)
    }

    /// Runs a program to its end (posix_spawn and waitpid); its output goes through a file. Not
    /// Foundation's `Process`: the server that `pg_ctl start` leaves running inherits what
    /// `Process` watches the child with, and `waitUntilExit` then never returns.
    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "datebook-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        // Nothing else reaches the server (SpawnActions says why); the caller's process group.
        let pid: pid_t
        do {
            pid = try Spawn.start(path, arguments, descriptors: [(0, .null(write: false)), (1, .file(outputPath, append: false)), (2, .copy(1))],
                                  ownGroup: false)
        } catch let failure as Spawn.Failure {
            throw TestPostgresError.failed(path, String(cString: strerror(failure.code)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else {
            throw TestPostgresError.failed(([path] + arguments).joined(separator: " "), text)
        }
        return text
    }
}

public enum TestPostgresError: Error, CustomStringConvertible {
    case notInstalled(String)
    case noServerUser
    case failed(String, String)

    public var description: String {
        switch self {
        case .notInstalled(let directory):
            "PostgreSQL is not installed (no initdb in \(directory)): run scripts/setup.sh --test"
        case .noServerUser:
            "no 'postgres' user to run the test server as: install Debian's postgresql package (scripts/setup.sh --test)"
        case let .failed(command, output):
            "\(command) failed: \(output)"
        }
    }
}
