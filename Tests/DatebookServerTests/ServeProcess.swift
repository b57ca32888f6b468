import DatebookTestSupport
import Foundation

let datebookBinary = repositoryRoot.appendingPathComponent(".build/debug/datebook").path

/// A scratch store and config, the `datebook` binary run on them with a fixed clock and zone, and
/// `datebook serve` started on a free loopback port.
final class ServeSandbox: @unchecked Sendable {  // used from one test at a time
    let directory: String
    let store: String
    let config: String
    var now = "2026-11-30 09:00"
    var tz = "Europe/Berlin"
    var environment: [String: String]
    private(set) var server: Process?
    private(set) var port: UInt16 = 0
    let log: String

    init(config text: String = "{}") throws {
        directory = makeScratchFolder("serve")
        store = directory + "/store.sqlite3"
        config = directory + "/config.json5"
        log = directory + "/serve.log"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        environment = ["HOME": directory, "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"]
    }

    deinit {
        stop()
        removeScratchFolder(directory)
    }

    var globalArguments: [String] { ["--store", store, "--config", config, "--now", now, "--tz", tz] }

    /// Runs `datebook arguments…` to the end.
    @discardableResult
    func run(_ arguments: [String], stdin: String = "") throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = globalArguments + arguments
        process.environment = environment
        let output = Pipe(), errors = directory + "/err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let err = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), err)
    }

    /// Starts `datebook serve --listen LISTEN` (plus `extra`) and waits for the address it prints.
    func start(listen: String = "127.0.0.1:0", command: [String] = ["serve"], extra: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: datebookBinary)
        process.arguments = globalArguments + command + ["--listen", listen] + extra
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        Reaper.watch(process)
        server = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"serving on http://[0-9.]+:([0-9]+)"#, options: .regularExpression),
               let port = UInt16(text[range].split(separator: ":").last ?? "") {
                self.port = port
                return
            }
            usleep(10_000)
        }
        throw ServeSandboxError.noAddress(logText)
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// SIGTERM, then the exit status (nil when it did not exit within 30 s); its process group is
    /// killed either way.
    @discardableResult
    func stop() -> Int32? {
        guard let server else { return nil }
        defer { Reaper.stop(server) }
        guard server.isRunning else { return server.terminationStatus }
        kill(server.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while server.isRunning, Date() < deadline { usleep(10_000) }
        return server.isRunning ? nil : server.terminationStatus
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> RawResponse {
        try request(port, "GET", path, headers: headers)
    }

    /// A form POST, from `source` (a loopback address: another client to the server).
    func post(_ path: String, form: [String: String], headers: [String: String] = [:], source: String = "127.0.0.1") throws -> RawResponse {
        let body = form.map { "\($0.key)=\(formEncode($0.value))" }.joined(separator: "&")
        return try request(port, "POST", path, headers: headers.merging(["Content-Type": "application/x-www-form-urlencoded"]) { $1 },
                           body: Array(body.utf8), source: source)
    }
}

enum ServeSandboxError: Error { case noAddress(String) }

func formEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

/// The first capture of `pattern` in `text`.
func firstMatch(_ pattern: String, in text: String) -> String? {
    guard let regex = try? NSRegularExpression(pattern: pattern),
          let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), match.numberOfRanges > 1,
          let range = Range(match.range(at: 1), in: text) else { return nil }
    return String(text[range])
}
