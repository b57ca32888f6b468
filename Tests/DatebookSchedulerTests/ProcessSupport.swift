import DatebookCore
import DatebookStore
import DatebookTestSupport
import Foundation
import Testing

/// The debug binary built by `swift build` / `swift test`, found from this file's path.
let datebookBinary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path

/// The delivery tests' `http_sink.py` on 127.0.0.1: records each request with its time before answering.
final class Sink: @unchecked Sendable {
    let server: TestServer
    var port: Int { server.port }
    var directory: String { server.directory.path }

    init() throws { server = try TestServer(script: "http_sink.py") }

    /// (Idempotency-Key, time) of every request so far.
    func requests() throws -> [(key: String, time: Double)] {
        try server.records().compactMap { record in
            guard let time = record["time"] as? Double, let headers = record["headers"] as? [[String]] else { return nil }
            let key = headers.first { $0.count == 2 && $0[0].lowercased() == "idempotency-key" }?[1] ?? ""
            return (key, time)
        }
    }

    /// How many requests reached the sink so far (its record lines, counted without parsing them).
    /// The records so far (one a line). memchr, not a byte-by-byte reduce: the crash test polls this
    /// while a tick sends, and a debug-build reduce over a few hundred kB took longer than a round.
    func requestCount() -> Int {
        guard let data = FileManager.default.contents(atPath: server.recordFile.path) else { return 0 }
        return data.withUnsafeBytes { bytes -> Int in
            guard var cursor = bytes.baseAddress else { return 0 }
            let end = cursor + bytes.count
            var count = 0
            while cursor < end, let newline = memchr(cursor, 0x0A, end - cursor) {
                count += 1
                cursor = UnsafeRawPointer(newline) + 1
            }
            return count
        }
    }

    func counts() throws -> [String: Int] {
        try requests().reduce(into: [:]) { $0[$1.key, default: 0] += 1 }
    }
}

/// A scratch HOME with a config whose webhook channels point at the sink, and a store.
struct ProcessSandbox {
    let directory: String
    /// A SQLite file in `directory`, or the `postgresql://` URL given.
    let store: String
    var config: String { directory + "/config.json5" }
    /// More variables for every spawned datebook (`DATEBOOK_LEASE`, say).
    var extraEnvironment: [String: String] = [:]

    init(sink: Sink, channels: [String: String], lead: String, zone: String = "Europe/Berlin", store: String? = nil) throws {
        directory = sink.directory
        self.store = store ?? sink.directory + "/store.sqlite3"
        let list = channels.keys.sorted()
        let channelText = list.map { "\($0): { type: \"webhook\", url: \"http://127.0.0.1:\(sink.port)\(channels[$0] ?? "/")\" }" }
            .joined(separator: ", ")
        let text = """
            { timeZone: "\(zone)", channels: { \(channelText) },
              alerts: { before: ["\(lead)"], channels: [\(list.map { "\"\($0)\"" }.joined(separator: ", "))], lateness: "6h" } }
            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// The whole environment of a spawned datebook (nothing is inherited): the caller's
    /// DATEBOOK_*, XDG_* and NO_COLOR never reach it.
    var environment: [String: String] {
        ["HOME": directory, "DATEBOOK_STORE": store, "DATEBOOK_CONFIG": config, "PATH": "/usr/bin:/bin", "DATEBOOK_TZ": "Europe/Berlin"]
            .merging(extraEnvironment) { $1 }
    }

    /// Starts `datebook arguments…` with stderr collected in `log`.
    func start(_ arguments: [String], log: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        Reaper.watch(process)
        return process
    }

    /// Runs to completion; returns the exit status.
    @discardableResult
    func run(_ arguments: [String]) throws -> Int32 {
        let process = try start(arguments)
        process.waitUntilExit()
        Reaper.stop(process)
        return process.terminationStatus
    }

    func save(_ events: [Event]) throws {
        let store = try StoreOpener.open(store)
        try store.save(events)
    }
}

func event(_ title: String, at start: Date) -> Event {
    Event(id: EventID.stable(title), title: title, start: .instant(start), timeZone: "Europe/Berlin", symbol: .star, color: .primary)
}

/// Waits up to `seconds` for `process` to exit; false when it is still running.
func waitForExit(_ process: Process, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    return !process.isRunning
}

/// Runs the built binary to its end: standard output, standard error (each read to EOF before the
/// wait) and the exit status.
func runDatebook(_ arguments: [String], environment: [String: String]) throws -> (out: String, err: String, code: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: datebookBinary)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let text = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: text, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus)
}
