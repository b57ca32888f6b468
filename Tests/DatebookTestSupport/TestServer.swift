import Foundation

/// The repository's root folder, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The test servers' scripts: `Tests/DatebookDeliveryTests/Support/`.
public let serverScripts = repositoryRoot.appendingPathComponent("Tests/DatebookDeliveryTests/Support")

/// A Python test server run as a subprocess; it prints its port on the first line.
public final class TestServer: @unchecked Sendable {
    public let process = Process()
    public let port: Int
    public let recordFile: URL
    public let directory: URL

    /// Starts `Support/<script>` with `arguments` (after the record file) using /usr/bin/python3.
    public init(script: String, arguments: [String] = []) throws {
        directory = URL(fileURLWithPath: makeScratchFolder("test"))
        recordFile = directory.appendingPathComponent("record.jsonl")
        _ = FileManager.default.createFile(atPath: recordFile.path, contents: Data())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [serverScripts.appendingPathComponent(script).path, recordFile.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        Reaper.watch(process)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8),
            let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").first ?? "")
        else {
            stopServer(process, removing: directory)
            throw TestServerError.noPort(script)
        }
        self.port = port
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The JSON objects recorded so far, one per request/message.
    public func records() throws -> [[String: Any]] {
        let text = try String(contentsOf: recordFile, encoding: .utf8)
        // Whole lines only: read while the sink writes one, the last may be cut short.
        let end = text.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return try text[..<end].split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    public func stop() { stopServer(process, removing: directory) }

    deinit { stop() }
}

/// Kills a test server's process group (SIGKILL), waits for it, and removes its folder.
func stopServer(_ process: Process, removing directory: URL) {
    Reaper.stop(process)
    removeScratchFolder(directory.path)
}

public enum TestServerError: Error { case noPort(String) }

/// A throwaway self-signed certificate for 127.0.0.1 / localhost (`http_sink.py CERT KEY` speaks
/// HTTPS with it; a client trusts it only when given `cert` as its CA file).
public func makeCertificate(in directory: URL) throws -> (cert: String, key: String) {
    let cert = directory.appendingPathComponent("cert.pem").path
    let key = directory.appendingPathComponent("key.pem").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (cert, key)
}
