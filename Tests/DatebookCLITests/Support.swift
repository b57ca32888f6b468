@testable import DatebookCLI
import Foundation
import Testing

/// The result of one in-process CLI run.
struct CLIRun {
    var out: String
    var err: String
    var code: Int32
}

/// A scratch HOME and store for one test; runs the CLI in process with a fixed clock and zone.
struct Sandbox {
    let home: String
    let store: String
    var now = "2026-11-30 09:00"
    var tz = "Europe/Berlin"

    init() {
        home = NSTemporaryDirectory() + "datebook-cli-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        store = home + "/store.sqlite3"
    }

    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:], storePath: String? = nil,
             terminal: Bool = false) -> CLIRun {
        let out = StringSink(), err = StringSink()
        var environment = ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"]
        environment.merge(extra) { $1 }
        let code = Datebook.main(arguments: ["--store", storePath ?? store, "--now", now, "--tz", tz] + arguments,
                                 environment: environment, stdoutIsTerminal: terminal, out: out, err: err)
        return CLIRun(out: out.text, err: err.text, code: code)
    }
}

enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// Compares `text` with `Snapshots/name`; `DATEBOOK_UPDATE_SNAPSHOTS=1` rewrites the file instead.
    static func expect(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["DATEBOOK_UPDATE_SNAPSHOTS"] == "1" {
            try? Data(text.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("missing snapshot \(name); run with DATEBOOK_UPDATE_SNAPSHOTS=1", sourceLocation: sourceLocation)
            return
        }
        #expect(text == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
    }
}
