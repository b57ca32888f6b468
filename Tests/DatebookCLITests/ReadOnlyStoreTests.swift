import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// A store this user can read but not write, for each cause: the binary runs as `nobody`
/// (setpriv) on files owned by root, so SQLite meets the real permission errors.
@Suite(.enabled(if: getuid() == 0, "needs root to run datebook as nobody"))
struct ReadOnlyStoreTests {
    static let binary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path
    static let nobody: uid_t = 65534

    enum Cause: String, CaseIterable {
        case file, directory, staleCompanions
    }

    @Test(arguments: Cause.allCases)
    func readsWorkAndWritesExplainTheCause(cause: Cause) throws {
        let directory = makeScratchFolder("ro")
        defer { removeScratchFolder(directory) }
        let store = directory + "/store.sqlite3"
        let config = directory + "/config.json5"
        try "{}".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(run(["demo"], store: store, config: config, asNobody: false).code == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        // Kept open by root (as a daemon would be) so its -wal and -shm stay.
        var holder: Store?
        switch cause {
        case .file:
            break  // root's file, root's directory
        case .directory:
            #expect(chown(store, Self.nobody, Self.nobody) == 0)
        case .staleCompanions:
            #expect(chown(directory, Self.nobody, Self.nobody) == 0)
            #expect(chown(store, Self.nobody, Self.nobody) == 0)
            holder = try Store(path: store)
            for companion in [store + "-wal", store + "-shm"] { #expect(chown(companion, 0, 0) == 0) }
        }
        defer { withExtendedLifetime(holder) {} }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for (arguments, expected) in [(["list"], "Pagliacci"), (["show", "Pagliacci"], "Pagliacci"), (["export"], "\"datebook\": 1"),
                                      (["digest"], "Pagliacci"), (["status"], "Next deliveries:")] {
            let read = run(arguments, store: store, config: config)
            #expect(read.code == 0 && read.out.contains(expected), "\(cause) \(arguments): \(read.code) \(read.err)")
        }
        let advice = [
            Cause.file: "cannot be written: it belongs to root (mode 644) and is not writable by nobody; run datebook as root",
            .directory: "cannot be written: its directory \(directory) is not writable by nobody",
            .staleCompanions: "-wal belongs to root (left by datebook or sqlite3 run as root?) and is not writable by nobody; "
                + "give both to nobody (sudo chown nobody \(store)-wal \(store)-shm)",
        ][cause] ?? ""
        for arguments in [["add", "Dentist", "--at", "tomorrow 9:00"], ["task", "done", "Pagliacci", "1"]] {
            let write = run(arguments, store: store, config: config)
            #expect(write.code == 65, "\(cause) \(arguments): \(write.err)")
            #expect(write.err.hasPrefix("datebook: store \(store) ") && write.err.contains(advice), "\(cause): \(write.err)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// Runs the binary (as nobody unless told otherwise) with a fixed clock; stdout and stderr.
    func run(_ arguments: [String], store: String, config: String, asNobody: Bool = true) -> (code: Int32, out: String, err: String) {
        let process = Process()
        let prefix = asNobody ? ["/usr/bin/setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"] : []
        process.executableURL = URL(fileURLWithPath: prefix.first ?? Self.binary)
        process.arguments = Array(prefix.dropFirst()) + (asNobody ? [Self.binary] : [])
            + ["--store", store, "--config", config, "--now", "2026-11-30 09:00", "--tz", "Europe/Berlin"] + arguments
        process.environment = ["HOME": "/tmp", "PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return (-1, "", "\(error)") }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}
